// A slow importer beside a running agent (issue 9, item 6), on every run. A child process imports
// a JSONL export from a pipe that the test keeps open, as `shadowlog import -` with a slow
// producer would; meanwhile a real agent process (the crash suite's scripted agent, compaction
// and pruner mounted) runs all its turns on another session of the same SQLite file, and a
// read-only store lists and verifies. The agent must finish every turn, the reader must never
// wait for a lock, the import must stay invisible until its input ends and then land whole; the
// import's commit then lands while a second agent runs.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/log/verify.js';
import { exportSession } from '../../src/store/jsonl.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';
import { readEvents, registry } from './support/crash-checks.js';
import { createRandom } from './support/crash-points.js';
import { CHILD_TURNS } from './support/crash-scenario.js';
import { recordFigures } from './support/figures.js';

const AGENT = 'test/chaos/fixtures/crash-agent.ts';
const IMPORTER = 'test/chaos/fixtures/sqlite-slow-importer.ts';
const CHILD_TIMEOUT_MS = 60_000;
const IMPORT_EVENTS = 3_000;
/** Lines of the export the importer gets before the agent starts: more than one 1,000-event batch. */
const FIRST_PART_LINES = 1_600;
/** Importers killed around their commit on each run, each after a seeded delay of up to KILL_DELAY_MS. */
const COMMIT_KILLS = 8;
const KILL_DELAY_MS = 150;
const SEED = Number(process.env.SHADOWLOG_SLOW_IMPORT_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`slow import: seed ${SEED} (re-run with SHADOWLOG_SLOW_IMPORT_SEED=${SEED})`);

const children: Child[] = [];
const workDir = mkdtempSync(join(tmpdir(), 'shadowlog-slow-import-'));
const figures: Record<string, unknown> = {};

afterEach(() => killChildren(children));
afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
  recordFigures('sqlite-slow-import', figures);
});

/** The export of a session of IMPORT_EVENTS events, built in memory. */
async function buildExport(sessionId: string): Promise<{ text: string; lastHash: string }> {
  const source = new MemoryLogStore();
  const log = await SessionLog.create(source, sessionId);
  const filler = 'a line of imported history, long enough to fill pages of the write-ahead log. '.repeat(8);
  // session/start is seq 0; user messages fill the rest.
  for (let next = 1; next < IMPORT_EVENTS; next += 100) {
    const count = Math.min(100, IMPORT_EVENTS - next);
    await log.append(
      Array.from({ length: count }, (_, index) => ({
        type: 'user/message',
        data: { content: [{ type: 'text' as const, text: `${next + index} ${filler}` }] },
        surfaceOp: 'append' as const,
      })),
    );
  }
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportSession(source, sessionId, output);
  output.end();
  return { text: Buffer.concat(chunks).toString('utf8'), lastHash: (await source.head(sessionId))?.lastHash ?? '' };
}

function startAgent(path: string, sessionId: string): Child {
  const child = startChild(AGENT, [`sqlite:${path}`, sessionId, '1', 'none'], CHILD_TIMEOUT_MS);
  children.push(child);
  return child;
}

