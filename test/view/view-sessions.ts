// Sessions for the audit page's tests: the demo's (two compactions, a prune), written by the
// real CLI into a SQLite file, and a hostile one whose every message, tool call and result
// holds markup, script, `</script>`, `javascript:` links and terminal escapes.

import { join } from 'node:path';
import { z } from 'zod';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import type { LogEvent } from '../../src/log/event.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { defineTool } from '../../src/spine/tool.js';
import type { LogStore } from '../../src/store/log-store.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { TuneReport } from '../../src/tune/tune-report.js';
import { createCliWorkspace } from '../support/cli.js';

/** Markup and escapes that would run or act if the page ever parsed log text as HTML. */
export const HOSTILE_LINES = [
  '<script>window.__pwned = "script"</script>',
  '<img src=x onerror="window.__pwned = \'img\'">',
  '<a href="javascript:window.__pwned = \'link\'">open the report</a>',
  '</script><script>window.__pwned = "json"</script><!--',
  '<svg onload="window.__pwned = \'svg\'"></svg><iframe srcdoc="<script>parent.__pwned = 1</script>"></iframe>',
  '\u001b[2J\u001b[31mred\u001b]8;;https://example.invalid\u0007link\u001b]8;;\u0007 and \u202eevil',
  '" onmouseover="window.__pwned = \'attribute\'" x="',
];
export const HOSTILE = HOSTILE_LINES.join('\n');

/** The demo's session, written by `shadowlog demo` into `<cwd>/.shadowlog/shadowlog.db`. */
export async function writeDemoSession(sessionId: string) {
  const workspace = createCliWorkspace();
  const result = await workspace.run(['demo', '--session', sessionId, '--json']);
  if (result.code !== 0) throw new Error(`demo failed: ${result.stderr}`);
  return { workspace, storePath: join(workspace.cwd, '.shadowlog', 'shadowlog.db') };
}

/** A session of two turns and a manual compaction in which everything from outside is hostile. */
export async function writeHostileSession(store: LogStore, sessionId: string): Promise<void> {
  const model = new ScriptedModel({
    modelId: `hostile ${HOSTILE_LINES[0]}`,
    replies: ({ messages }) => {
      const last = messages.at(-1);
      if (last?.role === 'tool') return { text: `Answer:\n${HOSTILE}` };
      return {
        text: HOSTILE_LINES[2] as string,
        toolCalls: [{ name: 'fetch_page', arguments: { url: 'javascript:alert(1)', note: HOSTILE } }],
      };
    },
  });
  const fetchPage = defineTool({
    name: 'fetch_page',
    description: 'fetch a page',
    input: z.object({ url: z.string(), note: z.string() }),
    execute: () => `${HOSTILE}\n${'filler line of the page\n'.repeat(40)}${HOSTILE}`,
  });
  const compaction = createCompaction({ config: { auto: false, headroomTokens: 0, retainTokens: 0, summarizer: { kind: 'extractive' } } });
  const harness = createHarness({ store, model, tools: [fetchPage], systemPrompt: `System ${HOSTILE}`, capabilities: [compaction] });
  const session = await harness.createSession(sessionId);
  try {
    await session.send(`First ${HOSTILE}`);
    await session.send(`Second ${HOSTILE}`);
    const outcome = await compaction.compactNow(session);
    if (outcome.status !== 'compacted') throw new Error(`the hostile session did not compact: ${JSON.stringify(outcome)}`);
    await session.send(`Third ${HOSTILE}`);
  } finally {
    await session.close();
  }
}

export async function hostileStore(directory: string, sessionId: string) {
  const storePath = join(directory, 'hostile.db');
  const store = await openSqliteStore(storePath);
  await writeHostileSession(store, sessionId);
  return { store, storePath };
}

export async function readAll(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

/** A tune report typed as tune writes one (the type check holds it to the schema), with markup in a policy's name. */
const policyFigures = {
  description: 'a policy',
  infeasible: [],
  calls: 20,
  callsOverWindow: 0,
  meanWindowShare: 0.2,
  peakWindowShare: 0.4,
  failedCompactions: 0,
  prunes: 1,
  drops: 0,
  unpricedCalls: 0,
  retention: { used: 10, kept: 9, share: 0.9, reachable: 9, recallable: 0.9, worstMisses: [] },
  afterCompaction: {
    lookaheadCalls: 10,
    points: 2,
    aheadUsed: 8,
    aheadKept: 6,
    aheadShare: 0.75,
    openRequests: 2,
    openKept: 1,
    openShare: 0.5,
    instructions: 2,
    instructionsKept: 1,
    instructionShare: 0.5,
  },
  pruner: true,
} as const;
export const TUNE_REPORT: TuneReport = {
  version: 1,
  prices: { date: '2025-11-30', source: 'list prices' },
  estimator: 'script-aware',
  policies: [
    {
      ...policyFigures,
      policy: 'defaults',
      origin: 'shadowlog',
      feasible: true,
      tokensSent: 120_000,
      peakTokens: 2_600,
      compactions: 2,
      summarizerTokens: { input: 1_200, output: 300 },
      cachePrefixShare: 0.61,
      costUsd: 0.36,
      config: { thresholdRatio: 0.8 },
    },
    {
      ...policyFigures,
      policy: 'never <b>compact</b>',
      origin: 'baseline',
      feasible: false,
      infeasible: [{ sessionId: 'demo-cli', firstCallOverWindow: 12, refused: null }],
      callsOverWindow: 8,
      tokensSent: 300_000,
      peakTokens: 9_000,
      compactions: 0,
      summarizerTokens: { input: 0, output: 0 },
      cachePrefixShare: 0.9,
      costUsd: 0.9,
      config: null,
    },
  ],
  sessions: [],
  unfitSessions: [],
  harnessSettings: [],
  recommendation: {
    policy: 'defaults',
    reason: 'the cheapest feasible policy within 2 % of the best retention',
    config: { thresholdRatio: 0.8 },
    margin: 0.02,
  },
};
