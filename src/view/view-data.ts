// What the audit page is given: the session's shape and what the server worked out from it
// (each call's digest check, each compaction's story). The first document holds the session's
// structure (each event's type, what each replacement lists as its sources) and every call;
// the events' content is loaded in pages when a list shows them (view-content.ts). Following a
// live session sends more of the same shape, which the page merges (calls and compactions by
// key, structure appended). The origins of a replacement are not sent: the page expands its
// sourceEventSeqs itself, as origins() does, since the lists of nested compactions grow with
// the square of the session.

import type { SurfaceChange } from '../log/surface-change.js';
import type { CallRow } from './client/page-blocks.js';
import type { SessionWindow } from './session-window.js';

/** How a call's request was checked against the log. */
export type CallCheck =
  | { readonly status: 'verified'; readonly digest: string }
  /**
   * A proxied call whose messages are not on the session's surface: the stored body's bytes hash
   * to the recorded digest, but no surface of the log is what it sent (`reason` says why); what
   * the model received is in the body alone.
   */
  | { readonly status: 'off-surface'; readonly digest: string; readonly reason: string }
  /** Imported from another harness: the surface is rebuilt, but there is no digest to prove it by. */
  | { readonly status: 'reconstructed'; readonly digest: null }
  /** Not checked yet: a served page is drawn first, and its follow stream brings the checks. */
  | { readonly status: 'pending'; readonly digest: null }
  /** The rebuilt request is not the one recorded, or cannot be rebuilt: shown as an error. */
  | { readonly status: 'failed'; readonly digest: null; readonly code: string; readonly message: string };

export interface CallUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

export interface CallMeterFigure {
  readonly estimatedTokens: number;
  /** True when the estimate rested on an earlier call of the same model that reported its input. */
  readonly anchored: boolean;
  /** (estimated − reported) ÷ reported; null without a reported count. */
  readonly error: number | null;
}

export type CallCost = { readonly usd: number } | { readonly unknown: string };

/** Prices a call from its reported usage (the CLI passes tune's price table). */
export type CallPricer = (provider: string, model: string, usage: CallUsage) => CallCost;

export interface CallView {
  /** The seq of the model/request event: the call's key. */
  readonly seq: number;
  readonly turn: number;
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly provenance: 'sent' | 'imported' | 'proxied';
  readonly rendererVersion: string | null;
  readonly recordedDigest: string | null;
  readonly estimatedTokens: number | null;
  /** The window the call ran in, by the library's rule (compaction/session-window), else what its request records. */
  readonly contextWindow: number | null;
  /**
   * The seqs of the surface it was sent, in order: the plain list, or (shorter) the change from
   * the previous call's list, as a format-2 model/request records it (log/surface-change.ts).
   */
  readonly surface: { readonly surfaceSeqs: readonly number[] } | { readonly surfaceChange: SurfaceChange };
  readonly surfaceLength: number;
  /**
   * Set when the call's messages are not on the session's surface (log/off-surface.ts): why. Its
   * recorded surface is then the session's, not what it sent; its body (the model/request's
   * requestBody) is what the model received.
   */
  readonly offSurface?: string;
  readonly check: CallCheck;
  /** The provider's usage, from the answer (absent until it lands, or when the call failed). */
  usage?: CallUsage;
  /**
   * The calibrated meter's estimate of the call's input, as `stats --calls` gives it (knowing
   * only the calls before it), and its error against the reported input; set when the call ended.
   */
  metered?: CallMeterFigure;
  /** Why the meter gives no estimate for this call (not on the surface, the meter stopped). */
  unmetered?: string;
  /** What the call cost by the price table the page was given, or why it has no price. */
  cost?: CallCost;
  /** The seq of the answer (assistant/message). */
  answerSeq?: number;
  /** A model/error the call ended in. */
  error?: { readonly seq: number; readonly code: string; readonly message: string; readonly contextOverflow: boolean };
  /** An answer kept as it arrived (model/unrecorded-answer), not appended to the surface: the request was off it, or a rule refused it. */
  unrecordedAnswer?: { readonly seq: number; readonly code: string; readonly message: string };
}

export interface PolicyView {
  readonly seq: number;
  readonly provider: string;
  readonly model: string;
  readonly contextWindow: number;
  readonly reserve: number;
  readonly fixedTokens: number;
  readonly threshold: number;
  readonly retain: number;
  readonly decidedBy: string | null;
  readonly estimator: string | null;
  readonly strategy: string | null;
  /** The configuration as written (thresholdRatio, retainTokens, summarizer, …). */
  readonly config: unknown;
}

export type SummaryCheck =
  | { readonly status: 'verified'; readonly digest: string }
  /** The extractive summarizer (or an imported compaction): no model request to rebuild. */
  | { readonly status: 'none'; readonly digest: null; readonly message: string }
  /** Not checked yet (a served page is drawn first; its follow stream brings the check). */
  | { readonly status: 'pending'; readonly digest: null }
  | { readonly status: 'failed'; readonly digest: null; readonly code: string; readonly message: string };

