// Continuing a session through the harness starts from the newest fold checkpoint that holds
// the harness's observed state (compaction's per-session state, the tool-call ids used, the
// turn numbering) and reads only the events after it. Proven against the whole walk: the same
// scripted sessions (compactions, prunes, tool calls with repeated provider ids, several
// lifecycles, one cut off mid-turn) are continued from a checkpoint in one store and from the
// whole log in a copy without checkpoints, and must write the very same events; and the state
// restored equals the state observed from seq 0. Bad checkpoints are ignored and reported.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import { COMPACTION_PRUNE, COMPACTION_SUMMARY } from '../../src/compaction/event-types.js';
import { createToolResultPruner } from '../../src/compaction/tool-result-pruner.js';
import { FoldStateError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { encodeFoldCheckpoint } from '../../src/log/fold-checkpoint.js';
import type { SurfaceFold } from '../../src/log/surface-fold.js';
import { verifyLog } from '../../src/log/verify.js';
import { ScriptedModel, type ScriptedReply } from '../../src/providers/scripted-model.js';
import type { Capability } from '../../src/spine/capability.js';
import { createHarness } from '../../src/spine/harness.js';
import { SessionObserver } from '../../src/spine/session-observer.js';
import { defineTool } from '../../src/spine/tool.js';
import { ToolCallIds } from '../../src/spine/tool-call-ids.js';
import { copySessions } from '../../src/store/copy-sessions.js';
import { encodeWalkedFold, verifyCheckpoints } from '../../src/store/fold-checkpoints.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { keyedCheckpoint, rewriteSqliteCheckpoint, sqliteFileOf } from '../support/checkpoint-tamper.js';
import { type RandomSource, seededRandom } from '../support/random-log.js';

const CONFIG = { headroomTokens: 0, retainTokens: 200, summarizer: { kind: 'extractive' } } as const;
const now = () => '2026-03-01T10:00:00.000Z';
const ID = 'long';

const directories: string[] = [];
const stores: SqliteLogStore[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function sqliteStore(): Promise<SqliteLogStore> {
  const directory = await mkdtemp(join(tmpdir(), 'shadowlog-reopen-'));
  directories.push(directory);
  const store = await openSqliteStore(join(directory, 'log.db'));
  stores.push(store);
  return store;
}

/** A model whose answers follow the call index: tool calls (often under the same provider id), long and short answers. */
function scriptedModel(seed: number): ScriptedModel {
  return new ScriptedModel({
    limits: { contextWindow: 4_000, defaultMaxOutputTokens: 500 },
    replies: ({ index }): ScriptedReply => {
      const random = seededRandom(seed * 1_000 + index);
      const kind = random.nextInt(0, 9);
      if (kind < 4) {
        const calls = random.nextInt(1, 2);
        return {
          toolCalls: Array.from({ length: calls }, (_, position) => ({
            name: 'read',
            arguments: { size: random.nextInt(0, 1) === 0 ? 40 : 3_000 },
            // Providers that number every answer's calls from 0: the harness renames repeats.
            ...(random.nextInt(0, 2) === 0 ? {} : { callId: `call_${position}` }),
          })),
        };
      }
      const text = `Answer ${index}: ${'a careful explanation of the parser '.repeat(random.nextInt(1, 25))}`;
      return kind === 9 ? { text, usage: { inputTokens: 900 + index, outputTokens: 40 } } : { text };
    },
  });
}

interface Rig {
  readonly capabilities: Capability[];
  readonly harness: ReturnType<typeof createHarness>;
}

/** A harness over `store`; `checkpointInTool` is called from inside each tool call, mid-turn. */
function rig(store: SqliteLogStore, seed: number, checkpointInTool: () => Promise<void>): Rig {
  const read = defineTool({
    name: 'read',
    description: 'Reads a file.',
    input: z.object({ size: z.number() }),
    execute: async ({ size }) => {
      await checkpointInTool();
      return `line of the file\n`.repeat(size);
    },
  });
  const capabilities: Capability[] = [
    createCompaction({ config: CONFIG, pruner: createToolResultPruner({ thresholdChars: 2_000, headChars: 600, tailChars: 200 }) }),
  ];
  return { capabilities, harness: createHarness({ store, model: scriptedModel(seed), tools: [read], capabilities, now }) };
}

async function eventsOf(store: SqliteLogStore, sessionId = ID): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

/**
 * The events as comparable across two runs: compaction ids are random UUIDs, named here by the
 * order they first appear in, and a summary's durationMs is the clock's; the hashes, which
 * cover both, are left out.
 */
function comparable(events: readonly LogEvent[]): string[] {
  const ids = new Map<string, string>();
  return events.map(({ hash: _hash, ...event }) =>
    JSON.stringify(event)
      .replace(/"durationMs":\d+/g, '"durationMs":0')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
        if (!ids.has(id)) ids.set(id, `compaction-${ids.size + 1}`);
        return ids.get(id) as string;
      }),
  );
}

