// What the crash-injection suite checks after each kill (SPEC §7, §8): the log verifies, every
// acknowledged event is there with its hash, the lock is in the state §7 says, reopening makes
// an orphan stale and the agent continues, and every recorded model call replays.

import { expect } from 'vitest';
import { COMPACTION_END, COMPACTION_EVENT_TYPES, COMPACTION_START, COMPACTION_SUMMARY } from '../../../src/compaction/event-types.js';
import { CompactionSessionState } from '../../../src/compaction/session-state.js';
import { SessionBusyError } from '../../../src/log/errors.js';
import type { LogEvent } from '../../../src/log/event.js';
import { EventTypeRegistry } from '../../../src/log/event-types.js';
import { verifyLog } from '../../../src/log/verify.js';
import type { AgentSession } from '../../../src/spine/agent-session.js';
import type { Harness } from '../../../src/spine/harness.js';
import { replay } from '../../../src/spine/replay.js';
import type { LogStore } from '../../../src/store/log-store.js';
import { type KillPoint, ORPHANING_POINTS } from './crash-points.js';
import { buildScenario, CHILD_TURNS, scriptedModel, turnPrompt } from './crash-scenario.js';

export const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);

export interface PointResult {
  readonly acknowledged: number;
  readonly lost: number;
  readonly orphanMadeStale: boolean;
}

export async function readEvents(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  if ((await store.head(sessionId)) === undefined) return [];
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

/** `ack <seq> <hash>` lines the child printed. */
export function acknowledged(stdout: string): Map<number, string> {
  const acks = new Map<number, string>();
  for (const line of stdout.split('\n')) {
    const [word, seq, hash] = line.split(' ');
    if (word === 'ack' && seq !== undefined && hash !== undefined) acks.set(Number(seq), hash);
  }
  return acks;
}

function openCompactions(events: readonly LogEvent[]): [string, number][] {
  const state = new CompactionSessionState();
  for (const event of events) state.observe(event);
  return [...state.openCompactions.entries()];
}

/** The lock after the kill, as SPEC §7 says it must be. True when a start was left open. */
function checkLock(events: readonly LogEvent[], point: KillPoint, context: string): boolean {
  const open = openCompactions(events);
  const starts = events.filter((event) => event.type === COMPACTION_START);
  const lastStart = starts[starts.length - 1];
  expect(open.length, `${context}: at most one compaction is live`).toBeLessThanOrEqual(1);
  const after = lastStart === undefined ? [] : events.slice(lastStart.seq + 1);
  if (point.kind === 'step') {
    const orphaning = ORPHANING_POINTS.has(point.name);
    expect(starts.length, `${context}: compaction/start events`).toBe(
      point.name === 'before-start' ? point.compaction - 1 : point.compaction,
    );
    expect(
      open.map(([, seq]) => seq),
      `${context}: the open lock`,
    ).toEqual(orphaning ? [lastStart?.seq] : []);
    if (orphaning) {
      const summaries = after.filter((event) => event.type === COMPACTION_SUMMARY).length;
      expect(summaries, `${context}: summaries after the open start`).toBe(point.name === 'after-summary' ? 1 : 0);
    }
    if (point.name === 'after-end') expect(events[events.length - 1]?.type, context).toBe(COMPACTION_END);
    return orphaning;
  }
  if (open.length === 0) return false;
  // Killed between an append inside the transaction and the next: the open start is the
  // latest, and only its own summary batch may follow it.
  expect(open[0]?.[1], `${context}: the open lock is the latest start`).toBe(lastStart?.seq);
  for (const event of after) {
    const ownBatch = event.type === COMPACTION_SUMMARY || (event.type === 'user/message' && event.sourceEventSeqs !== undefined);
    expect(ownBatch, `${context}: #${event.seq} ${event.type} after an open compaction/start`).toBe(true);
  }
  return true;
}

/** The dead child's ownership is released: at once on SQLite, once the server sees the connection die on PostgreSQL. */
async function claim(harness: Harness, sessionId: string, exists: boolean, context: string): Promise<AgentSession> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return exists ? await harness.openSession(sessionId, 'crash-injection reopen') : await harness.createSession(sessionId);
    } catch (error) {
      if (!(error instanceof SessionBusyError) || Date.now() > deadline) throw new Error(`${context}: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Every check after one kill; `store` is a fresh connection to the store the child used. */
export async function checkAfterKill(
  store: LogStore,
  sessionId: string,
  point: KillPoint,
  stdout: string,
  context: string,
): Promise<PointResult> {
  const events = await readEvents(store, sessionId);
  if (events.length > 0) {
    const report = await verifyLog(store.read(sessionId), { registry });
    expect(report.problems, `${context}: verify`).toEqual([]);
  }
  const acks = acknowledged(stdout);
  let lost = 0;
  for (const [seq, hash] of acks) if (events[seq]?.hash !== hash) lost++;
  expect(lost, `${context}: acknowledged events missing or changed`).toBe(0);
  const orphaned = checkLock(events, point, context);

  // A new lifecycle: the orphan is stale, the agent continues, and compaction works again.
  const { harness, compaction } = buildScenario(store);
  const session = await claim(harness, sessionId, events.length > 0, context);
  const reopened = await readEvents(store, sessionId);
  expect(openCompactions(reopened), `${context}: open compactions after session/end-seed`).toEqual([]);
  const result = await session.send(turnPrompt(CHILD_TURNS + 1));
  expect(result.reason, `${context}: the turn after reopening`).toBe('completed');
  const outcome = await compaction.compactNow(session);
  if (orphaned) expect(outcome.status, `${context}: a compaction after reopening (${JSON.stringify(outcome)})`).toBe('compacted');
  else expect(outcome.status, `${context}: a compaction after reopening (${JSON.stringify(outcome)})`).not.toBe('failed');
  await session.close();

  const final = await readEvents(store, sessionId);
  const report = await verifyLog(store.read(sessionId), { registry });
  expect(report.problems, `${context}: verify after reopening`).toEqual([]);
  expect(openCompactions(final), `${context}: every lock released in the new lifecycle`).toEqual([]);
  for (const request of final.filter((event) => event.type === 'model/request')) {
    const target = { turn: request.data.turn as number, step: request.data.step as number };
    const replayed = await replay(store, sessionId, target, { resolveRenderer: () => scriptedModel(), registry });
    expect(replayed.requestDigest, `${context}: replay of #${request.seq}`).toBe(request.data.requestDigest);
  }
  return { acknowledged: acks.size, lost, orphanMadeStale: orphaned };
}
