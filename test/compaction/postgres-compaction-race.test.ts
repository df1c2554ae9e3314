// The compaction lock (SPEC §7 steps 2–3) under real concurrency on PostgreSQL: several processes
// try to compact one session at the same moment, and exactly one lands its replacement. Through
// the harness, ownership lets only one of them in; driving the transaction directly, without
// ownership, the store's expected-seq check on compaction/start is what decides. Needs
// SHADOWLOG_TEST_POSTGRES_URL; see test/support/postgres.ts.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACTION_END, COMPACTION_EVENT_TYPES, COMPACTION_START, COMPACTION_SUMMARY } from '../../src/compaction/event-types.js';
import type { CompactionOutcome } from '../../src/compaction/transaction.js';
import type { LogEvent } from '../../src/log/event.js';
import { EventTypeRegistry } from '../../src/log/event-types.js';
import { isReplaceOp } from '../../src/log/surface-op.js';
import { verifyLog } from '../../src/log/verify.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { nodeSha256Hex } from '../../src/store/node-sha256.js';
import { openPostgresStore, type PostgresLogStore } from '../../src/store/postgres/index.js';
import { nodeScriptArgs } from '../support/node-script.js';
import { findPostgres } from '../support/postgres.js';
import { RACE_WINDOW, raceAgent, readLogTool } from './fixtures/race-session.js';

const server = await findPostgres({ announce: false });
const RACERS = 4;
const CHILD_TIMEOUT_MS = 20_000;

/** What a racer printed after `go`: the outcome of its attempt, or the typed error that stopped it. */
interface RaceResult {
  readonly pid: number;
  readonly outcome?: CompactionOutcome | { readonly status: 'nothing' };
  readonly error?: { readonly code: string; readonly name: string; readonly message: string };
}

interface Racer {
  readonly process: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  nextLine(): Promise<string>;
}