/** The harness's observed state of the session in `store`, restored from a checkpoint (if one serves) and from the whole log. */
async function observedBothWays(store: SqliteLogStore): Promise<{ restored: unknown; walked: unknown; from: number | undefined }> {
  const fromCheckpoint = new SessionObserver(ID, [createCompaction({ config: CONFIG })], () => {});
  const restoredLog = await SessionLog.open(store, ID, { registry: createHarnessRegistry(), ...fromCheckpoint.forLog() });
  const fromZero = new SessionObserver(ID, [createCompaction({ config: CONFIG })], () => {});
  const log = fromZero.forLog();
  if (!('observer' in log) || !('observer' in fromCheckpoint.forLog())) throw new Error('compaction should save its state');
  await SessionLog.open(store, ID, {
    registry: createHarnessRegistry(),
    checkpoints: false,
    observe: (event) => log.observer.observe(event),
  });
  const restored = (fromCheckpoint.forLog() as { observer: { save(): unknown } }).observer.save();
  return { restored, walked: log.observer.save(), from: restoredLog.checkpointReport.restoredFrom };
}

function createHarnessRegistry() {
  return rig(undefined as unknown as SqliteLogStore, 0, async () => {}).harness.registry;
}

/** Runs `turns` turns of `session`, writing checkpoints at random points (between turns, and inside tool calls). */
async function runTurns(
  session: Awaited<ReturnType<Rig['harness']['createSession']>>,
  random: RandomSource,
  turns: number,
  first: number,
): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    await session.send(`Question ${first + turn}: ${'what does the parser do with this input? '.repeat(random.nextInt(1, 6))}`);
    if (random.nextInt(0, 2) === 0) await session.log.writeCheckpoint();
  }
}