/** Lists and verifies through the read-only store until `until` settles; counts what it did. */
async function readWhile(reader: SqliteLogStore, sessionId: string, until: Promise<unknown>) {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const seen = { listings: 0, verifications: 0, importVisible: 0 };
  while (!done) {
    const sessions = await reader.listSessions();
    seen.listings++;
    if (sessions.some((session) => session.id === 'imported')) seen.importVisible++;
    if (sessions.some((session) => session.id === sessionId)) {
      const report = await verifyLog(reader.read(sessionId), { registry });
      expect(report.problems).toEqual([]);
      seen.verifications++;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return seen;
}

async function expectAgentFinished(agent: Child, context: string): Promise<number> {
  const exit = await agent.exited;
  const { stdout, stderr } = agent.output();
  expect(stderr, context).toBe('');
  expect(exit, context).toEqual({ code: 0, signal: null });
  expect(stdout.split('\n'), context).toContain('done');
  return stdout.split('\n').filter((line) => line.startsWith('ack ')).length;
}

describe('SQLite: a slow importer beside a running agent', () => {
  it(
    'lets the agent run every turn and the reader list and verify while the import waits for its input, then lands the import whole',
    async () => {
      const path = join(workDir, 'shared.db');
      await (await openSqliteStore(path)).close();
      const { text, lastHash } = await buildExport('imported');
      const lines = text.split('\n');
      const firstPart = `${lines.slice(0, FIRST_PART_LINES).join('\n')}\n`;
      const rest = lines.slice(FIRST_PART_LINES).join('\n');

      const importer = startChild(IMPORTER, [path], CHILD_TIMEOUT_MS);
      children.push(importer);
      importer.process.stdin.write(firstPart);
      // The import has taken all of it, staged its first batch, and waits for more input.
      await importer.waitFor(`consumed ${Buffer.byteLength(firstPart)}`);

      let readerLockWaits = 0;
      const reader = await openSqliteStore(path, { readOnly: true, lockNoticeMs: 0, onLockWait: () => readerLockWaits++ });
      const firstAgent = startAgent(path, 'agent-1');
      const firstRead = await readWhile(reader, 'agent-1', firstAgent.exited);
      const firstEvents = await expectAgentFinished(firstAgent, 'the agent beside the open import');
      expect(firstRead.importVisible, 'the import was visible before its input ended').toBe(0);
      expect(await reader.head('imported')).toBeUndefined();

      // The rest of the input, a piece at a time, while a second agent runs: the import's
      // commit lands in the middle of the agent's appends.
      const secondAgent = startAgent(path, 'agent-2');
      while ((await reader.head('agent-2')) === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      const pieces = 8;
      const pieceLength = Math.ceil(rest.length / pieces);
      for (let start = 0; start < rest.length; start += pieceLength) {
        importer.process.stdin.write(rest.slice(start, start + pieceLength));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      importer.process.stdin.end();
      const secondRead = readWhile(reader, 'agent-2', secondAgent.exited);
      await importer.waitFor(`imported ${IMPORT_EVENTS}`);
      const committedWhileAgentRan = secondAgent.process.exitCode === null;
      expect(await importer.exited).toEqual({ code: 0, signal: null });
      const secondEvents = await expectAgentFinished(secondAgent, 'the agent beside the import’s commit');
      const secondSeen = await secondRead;

      expect(await reader.head('imported')).toEqual({ nextSeq: IMPORT_EVENTS, lastHash });
      const imported = await verifyLog(reader.read('imported'), { registry });
      expect(imported.problems).toEqual([]);
      for (const sessionId of ['agent-1', 'agent-2']) {
        expect((await verifyLog(reader.read(sessionId), { registry })).problems).toEqual([]);
      }
      expect((await readEvents(reader, 'agent-1')).length).toBe(firstEvents);
      expect(readerLockWaits, 'the reader waited for a lock').toBe(0);
      await reader.close();

      const importerLockWaits = importer
        .output()
        .stdout.split('\n')
        .filter((line) => line.startsWith('lock-wait ')).length;
      Object.assign(figures, {
        agentRuns: 2,
        agentTurns: 2 * CHILD_TURNS,
        agentEvents: firstEvents + secondEvents,
        agentEventsWhileImportOpen: firstEvents,
        importEvents: IMPORT_EVENTS,
        importBytes: Buffer.byteLength(text),
        readerListings: firstRead.listings + secondSeen.listings,
        readerVerifications: firstRead.verifications + secondSeen.verifications,
        readerLockWaits,
        importerLockWaits,
        committedWhileAgentRan,
      });
      console.log(`slow import beside an agent: ${JSON.stringify(figures)}`);
    },
    3 * CHILD_TIMEOUT_MS,
  );

  it(
    'keeps all of an import or none of it when the importer is SIGKILLed around its commit',
    async () => {
      const { text } = await buildExport('imported');
      const random = createRandom(SEED);
      // none: killed before its commit wrote anything; insideCommit: the -wal holds frames of a
      // commit that never finished; whole: the commit landed.
      const outcomes = { kills: 0, none: 0, insideCommit: 0, whole: 0 };
      for (let run = 0; run < COMMIT_KILLS; run++) {
        const context = `kill ${run} (seed ${SEED})`;
        const path = join(workDir, `killed-${run}.db`);
        await (await openSqliteStore(path)).close();
        const importer = startChild(IMPORTER, [path], CHILD_TIMEOUT_MS);
        children.push(importer);
        importer.process.stdin.end(text);
        // The input is read and checked; what is left is the last batch and the one commit.
        await importer.waitFor('input ended');
        await new Promise((resolve) => setTimeout(resolve, random(KILL_DELAY_MS)));
        importer.process.kill('SIGKILL');
        await importer.exited;
        outcomes.kills++;
        // Staging writes only the TEMP database: frames in the -wal come from the commit alone.
        const walBytes = statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
        const check = new Database(path, { readonly: true });
        try {
          expect(check.pragma('integrity_check', { simple: true }), context).toBe('ok');
        } finally {
          check.close();
        }
        const reader = await openSqliteStore(path, { readOnly: true });
        try {
          const stored = (await reader.head('imported'))?.nextSeq ?? 0;
          expect([0, IMPORT_EVENTS], `${context}: events stored`).toContain(stored);
          if (stored === 0 && walBytes === 0) outcomes.none++;
          else if (stored === 0) outcomes.insideCommit++;
          else {
            outcomes.whole++;
            expect((await verifyLog(reader.read('imported'), { registry })).problems).toEqual([]);
          }
        } finally {
          await reader.close();
        }
      }
      figures.seed = SEED;
      figures.killedAroundCommit = outcomes;
      console.log(`importers killed around their commit: ${JSON.stringify(outcomes)}`);
    },
    COMMIT_KILLS * CHILD_TIMEOUT_MS,
  );
});
