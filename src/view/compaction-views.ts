// A compaction's summary and a prune, as the audit page shows them: the numbers the events
// recorded, read defensively (older events lack some fields), and the summarizer's own request
// checked against its digest where the summarizer was a model.

import type { SummaryReplayResult } from '../compaction/replay-summary.js';
import { ShadowlogError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import type { CompactionView, PruneView, SummaryCheck } from './view-data.js';

const numberOr = <T>(value: unknown, otherwise: T): number | T => (typeof value === 'number' && Number.isFinite(value) ? value : otherwise);

const seqsOf = (value: unknown): number[] => (Array.isArray(value) ? value.filter((seq): seq is number => typeof seq === 'number') : []);

/**
 * The summary part of a compaction, from its compaction/summary event; `replaySummary` rebuilds
 * the summarizer's request (without it, a model's summary is left to be checked later).
 */
export function compactionOf(
  event: LogEvent,
  replaySummary: (() => SummaryReplayResult) | undefined,
): NonNullable<CompactionView['summary']> {
  const data = event.data as Record<string, unknown>;
  const usage = data.usage as { inputTokens?: unknown; outputTokens?: unknown } | null | undefined;
  const summarizer = typeof data.summarizer === 'string' ? data.summarizer : data.requestDigest === null ? 'extractive' : 'model';
  return {
    shadowedSeqs: seqsOf(data.shadowedSeqs),
    shadowedTokenCount: numberOr(data.shadowedTokenCount, 0),
    tokensBefore: numberOr(data.tokensBefore, null),
    tokensAfter: numberOr(data.tokensAfter, null),
    summaryTokens: numberOr(data.summaryTokens, null),
    summarizer,
    provider: String(data.provider),
    model: String(data.model),
    usage:
      usage === null || usage === undefined
        ? null
        : { inputTokens: numberOr(usage.inputTokens, 0), outputTokens: numberOr(usage.outputTokens, 0) },
    durationMs: numberOr(data.durationMs, null),
    targetTokens: numberOr(data.targetTokens, null),
    check: summaryCheck(data, replaySummary),
  };
}

function summaryCheck(data: Record<string, unknown>, replaySummary: (() => SummaryReplayResult) | undefined): SummaryCheck {
  if (data.provenance === 'imported') {
    return { status: 'none', digest: null, message: 'imported from another harness: its summarizer request never went through shadowlog' };
  }
  if (data.requestDigest === null || data.requestDigest === undefined) {
    return { status: 'none', digest: null, message: 'the extractive summarizer sends no model request: nothing to replay' };
  }
  if (replaySummary === undefined) return { status: 'pending', digest: null };
  try {
    return { status: 'verified', digest: replaySummary().requestDigest };
  } catch (error) {
    if (!ShadowlogError.isInstance(error)) throw error;
    return { status: 'failed', digest: null, code: error.code, message: error.message };
  }
}

export function pruneOf(event: LogEvent): PruneView {
  const data = event.data as Record<string, unknown>;
  return {
    seq: event.seq,
    shadowedSeq: seqsOf(data.shadowedSeqs)[0] ?? -1,
    shadowedTokenCount: numberOr(data.shadowedTokenCount, 0),
    replacementTokenCount: numberOr(data.replacementTokenCount, null),
    charsBefore: numberOr(data.charsBefore, 0),
    charsAfter: numberOr(data.charsAfter, 0),
    unseen: data.unseen === true,
  };
}
