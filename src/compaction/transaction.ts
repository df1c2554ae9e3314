// The compaction transaction (SPEC §7): validate, take the durable lock (compaction/start),
// summarize, re-validate, append the summary and its replacing node, release the lock. A
// failure after the lock appends compaction/end with the error exactly once; if even that
// cannot be written, the lock stays open on purpose, and every later compaction in this
// lifecycle fails `busy` until a new lifecycle (or an operator's unlock) makes it stale.

import { randomUUID } from 'node:crypto';
import { ConcurrencyError, ShadowlogError } from '../log/errors.js';
import type { EventDraft, LogEvent } from '../log/event.js';
import type { SurfaceFold, SurfaceNode } from '../log/surface-fold.js';
import type { ModelMessage } from '../providers/language-model.js';
import { renderSurface } from '../spine/render-surface.js';
import type { SessionLog } from '../store/session-log.js';
import {
  COMPACTION_END,
  COMPACTION_START,
  COMPACTION_SUMMARY,
  type CompactionErrorCause,
  type CompactionSummaryData,
  type CompactionTrigger,
} from './event-types.js';
import type { EarlierSummary } from './extractive-summarizer.js';
import { replacementText } from './render-summary.js';
import type { Selection } from './select-range.js';
import type { CompactionSessionState } from './session-state.js';
import type { Summarizer } from './summarizer.js';
import { isSummarySections } from './summary-sections.js';

export type CompactionFailure = 'busy' | 'cancelled' | 'changed' | 'summary' | 'commit' | 'persistence';

export type CompactionOutcome =
  | {
      readonly status: 'compacted';
      readonly compactionId: string;
      readonly trigger: CompactionTrigger;
      readonly shadowedSeqs: readonly number[];
      readonly summarySeq: number;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
    }
  | {
      readonly status: 'failed';
      readonly reason: CompactionFailure;
      readonly message: string;
      readonly compactionId?: string;
      /** The lock could not be released: it blocks compaction until a new lifecycle. */
      readonly orphaned: boolean;
      /** What caused the failure, when an error did: its code, and a provider error's classification. */
      readonly cause?: CompactionErrorCause;
    };

export interface TransactionInput {
  readonly log: SessionLog;
  readonly state: CompactionSessionState;
  readonly selection: Selection;
  readonly trigger: CompactionTrigger;
  readonly turn: number | null;
  /** The compaction/policy event in force, named in compaction/start. */
  readonly policySeq?: number;
  readonly summarizer: Summarizer;
  readonly maxSummaryTokens: number;
  /** The surface's price now. */
  readonly tokensBefore: number;
  /** The price the meter gives a node with this content (for the summary's node). */
  readonly priceOfSummary: (text: string) => number;
  readonly signal: AbortSignal;
  readonly now?: () => number;
}

/** Thrown inside the transaction to stop it with a typed outcome. */
class Stop extends Error {
  constructor(
    readonly reason: CompactionFailure,
    message: string,
    /** The error behind the stop, when one caused it (a provider's, a store's). */
    readonly source?: unknown,
  ) {
    super(message);
  }
}