describe.skipIf(server === undefined)('the compaction lock on PostgreSQL, raced by processes', () => {
  const pg = server as NonNullable<typeof server>;
  const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
  const racers: Racer[] = [];
  const stores: PostgresLogStore[] = [];
  let schema: string;

  beforeEach(() => {
    schema = pg.freshSchema();
  });
  afterEach(async () => {
    for (const racer of racers.splice(0)) {
      if (racer.process.exitCode === null && racer.process.signalCode === null) racer.process.kill('SIGKILL');
      await racer.exited;
    }
    for (const store of stores.splice(0)) await store.close();
    await pg.dropSchemas();
  });
  afterAll(async () => {
    await pg.close();
  });

  async function open(): Promise<PostgresLogStore> {
    const store = await openPostgresStore(pg.url, { schema });
    stores.push(store);
    return store;
  }

  /** A session with `turns` turns of the build-log agent, and no compaction yet. */
  async function buildSession(store: PostgresLogStore, sessionId: string, turns: number): Promise<void> {
    const model = new ScriptedModel({ replies: raceAgent, limits: RACE_WINDOW });
    const harness = createHarness({ store, model, tools: [readLogTool], systemPrompt: 'You read build logs.' });
    const session = await harness.createSession(sessionId);
    try {
      for (let turn = 1; turn <= turns; turn++) {
        expect((await session.send(`Read part ${turn} of the build log.`)).reason).toBe('completed');
      }
    } finally {
      await session.close();
    }
  }

  function startRacer(sessionId: string, mode: 'owned' | 'direct'): Racer {
    const child = spawn(process.execPath, [
      ...nodeScriptArgs('test/compaction/fixtures/postgres-compact.ts'),
      pg.url,
      schema,
      sessionId,
      mode,
    ]);
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const nextLine = async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`racer ${child.pid} said nothing for ${CHILD_TIMEOUT_MS} ms; stderr: ${stderr}`)),
          CHILD_TIMEOUT_MS,
        );
      });
      try {
        const next = await Promise.race([lines.next(), timeout]);
        if (next.done === true) throw new Error(`racer ${child.pid} ended its output early; stderr: ${stderr}`);
        return next.value;
      } finally {
        clearTimeout(timer);
      }
    };
    const racer = { process: child, exited, nextLine };
    racers.push(racer);
    return racer;
  }

  /** Starts the racers, lets each get ready, says `go` to all at once, and collects what each did. */
  async function race(sessionId: string, mode: 'owned' | 'direct'): Promise<RaceResult[]> {
    const started = Array.from({ length: RACERS }, () => startRacer(sessionId, mode));
    for (const line of await Promise.all(started.map((racer) => racer.nextLine()))) expect(line).toBe('ready');
    for (const racer of started) racer.process.stdin.write('go\n');
    const results = (await Promise.all(started.map((racer) => racer.nextLine()))).map((line) => JSON.parse(line) as RaceResult);
    // Only now may a winner give its ownership up: every racer has tried while it held it.
    for (const racer of started) racer.process.stdin.end('exit\n');
    for (const racer of started) expect(await racer.exited).toEqual({ code: 0, signal: null });
    return results;
  }

  async function readAll(store: PostgresLogStore, sessionId: string): Promise<LogEvent[]> {
    const out: LogEvent[] = [];
    for await (const page of store.read(sessionId)) out.push(...page);
    return out;
  }

  /** The log verifies, and holds exactly one compaction: its start, its summary, its replacement and its end. */
  async function expectOneCompaction(store: PostgresLogStore, sessionId: string): Promise<void> {
    const report = await verifyLog(store.read(sessionId), { registry, hasher: nodeSha256Hex });
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    const events = await readAll(store, sessionId);
    const starts = events.filter((event) => event.type === COMPACTION_START);
    const summaries = events.filter((event) => event.type === COMPACTION_SUMMARY);
    const ends = events.filter((event) => event.type === COMPACTION_END);
    expect(starts).toHaveLength(1);
    expect(summaries).toHaveLength(1);
    expect(ends).toHaveLength(1);
    expect(ends[0]?.data).toEqual({ compactionId: starts[0]?.data.compactionId });
    expect(events.filter((event) => isReplaceOp(event.surfaceOp))).toHaveLength(1);
  }

  it('lets exactly one of four processes compact through the harness; the others find the session owned', async () => {
    const store = await open();
    await buildSession(store, 'raced', 4);
    const results = await race('raced', 'owned');
    const winners = results.filter((result) => result.outcome?.status === 'compacted');
    expect(winners).toHaveLength(1);
    const losers = results.filter((result) => result !== winners[0]);
    expect(losers.map((result) => result.error?.code)).toEqual(['SESSION_BUSY', 'SESSION_BUSY', 'SESSION_BUSY']);
    await expectOneCompaction(store, 'raced');
    // The winner's lifecycle is the only new one, and its ownership went with its process.
    const events = await readAll(store, 'raced');
    expect(events.filter((event) => event.type === 'session/end-seed')).toHaveLength(1);
    await (await store.acquireOwnership('raced')).release();
  });

  it('lets exactly one of four processes that skip ownership land its replacement; the store refuses the others busy', async () => {
    const store = await open();
    await buildSession(store, 'raced', 4);
    const before = (await store.head('raced'))?.nextSeq;
    const results = await race('raced', 'direct');
    const winners = results.filter((result) => result.outcome?.status === 'compacted');
    expect(winners).toHaveLength(1);
    for (const result of results.filter((other) => other !== winners[0])) {
      expect(result.error).toBeUndefined();
      expect(result.outcome).toMatchObject({ status: 'failed', reason: 'busy', orphaned: false });
      expect((result.outcome as { message: string }).message).toMatch(/another writer appended to the session first/);
    }
    await expectOneCompaction(store, 'raced');
    // Every racer read the same head, so all four asked for the same seq: the winner's start took it.
    const events = await readAll(store, 'raced');
    expect(events.find((event) => event.type === COMPACTION_START)?.seq).toBe(before);
    expect(events).toHaveLength((before as number) + 4);
  });
});
