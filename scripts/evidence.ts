// `npm run evidence`: the evidence behind shadowlog's compaction defaults. tune's replay of every
// session of the shared corpus (imported as `tune DIR` imports it) and of the demo's scripted
// sessions, at six windows, under the evidence grid; the selection rule applied to it; written to
// docs/evidence.md, docs/evidence/evidence.json and the SVG plots beside it.
//
//   nice -n 10 npm run evidence                    (the whole grid: minutes)
//   npm run evidence -- --report-only              (the report again from the checked-in table)
//   npm run evidence -- --corpus DIR --out DIR     (another corpus, another place)

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SAMPLE_PROJECT } from '../src/cli/commands/demo.js';
import { DEMO_MODEL_ID, DEMO_STRATEGY_TASKS, DEMO_TASKS, demoAgentReply } from '../src/cli/demo/demo-agent.js';
import { COMPACTION_EVENT_TYPES } from '../src/compaction/index.js';
import { importFiles, readImportInputs } from '../src/importers/index.js';
import { EventTypeRegistry } from '../src/log/index.js';
import { ScriptedModel } from '../src/providers/index.js';
import { createFileTools, createHarness } from '../src/spine/index.js';
import { MemoryLogStore } from '../src/store/index.js';
import { evidenceReportFiles } from '../src/tune/evidence-report.js';
import { type EvidenceSession, type EvidenceTable, runEvidence } from '../src/tune/evidence-run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const COMMAND = 'nice -n 10 npm run evidence';

const { values } = parseArgs({
  options: {
    // The shared corpus as the repository holds it.
    corpus: { type: 'string', default: join(ROOT, 'test/fixtures/corpus/sessions') },
    out: { type: 'string', default: join(ROOT, 'docs') },
    'report-only': { type: 'boolean', default: false },
  },
});
const corpus = resolve(values.corpus as string);
const out = resolve(values.out as string);
const tablePath = join(out, 'evidence', 'evidence.json');

/** The demo's two scripted sessions (its tasks, and its strategy tasks), recorded with no compaction in a window they never fill. */
async function demoSessions(): Promise<EvidenceSession[]> {
  const store = new MemoryLogStore();
  const sessions: EvidenceSession[] = [];
  for (const [sessionId, tasks] of [
    ['demo-tasks', DEMO_TASKS],
    ['demo-strategy-tasks', DEMO_STRATEGY_TASKS],
  ] as const) {
    const model = new ScriptedModel({
      modelId: DEMO_MODEL_ID,
      replies: demoAgentReply,
      limits: { contextWindow: 10_000_000, defaultMaxOutputTokens: 512 },
    });
    const harness = createHarness({
      store,
      model,
      tools: createFileTools(SAMPLE_PROJECT),
      systemPrompt: 'You are a coding agent. Use the file tools to look at the project in the working directory before you answer.',
      capabilities: [],
      stream: false,
    });
    const session = await harness.createSession(sessionId);
    try {
      for (const task of tasks) {
        const result = await session.send(task.prompt);
        if (result.reason !== 'completed') throw new Error(`the demo's task "${task.prompt}" ended ${result.reason}`);
      }
    } finally {
      await session.close();
    }
    sessions.push({ store, sessionId, source: 'scripted' });
  }
  return sessions;
}

/** The corpus imported into a scratch store, as `tune DIR` does; a file that fails stops the run. */
async function corpusSessions(): Promise<EvidenceSession[]> {
  const store = new MemoryLogStore();
  const summary = await importFiles(store, await readImportInputs([corpus], process.cwd()), {
    format: 'auto',
    registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES),
  });
  if (summary.failed.length > 0)
    throw new Error(`evidence: ${summary.failed.map((file) => `${file.path}: ${file.code}: ${file.message}`).join('; ')}`);
  for (const file of summary.skipped) process.stderr.write(`evidence: skipped ${file.path}: ${file.reason}\n`);
  return summary.files.flatMap((file) =>
    file.sessions.map((session) => ({ store, sessionId: session.sessionId, source: 'corpus' as const })),
  );
}

async function writeWhole(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

const sessions = [...(await corpusSessions()), ...(await demoSessions())];
let table: EvidenceTable;
if (values['report-only'] === true) {
  table = JSON.parse(await readFile(tablePath, 'utf8')) as EvidenceTable;
} else {
  let last = 0;
  const run = await runEvidence(sessions, {
    command: COMMAND,
    onProgress: (window, progress) => {
      const now = performance.now();
      if (now - last < 5_000) return;
      last = now;
      process.stderr.write(
        `evidence: window ${window}, session ${progress.session}/${progress.sessions}, call ${progress.call}/${progress.calls}\n`,
      );
    },
  });
  table = run.table;
  await mkdir(join(out, 'evidence'), { recursive: true });
  await writeWhole(tablePath, `${JSON.stringify(table)}\n`);
}
const files = await evidenceReportFiles(table, sessions);
await mkdir(join(out, 'evidence'), { recursive: true });
for (const [name, text] of files) await writeWhole(join(out, name), text);
process.stdout.write(
  `evidence: ${table.cells.length.toLocaleString('en-US')} cells, ${table.policies.length} policies, ${Math.round(table.seconds).toLocaleString('en-US')} s of replay; wrote ${[...files.keys(), 'evidence/evidence.json'].join(', ')}\n`,
);