export async function runCompactionTransaction(input: TransactionInput): Promise<CompactionOutcome> {
  const { log, selection, state } = input;
  // 1. The range is valid on the current surface.
  const problem = rangeProblem(log.fold, selection);
  if (problem !== undefined) return failed('changed', `the selected range is no longer valid: ${problem}`);
  // 2–3. The lock: refused while another compaction is live; else compaction/start, whose
  // append carries the seq the check was made at, so check and append are one atomic step.
  const live = [...state.openCompactions.entries()];
  if (live.length > 0) {
    const [id, seq] = live[0] as [string, number];
    return failed(
      'busy',
      `compaction ${id} (started at event #${seq}) has no compaction/end in this lifecycle; reopen the session or run \`shadowlog unlock\` if its process is gone`,
    );
  }
  const compactionId = randomUUID();
  try {
    const start = {
      compactionId,
      trigger: input.trigger,
      turn: input.turn,
      ...(input.policySeq === undefined ? {} : { policySeq: input.policySeq }),
    };
    await log.append([{ type: COMPACTION_START, data: start, ignorable: true }]);
  } catch (error) {
    if (error instanceof ConcurrencyError) return failed('busy', `another writer appended to the session first: ${error.message}`);
    return failed('persistence', `the lock could not be written: ${messageOf(error)}`);
  }

  let stage: 'summary' | 'commit' = 'summary';
  try {
    const outcome = await summarizeAndCommit(input, compactionId, () => {
      stage = 'commit';
    });
    // 7. Release the lock last.
    try {
      await log.append([{ type: COMPACTION_END, data: { compactionId }, ignorable: true }]);
    } catch (error) {
      return {
        status: 'failed',
        reason: 'persistence',
        compactionId,
        orphaned: true,
        message: `the summary landed, but compaction/end could not be written (${messageOf(error)}); the lock stays open`,
      };
    }
    return outcome;
  } catch (error) {
    const reason: CompactionFailure = error instanceof Stop ? error.reason : stage;
    const message = messageOf(error);
    const cause = causeOf(error instanceof Stop ? error.source : error);
    // Exactly one attempt to release the lock with the error.
    const recorded = { reason, message, ...(cause === undefined ? {} : { cause }) };
    const orphaned = await log.append([{ type: COMPACTION_END, data: { compactionId, error: recorded }, ignorable: true }]).then(
      () => false,
      () => true,
    );
    return { status: 'failed', reason, compactionId, orphaned, message, ...(cause === undefined ? {} : { cause }) };
  }
}

/** The classification of the error behind a failure: its code, and a provider error's kind and flags. */
function causeOf(error: unknown): CompactionErrorCause | undefined {
  if (!ShadowlogError.isInstance(error)) return undefined;
  const provider = error as Partial<{ kind: unknown; retryable: unknown; contextOverflow: unknown }>;
  return {
    code: error.code,
    ...(typeof provider.kind === 'string' ? { kind: provider.kind } : {}),
    ...(typeof provider.retryable === 'boolean' ? { retryable: provider.retryable } : {}),
    ...(typeof provider.contextOverflow === 'boolean' ? { contextOverflow: provider.contextOverflow } : {}),
  };
}

