// A source's own compaction written as shadowlog's (SPEC §7): compaction/start, the
// compaction/summary that meters it, the replacing node over exactly the nodes it names, what
// the source put after it (Codex's copies), and compaction/end, in one batch. Nobody sent the
// summarizer's request through shadowlog, so the summary records no digest (requestDigest and
// rendererVersion null, provenance 'imported'), and says who summarized as the source says.

import {
  COMPACTION_END,
  COMPACTION_START,
  COMPACTION_SUMMARY,
  type CompactionSummaryData,
  type CompactionTrigger,
} from '../compaction/event-types.js';
import { ShadowlogError } from '../log/errors.js';
import { type EventDraft, isSurfaceType, type LogEvent, type SurfaceType, type Usage } from '../log/event.js';
import type { SessionSeq } from '../log/seq.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import { SurfaceMeter } from '../meter/measure.js';
import { scriptAwareEstimator } from '../meter/script-aware.js';
import type { SourceLineRef } from './imported-call.js';
import type { SessionBuilder } from './session-builder.js';

export interface ImportedCompaction {
  /** Derived from the source (its record's id, or a digest of where it stands), so that a re-import writes the same. */
  readonly compactionId: string;
  readonly trigger: CompactionTrigger;
  /** The trigger in the source's words, or null when the source does not record one. */
  readonly sourceTrigger: string | null;
  /** The current surface nodes the replacement shadows: consecutive, in surface order. */
  readonly shadowed: readonly number[];
  /** The node that takes their place (its data keeps its source lines). */
  readonly replacement: { readonly type: Exclude<SurfaceType, 'tool/result'>; readonly data: Record<string, unknown> };
  /** Nodes the source put after the replacement as part of the compaction (Codex's replacement history). */
  readonly following: readonly EventDraft[];
  /** Who summarized, as the source says: its model, what the call cost when the source kept it, its transcript as a sub-session. */
  readonly summarizer: { readonly provider: string; readonly model: string; readonly usage: Usage | null; readonly sessionId?: string };
  /** The surface's size before, as the source counted it (Claude Code's preTokens, pi's tokensBefore). */
  readonly sourceTokensBefore?: number;
  /** The lines of the source's compaction record when the replacement does not keep them. */
  readonly startSourceLines: readonly SourceLineRef[];
}

export type CompactionWritten =
  | { readonly ok: true; readonly replacementSeq: number }
  | { readonly ok: false; readonly error: ShadowlogError };

/** Writes the compaction; a refusal by the fold (a range that would split a tool call from its result) adds nothing and is returned. */
export function writeImportedCompaction(builder: SessionBuilder, compaction: ImportedCompaction): CompactionWritten {
  const meter = new SurfaceMeter(scriptAwareEstimator);
  const nodes = builder.fold.toArray();
  const prices = new Map<number, number>(nodes.map((node: SurfaceNode) => [node.seq, meter.priceOf(node)]));
  const tokensBefore = [...prices.values()].reduce((sum, price) => sum + price, 0);
  const shadowedTokens = compaction.shadowed.map((seq) => prices.get(seq) ?? 0);
  const shadowedTokenCount = shadowedTokens.reduce((sum, price) => sum + price, 0);
  const added = [compaction.replacement, ...compaction.following];
  const summaryTokens = added.reduce(
    (sum, node) => sum + (isSurfaceType(node.type) ? meter.priceOfData(node.type as SurfaceType, node.data) : 0),
    0,
  );
  const first = compaction.shadowed[0] as SessionSeq;
  const last = compaction.shadowed[compaction.shadowed.length - 1] as SessionSeq;
  const summarySeq = builder.fold.nextSeq + 1;
  // No duration: the source does not say how long its summarizer took.
  const summary: Omit<CompactionSummaryData, 'durationMs'> & Record<string, unknown> = {
    compactionId: compaction.compactionId,
    shadowedSeqs: [...compaction.shadowed],
    shadowedTokenCount,
    shadowedTokens,
    provider: compaction.summarizer.provider,
    model: compaction.summarizer.model,
    usage: compaction.summarizer.usage,
    requestDigest: null,
    rendererVersion: null,
    summarizer: 'model',
    trigger: compaction.trigger,
    tokensBefore,
    tokensAfter: tokensBefore - shadowedTokenCount + summaryTokens,
    summaryTokens,
    provenance: 'imported',
    source: builder.source,
    ...(compaction.sourceTokensBefore === undefined ? {} : { sourceTokensBefore: compaction.sourceTokensBefore }),
    ...(compaction.summarizer.sessionId === undefined ? {} : { summarizerSessionId: compaction.summarizer.sessionId }),
  };
  const drafts: EventDraft[] = [
    {
      type: COMPACTION_START,
      data: {
        compactionId: compaction.compactionId,
        trigger: compaction.trigger,
        turn: builder.currentTurn,
        provenance: 'imported',
        sourceTrigger: compaction.sourceTrigger,
        ...(compaction.startSourceLines.length === 0 ? {} : { sourceLines: compaction.startSourceLines }),
      },
      ignorable: true,
    },
    { type: COMPACTION_SUMMARY, data: summary, ignorable: true },
    {
      type: compaction.replacement.type,
      data: compaction.replacement.data,
      surfaceOp: { op: 'replace', startSeq: first, endSeq: last },
      sourceEventSeqs: [...compaction.shadowed, summarySeq],
    },
    ...compaction.following,
    { type: COMPACTION_END, data: { compactionId: compaction.compactionId }, ignorable: true },
  ];
  let written: readonly LogEvent[];
  try {
    written = builder.append(drafts);
  } catch (error) {
    if (ShadowlogError.isInstance(error)) return { ok: false, error };
    throw error;
  }
  builder.counts.compactions++;
  return { ok: true, replacementSeq: (written[2] as LogEvent).seq };
}