describe('continuing a session through the harness from a fold checkpoint', () => {
  const seen = new Set<string>();
  for (const seed of [1, 2, 3, 4]) {
    it(`writes the same events as continuing it from the whole log (seed ${seed})`, async () => {
      const store = await sqliteStore();
      const random = seededRandom(seed);
      let checkpointMidTurn: (() => Promise<void>) | undefined;
      const inTool = async () => {
        if (checkpointMidTurn !== undefined && random.nextInt(0, 3) === 0) await checkpointMidTurn();
      };
      const first = rig(store, seed, inTool);
      const created = await first.harness.createSession(ID);
      checkpointMidTurn = async () => {
        await created.log.writeCheckpoint();
      };
      await runTurns(created, random, 8, 1);
      await created.close();

      let turnsSoFar = 8;
      for (let lifecycle = 1; lifecycle <= 3; lifecycle++) {
        if (lifecycle === 2) {
          // A lifecycle cut off mid-turn: a call with no result and no turn/end, then a checkpoint of that state.
          const cutOff = new SessionObserver(ID, [createCompaction({ config: CONFIG })], () => {});
          const log = await SessionLog.open(store, ID, { registry: createHarnessRegistry(), now, ...cutOff.forLog() });
          turnsSoFar++;
          await log.append([
            { type: 'turn/start', data: { turn: turnsSoFar } },
            { type: 'user/message', data: { content: [{ type: 'text', text: 'Read it.' }] }, surfaceOp: 'append' },
            {
              type: 'assistant/message',
              data: { content: [], model: 'scripted', toolCalls: [{ callId: 'call_0', name: 'read', arguments: { size: 1 } }] },
              surfaceOp: 'append',
            },
          ]);
          await log.writeCheckpoint();
        }
        const state = await observedBothWays(store);
        expect(state.from).toBeDefined();
        expect(state.restored).toEqual(state.walked);

        // The same continuation, from the checkpoint here and from the whole log in a copy that has none.
        const copy = await sqliteStore();
        await copySessions(store, copy);
        expect(await copy.listCheckpoints(ID)).toEqual([]);
        const here = rig(store, seed, inTool);
        const there = rig(copy, seed, async () => {});
        const continued = await here.harness.openSession(ID, 'continued');
        const walked = await there.harness.openSession(ID, 'continued');
        expect(continued.log.checkpointReport).toEqual({ restoredFrom: state.from, ignored: [] });
        expect(walked.log.checkpointReport.restoredFrom).toBeUndefined();
        expect(continued.turns).toBe(walked.turns);
        checkpointMidTurn = async () => {
          await continued.log.writeCheckpoint();
        };
        const turns = 3 + random.nextInt(0, 3);
        const replay = seededRandom(seed * 7 + lifecycle);
        await runTurns(continued, replay, turns, turnsSoFar + 1);
        await runTurns(walked, seededRandom(seed * 7 + lifecycle), turns, turnsSoFar + 1);
        turnsSoFar += turns;
        await continued.close();
        await walked.close();
        expect(comparable(await eventsOf(store))).toEqual(comparable(await eventsOf(copy)));
      }
      for (const event of await eventsOf(store)) {
        seen.add(event.type);
        if (event.data.reason === 'interrupted') seen.add('interrupted turn');
        if (
          event.type === 'assistant/message' &&
          (event.data.toolCalls as { callId: string }[]).some((call) => call.callId.startsWith('shadowlog-call-'))
        )
          seen.add('renamed tool call');
      }
    });
  }

  it('covers what the state is about: summaries, prunes, an interrupted turn, renamed tool calls', () => {
    for (const what of [COMPACTION_SUMMARY, COMPACTION_PRUNE, 'interrupted turn', 'renamed tool call']) expect(seen).toContain(what);
  });
});

