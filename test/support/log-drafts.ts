// Draft builders beyond events.ts: replacements of any surface type, the spine's log-only
// events, and compaction's metering events with a registry that knows them (as the compaction
// capability registers its own types; the spine never names them).

import type { EventDraft } from '../../src/log/event.js';
import { EventTypeRegistry } from '../../src/log/event-types.js';
import type { SurfaceChange } from '../../src/log/surface-change.js';
import type { ReplaceOp, SurfaceOp } from '../../src/log/surface-op.js';
import { text } from './events.js';

export const COMPACTION_TYPES = ['compaction/start', 'compaction/summary', 'compaction/prune', 'compaction/end'] as const;

/** A registry that knows compaction's log-only types (their data is not checked here). */
export function createTestRegistry(): EventTypeRegistry {
  return new EventTypeRegistry(COMPACTION_TYPES.map((type) => ({ type })));
}

/**
 * Compaction's types with summary and prune as metering events, as the compaction capability
 * registers them: a registry that folds them otherwise than createTestRegistry.
 */
export function meteringRegistry(): EventTypeRegistry {
  return new EventTypeRegistry(
    COMPACTION_TYPES.map((type) =>
      type === 'compaction/summary' || type === 'compaction/prune'
        ? { type, shadowedSeqs: (data: Record<string, unknown>) => data.shadowedSeqs as number[] }
        : { type },
    ),
  );
}

/** A replace SurfaceOp; the cast lets tests build seqs from plain numbers. */
export function replaceOp(startSeq: number, endSeq: number): SurfaceOp {
  return { op: 'replace', startSeq, endSeq } as ReplaceOp;
}

/** A surfaceOp value of any shape, for tests of malformed ones. */
export function rawSurfaceOp(value: unknown): SurfaceOp {
  return value as SurfaceOp;
}

export const moreDrafts = {
  /** A replacing user/message (a compaction's summary node). */
  userReplace: (value: string, startSeq: number, endSeq: number, sourceEventSeqs: number[]): EventDraft => ({
    type: 'user/message',
    data: { content: text(value) },
    surfaceOp: replaceOp(startSeq, endSeq),
    sourceEventSeqs,
  }),
  systemReplace: (value: string, startSeq: number, endSeq: number, sourceEventSeqs: number[]): EventDraft => ({
    type: 'system/message',
    data: { content: text(value) },
    surfaceOp: replaceOp(startSeq, endSeq),
    sourceEventSeqs,
  }),
  assistantReplace: (value: string, startSeq: number, endSeq: number, sourceEventSeqs: number[]): EventDraft => ({
    type: 'assistant/message',
    data: { content: text(value), toolCalls: [], model: 'scripted' },
    surfaceOp: replaceOp(startSeq, endSeq),
    sourceEventSeqs,
  }),
  /** A pruner-style tool/result replacement. */
  toolResultReplace: (callId: string, value: string, startSeq: number, endSeq: number, sourceEventSeqs: number[]): EventDraft => ({
    type: 'tool/result',
    data: { callId, content: text(value) },
    surfaceOp: replaceOp(startSeq, endSeq),
    sourceEventSeqs,
  }),
  turnEnd: (turn: number): EventDraft => ({ type: 'turn/end', data: { turn, reason: 'completed' } }),
  endSeed: (reason = 'continued'): EventDraft => ({ type: 'session/end-seed', data: { reason } }),
  modelRequest: (turn: number, step: number, surfaceSeqs: number[]): EventDraft => moreDrafts.modelRequestOf(turn, step, { surfaceSeqs }),
  /** A model/request with its surface in either encoding (format 2's surfaceChange, or the plain list). */
  modelRequestOf: (turn: number, step: number, surface: { surfaceSeqs: number[] } | { surfaceChange: SurfaceChange }): EventDraft => ({
    type: 'model/request',
    data: {
      turn,
      step,
      provider: 'scripted',
      model: 'scripted',
      params: {},
      ...surface,
      requestDigest: 'a'.repeat(64),
      estimatedTokens: 10,
      rendererVersion: '1',
    },
  }),
  modelError: (turn: number, step: number): EventDraft => ({
    type: 'model/error',
    data: { turn, step, code: 'rate-limit', message: 'slow down', retryable: true, contextOverflow: false },
  }),
  /** An event of a type no reader knows, that readers may skip. */
  ignorableNote: (note: string): EventDraft => ({ type: 'custom/note', data: { note }, ignorable: true }),
  compactionStart: (compactionId: string): EventDraft => ({
    type: 'compaction/start',
    data: { compactionId, trigger: 'pressure', turn: null },
  }),
  compactionSummary: (compactionId: string, shadowedSeqs: number[]): EventDraft => ({
    type: 'compaction/summary',
    data: { compactionId, shadowedSeqs, shadowedTokenCount: 100, provider: 'scripted', model: 'scripted', requestDigest: 'b'.repeat(64) },
  }),
  compactionPrune: (shadowedSeq: number): EventDraft => ({
    type: 'compaction/prune',
    data: { shadowedSeqs: [shadowedSeq], shadowedTokenCount: 50, charsBefore: 9000, charsAfter: 5000 },
  }),
  compactionEnd: (compactionId: string): EventDraft => ({ type: 'compaction/end', data: { compactionId } }),
};