export interface CompactionView {
  readonly compactionId: string;
  readonly startSeq: number;
  readonly trigger: string;
  readonly turn: number | null;
  readonly policySeq: number | null;
  /** The strategy that made the replacement (summary, native, …); null on events from before strategies. */
  readonly strategy: string | null;
  /** open: no compaction/end yet (a live lock, or an orphan); stale: an end-seed after it made an orphan harmless. */
  outcome: 'open' | 'compacted' | 'failed' | 'stale';
  summarySeq?: number;
  replacementSeq?: number;
  endSeq?: number;
  /** The session/end-seed that made an unmatched start stale, and its reason (who unlocked, and why). */
  staleBy?: { readonly seq: number; readonly reason: string };
  error?: { readonly reason: string; readonly message: string; readonly code?: string };
  summary?: {
    readonly shadowedSeqs: readonly number[];
    readonly shadowedTokenCount: number;
    readonly tokensBefore: number | null;
    readonly tokensAfter: number | null;
    readonly summaryTokens: number | null;
    readonly summarizer: string;
    readonly provider: string;
    readonly model: string;
    readonly usage: { readonly inputTokens: number; readonly outputTokens: number } | null;
    readonly durationMs: number | null;
    readonly targetTokens: number | null;
    readonly check: SummaryCheck;
  };
}

export interface PruneView {
  readonly seq: number;
  readonly shadowedSeq: number;
  readonly shadowedTokenCount: number;
  readonly replacementTokenCount: number | null;
  readonly charsBefore: number;
  readonly charsAfter: number;
  readonly unseen: boolean;
  replacementSeq?: number;
}

export interface ChainView {
  /** False until the chain was recomputed (a served page is drawn first; its follow stream brings it). */
  readonly checked?: boolean;
  readonly intact: boolean;
  /** The first event whose stored hash is not the one recomputed. */
  readonly firstBrokenSeq: number | null;
}

export interface ViewProblem {
  readonly seq: number;
  readonly code: string;
  readonly message: string;
}

/**
 * The shape of events `fromSeq` … `toSeq` − 1, without their content: what the page's timeline,
 * record filter, origins and surface changes are worked out from.
 */
export interface EventStructure {
  /** The event types by number, every one met so far (a later structure's table extends an earlier one's). */
  readonly typeNames: readonly string[];
  /** Each event's type, as its number in typeNames. */
  readonly types: readonly number[];
  /** `[seq, replaces, ...sourceEventSeqs]` for each event that lists sources; replaces is 1 for a surface replacement. */
  readonly sources: ReadonlyArray<readonly number[]>;
  /** `seq, copyOf` pairs, flat, for each event whose data names the event it copies. */
  readonly copies: readonly number[];
  /** `seq, turn` pairs, flat, for each turn/start. */
  readonly turns: readonly number[];
}

/** One document of the page's data: the whole session first, then what a follow adds. */
export interface ViewDelta {
  readonly sessionId: string;
  /** The structure of events `fromSeq` … `toSeq` − 1. */
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly structure: EventStructure;
  /** The hash of the last event (toSeq − 1), null before any. */
  readonly headHash: string | null;
  /** New calls, and earlier ones that changed (an answer landed): replace by seq. */
  readonly calls: readonly CallView[];
  /** New and changed compactions: replace by compactionId. */
  readonly compactions: readonly CompactionView[];
  readonly prunes: readonly PruneView[];
  readonly policies: readonly PolicyView[];
  readonly chain: ChainView;
  /**
   * The types among these events that are the source's noise (foreign events: lines of another
   * harness kept whole), which the record pane hides by default as `show --record` does.
   */
  readonly noiseTypes?: readonly string[];
  /** Events the fold refused: nothing after the first can be rebuilt. */
  readonly problems: readonly ViewProblem[];
}

/** The meter the page's estimates come from. */
export interface ViewMeter {
  readonly estimator: string;
  readonly calibrated: true;
}

/** A branch's parent and the point it forks after, and the branches of this session (SPEC §14). */
export interface ViewBranches {
  readonly parent: { readonly sessionId: string; readonly forkSeq: number } | null;
  readonly children: ReadonlyArray<{ readonly sessionId: string; readonly forkSeq: number }>;
}

export interface ViewDocument {
  readonly kind: 'shadowlog-view';
  readonly version: 2;
  readonly generatedAt: string;
  /** Served with a follow stream at `/events` (false in a written file). */
  readonly live: boolean;
  readonly session: ViewDelta;
  /** The meter behind each call's `metered` estimate (null when the page was built without one). */
  readonly meter?: ViewMeter | null;
  /** The window the header shows and the rule that gave it (session-window.ts). */
  readonly window?: SessionWindow;
  /** The price table's date and source, when calls were priced. */
  readonly prices?: { readonly date: string; readonly source: string } | null;
  /** A tune report, validated, when one was given. */
  readonly tune: unknown;
  /** The session's parent when it is a branch, and its own branches. */
  readonly branches?: ViewBranches;
}

/** A delta as the page receives it: each call as a compact row (client/page-blocks.ts); its details are loaded by block. */
export interface PageDelta extends Omit<ViewDelta, 'calls'> {
  readonly calls: readonly CallRow[];
}

/** The first document as the page receives it. */
export interface PageDocument extends Omit<ViewDocument, 'session'> {
  readonly session: PageDelta;
}