describe('checkpoints the harness cannot continue from', () => {
  async function sessionWithCheckpoint(): Promise<{ store: SqliteLogStore; seq: number }> {
    const store = await sqliteStore();
    const { harness } = rig(store, 5, async () => {});
    const session = await harness.createSession(ID);
    await runTurns(session, seededRandom(5), 4, 1);
    const entry = await session.log.writeCheckpoint();
    await session.close();
    return { store, seq: entry.seq };
  }

  it('ignores one without the harness state (written by a plain SessionLog), and one whose state is refused, and reports both', async () => {
    const { store, seq } = await sessionWithCheckpoint();
    // A plain writer's checkpoint, newer: it holds the fold only.
    const plain = await SessionLog.open(store, ID, { registry: createHarnessRegistry(), now });
    await plain.append([{ type: 'user/message', data: { content: [{ type: 'text', text: 'aside' }] }, surfaceOp: 'append' }]);
    const plainEntry = await plain.writeCheckpoint();
    // One newer still, MACed under the key (a key holder's bug), whose harness state is not one.
    await plain.append([{ type: 'user/message', data: { content: [{ type: 'text', text: 'aside' }] }, surfaceOp: 'append' }]);
    const good = { seq: plain.nextSeq };
    const body = JSON.parse(encodeFoldCheckpoint(ID, plain.fold.snapshot())) as Record<string, unknown>;
    const key = (new SessionObserver(ID, rig(store, 5, async () => {}).capabilities, () => {}).forLog() as { observer: { key: string } })
      .observer.key;
    const payload = JSON.stringify({ ...body, observed: { key, state: { lastTurn: 'four' } } });
    await store.writeCheckpoint(ID, keyedCheckpoint(good.seq, payload));

    const { harness } = rig(store, 5, async () => {});
    const session = await harness.openSession(ID, 'continued');
    const report = session.log.checkpointReport;
    expect(report.restoredFrom).toBe(seq);
    expect(report.ignored.map(({ seq: at, status }) => [at, status])).toEqual([
      [good.seq, 'corrupt'],
      [plainEntry.seq, 'incompatible'],
    ]);
    expect(report.ignored[1]?.reason).toContain('holds no observed state');
    expect(session.turns).toBe(4);
    await session.close();
  });

  it('reads the whole log when no checkpoint serves, and a corrupt one is reported', async () => {
    const { store, seq } = await sessionWithCheckpoint();
    const stored = await store.readCheckpoint(ID, seq);
    rewriteSqliteCheckpoint(sqliteFileOf(store.location), ID, seq, { payload: `${stored?.payload as string} ` });
    const walkedState = await observedBothWays(store);
    expect(walkedState.from).toBeUndefined();
    const { harness } = rig(store, 5, async () => {});
    const session = await harness.openSession(ID, 'continued');
    expect(session.log.checkpointReport.restoredFrom).toBeUndefined();
    expect(session.log.checkpointReport.ignored.map((finding) => finding.status)).toEqual(['corrupt']);
    expect(session.turns).toBe(4);
    await session.close();
  });

  it('is verified as valid by verify: the fold part is compared with the walk, the observed state left to its owner', async () => {
    const { store, seq } = await sessionWithCheckpoint();
    const stored = await store.readCheckpoint(ID, seq);
    expect(JSON.parse(stored?.payload as string)).toHaveProperty('observed');
    const walked = new Map<number, string>();
    const visit = (fold: SurfaceFold) => walked.set(fold.nextSeq, encodeWalkedFold(ID, fold));
    const registry = createHarnessRegistry();
    await verifyLog(store.read(ID), { registry, foldAt: { seqs: new Set([seq]), visit } });
    const entries = await store.listCheckpoints(ID);
    const head = await store.head(ID);
    const findings = await verifyCheckpoints(store, ID, entries, walked, { registry, nextSeq: head?.nextSeq ?? 0 });
    expect(findings.map((finding) => finding.status)).toEqual(['valid']);
  });
});

describe('the tool-call ids a checkpoint keeps', () => {
  const answer = (seq: number, ids: string[]): LogEvent =>
    ({
      seq,
      type: 'assistant/message',
      data: { content: [], model: 'scripted', toolCalls: ids.map((callId) => ({ callId, name: 'read', arguments: {} })) },
    }) as unknown as LogEvent;

  it('restores to the same ids a walk notes, and saves them once each, in ascending order', () => {
    const walked = new ToolCallIds();
    const events = [answer(1, ['call_0', 'toolu_b']), answer(2, ['call_0', 'toolu_a']), answer(3, ['x', 'call_0'])];
    for (const event of events) walked.observe(event);
    const halfway = new ToolCallIds();
    for (const event of events.slice(0, 2)) halfway.observe(event);
    const restored = ToolCallIds.restore(halfway.save());
    restored.observe(events[2] as LogEvent);
    expect(restored.save()).toEqual(walked.save());
    expect(walked.save()).toEqual(['call_0', 'toolu_a', 'toolu_b', 'x']);
    const calls = [{ callId: 'toolu_a', name: 'read', arguments: {} }];
    expect(restored.assign(calls, 9)).toEqual(walked.assign(calls, 9));
    expect(restored.assign(calls, 9)[0]?.callId).toBe('shadowlog-call-9-1');
  });

  it('refuses a list that is not strictly ascending strings, with a typed error', () => {
    for (const bad of [['b', 'a'], ['a', 'a'], ['a', 1], 'a']) {
      expect(() => ToolCallIds.restore(bad)).toThrow(FoldStateError);
    }
  });
});
