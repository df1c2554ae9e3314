// Independent readings of SPEC §3 for the chaos suites: a naive surface fold, the origins
// property, a snapshot of everything a refused append must leave alone, and legal ranges.

import { expect } from 'vitest';
import type { LogEvent } from '../../../src/log/event.js';
import { origins } from '../../../src/log/origins.js';
import type { SessionSeq } from '../../../src/log/seq.js';
import type { SurfaceFold, SurfaceNode } from '../../../src/log/surface-fold.js';
import type { LogStore } from '../../../src/store/log-store.js';
import { type NaiveNode, naiveSurface, SURFACE_TYPES } from '../../support/naive-surface.js';

export function viewOf(fold: SurfaceFold): NaiveNode[] {
  return fold.toArray().map((node) => ({ seq: node.seq, sourceEventSeqs: [...node.sourceEventSeqs] }));
}

export async function readAll(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

/** Everything a refused append must leave as it was: the store's head and events, and the fold. */
export async function snapshotOf(store: LogStore, sessionId: string, fold: SurfaceFold): Promise<string> {
  return JSON.stringify({
    head: await store.head(sessionId),
    events: await readAll(store, sessionId),
    nextSeq: fold.nextSeq,
    lastHash: fold.lastHash,
    size: fold.size,
    nodes: viewOf(fold),
    pending: fold.pendingToolCalls(),
  });
}

/**
 * SPEC §3 properties over the stored log: the incremental fold equals the naive fold, and
 * expanding every node through origins() yields the append-origin transcript.
 */
export async function checkInvariants(events: readonly LogEvent[], fold: SurfaceFold): Promise<void> {
  const expected = naiveSurface(events);
  const actual = viewOf(fold);
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected);
  expect(fold.nextSeq).toBe(events.length);
  expect(fold.lastHash).toBe(events[events.length - 1]?.hash);
  const appended = events.filter((event) => SURFACE_TYPES.has(event.type) && event.surfaceOp === 'append').map((event) => event.seq);
  const readEvent = (seq: SessionSeq) => events[seq] as LogEvent;
  const expanded: number[] = [];
  for (const node of fold.nodes()) expanded.push(...(await origins(node.seq, readEvent)));
  if (JSON.stringify(expanded) !== JSON.stringify(appended)) expect(expanded).toEqual(appended);
}

export function callIdsOf(node: SurfaceNode): string[] {
  return ((node.event.data as { toolCalls?: Array<{ callId: string }> }).toolCalls ?? []).map((call) => call.callId);
}

export function resultCallId(node: SurfaceNode): string {
  return (node.event.data as { callId: string }).callId;
}

/**
 * Is the position range start..end of `nodes` a legal summary range: no call split from its
 * result, no system head? (The generator's own reading, repeated here on purpose.)
 */
export function isLegalRange(nodes: readonly SurfaceNode[], start: number, end: number): boolean {
  if (start > end || start < 0 || end >= nodes.length) return false;
  if (start === 0 && nodes[0]?.type === 'system/message') return false;
  const inRange = new Set<number>(nodes.slice(start, end + 1).map((node) => node.seq));
  const callAt = new Map<string, number>();
  for (const node of nodes) for (const callId of node.type === 'assistant/message' ? callIdsOf(node) : []) callAt.set(callId, node.seq);
  for (const node of nodes) {
    if (node.type !== 'tool/result') continue;
    const call = callAt.get(resultCallId(node));
    if (call !== undefined && inRange.has(call) !== inRange.has(node.seq)) return false;
  }
  return true;
}