async function summarizeAndCommit(input: TransactionInput, compactionId: string, committing: () => void): Promise<CompactionOutcome> {
  const { log, selection } = input;
  const nodes = selection.seqs.map((seq) => log.fold.node(seq) as SurfaceNode);
  const shadowedTokenCount = selection.prices.reduce((sum, price) => sum + price, 0);
  const clock = input.now ?? Date.now;
  const started = clock();

  // 4. Summarize; an earlier summary in the range is handed over as its sections, to be merged.
  if (input.signal.aborted) throw new Stop('cancelled', 'the compaction was cancelled before the summary');
  const messages: ModelMessage[] = renderSurface(nodes);
  const earlierSummaries = await earlierSummariesIn(log, nodes).catch((error: unknown) => {
    throw new Stop('summary', `the earlier summary in the range could not be read: ${messageOf(error)}`, error);
  });
  const summary = await input.summarizer
    .summarize({ messages, maxTokens: input.maxSummaryTokens, signal: input.signal, earlierSummaries })
    .catch((error: unknown) => {
      if (input.signal.aborted) throw new Stop('cancelled', 'the compaction was cancelled during the summary');
      throw new Stop('summary', `the summarizer failed: ${messageOf(error)}`, error);
    });
  if (summary.text === '') throw new Stop('summary', 'the summarizer answered with an empty summary');
  if (summary.truncated)
    throw new Stop(
      'summary',
      `the summary was cut at its token limit (maxSummaryTokens ${input.maxSummaryTokens}); raise maxSummaryTokens or compact less at once`,
    );
  const text = replacementText(summary.text, nodes.length);
  const summaryTokens = input.priceOfSummary(text);
  if (summaryTokens >= shadowedTokenCount) {
    throw new Stop(
      'summary',
      `the summary (${summaryTokens} tokens) is not smaller than what it would replace (${shadowedTokenCount} tokens)`,
    );
  }
  if (input.signal.aborted) throw new Stop('cancelled', 'the compaction was cancelled after the summary');

  // 5. Re-validate: unrelated appends are fine, a change to the range is not.
  const problem = rangeProblem(log.fold, selection);
  if (problem !== undefined) throw new Stop('changed', `the surface changed while summarizing: ${problem}`);

  // 6. The metering event, then the replacing node, in one atomic batch.
  committing();
  const data: CompactionSummaryData = {
    compactionId,
    shadowedSeqs: [...selection.seqs],
    shadowedTokenCount,
    shadowedTokens: [...selection.prices],
    provider: summary.provider,
    model: summary.model,
    usage: summary.usage,
    requestDigest: summary.requestDigest,
    rendererVersion: summary.rendererVersion,
    summarizer: summary.kind,
    trigger: input.trigger,
    tokensBefore: input.tokensBefore,
    tokensAfter: input.tokensBefore - shadowedTokenCount + summaryTokens,
    summaryTokens,
    durationMs: Math.max(0, Math.round(clock() - started)),
    ...(summary.sections === undefined ? {} : { sections: summary.sections }),
    ...(summary.targetTokens === undefined ? {} : { targetTokens: summary.targetTokens }),
  };
  const summarySeq = log.nextSeq;
  const drafts: EventDraft[] = [
    { type: COMPACTION_SUMMARY, data: { ...data, maxTokens: input.maxSummaryTokens }, ignorable: true },
    {
      type: 'user/message',
      data: { content: [{ type: 'text', text }] },
      surfaceOp: { op: 'replace', startSeq: selection.startSeq as never, endSeq: selection.endSeq as never },
      sourceEventSeqs: [...selection.seqs, summarySeq],
    },
  ];
  const appended: readonly LogEvent[] = await log.append(drafts);
  return {
    status: 'compacted',
    compactionId,
    trigger: input.trigger,
    shadowedSeqs: selection.seqs,
    summarySeq: (appended[1] as LogEvent).seq,
    tokensBefore: data.tokensBefore,
    tokensAfter: data.tokensAfter,
  };
}

/**
 * The range's earlier summary nodes: replacing user messages. Their compaction/summary event is
 * the highest of their sourceEventSeqs (appended just before them); its sections, when it has
 * them, are what the summarizer merges. A summary without sections is passed as such.
 */
async function earlierSummariesIn(log: SessionLog, nodes: readonly SurfaceNode[]): Promise<EarlierSummary[]> {
  const found: EarlierSummary[] = [];
  for (const [messageIndex, node] of nodes.entries()) {
    if (node.type !== 'user/message' || node.sourceEventSeqs.length === 0) continue;
    const summarySeq = Math.max(...node.sourceEventSeqs);
    const event = await log.store.readEvent(log.sessionId, summarySeq);
    const sections = event.type === COMPACTION_SUMMARY ? event.data.sections : undefined;
    found.push({ messageIndex, sections: isSummarySections(sections) ? sections : undefined });
  }
  return found;
}

/** Why `selection` is not (or no longer) a run of consecutive current surface nodes, if it is not. */
export function rangeProblem(fold: SurfaceFold, selection: Selection): string | undefined {
  let expected: SurfaceNode | undefined = fold.node(selection.startSeq);
  for (const seq of selection.seqs) {
    if (expected === undefined || expected.seq !== seq) return `node #${seq} is no longer where it was on the surface`;
    expected = fold.nodeAfter(seq);
  }
  return undefined;
}

function failed(reason: CompactionFailure, message: string): CompactionOutcome {
  return { status: 'failed', reason, message, orphaned: false };
}

function messageOf(error: unknown): string {
  return ShadowlogError.isInstance(error) || error instanceof Error ? error.message : String(error);
}
