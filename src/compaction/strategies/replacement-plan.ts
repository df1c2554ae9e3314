// The batch of every strategy that replaces the selected range by one node: compaction/summary
// (what every compaction measures, plus the summarizer's or provider's own facts), then the
// replacing node, listing every shadowed seq and the summary event. Refused when the node is
// not smaller than what it replaces.

import type { EventDraft, JsonObject } from '../../log/event.js';
import { COMPACTION_SUMMARY, type CompactionSummaryData } from '../event-types.js';
import type { Selection } from '../select-range.js';
import { StrategyFailure, type StrategyInput, type StrategyPlan } from './strategy.js';

/** The fields of compaction/summary that every replacement records the same way. */
type MeasuredFields =
  | 'compactionId'
  | 'shadowedSeqs'
  | 'shadowedTokenCount'
  | 'shadowedTokens'
  | 'trigger'
  | 'tokensBefore'
  | 'tokensAfter'
  | 'summaryTokens'
  | 'durationMs';

export interface ReplacementPlanOptions {
  /** The replacing node as named when it is refused for its size: "the summary". */
  readonly what: string;
  /** Its price by the session's meter. */
  readonly summaryTokens: number;
  /** What the summarizer or provider made it with, recorded in compaction/summary. */
  readonly facts: Omit<CompactionSummaryData, MeasuredFields>;
  /** Fields of the summary event beyond its data type (the summary strategy's maxTokens). */
  readonly eventExtra?: JsonObject;
  readonly node: { readonly type: 'user/message' | 'assistant/message'; readonly data: JsonObject };
}

export function replacementPlan(input: StrategyInput, options: ReplacementPlanOptions): StrategyPlan {
  const { selection } = input;
  const shadowedTokenCount = tokensOf(selection);
  const { summaryTokens } = options;
  if (summaryTokens >= shadowedTokenCount) {
    throw new StrategyFailure(
      `${options.what} (${summaryTokens} tokens) is not smaller than what it would replace (${shadowedTokenCount} tokens)`,
    );
  }
  const tokensAfter = input.measureAfter(summaryTokens);
  return {
    tokensAfter,
    drafts: (firstSeq) => {
      const data: CompactionSummaryData = {
        compactionId: input.compactionId,
        shadowedSeqs: [...selection.seqs],
        shadowedTokenCount,
        shadowedTokens: [...selection.prices],
        trigger: input.trigger,
        tokensBefore: input.tokensBefore,
        tokensAfter,
        summaryTokens,
        durationMs: Math.max(0, Math.round(input.now() - input.startedAt)),
        ...options.facts,
      };
      const drafts: EventDraft[] = [
        { type: COMPACTION_SUMMARY, data: { ...(data as unknown as JsonObject), ...options.eventExtra }, ignorable: true },
        {
          type: options.node.type,
          data: options.node.data,
          surfaceOp: { op: 'replace', startSeq: selection.startSeq as never, endSeq: selection.endSeq as never },
          sourceEventSeqs: [...selection.seqs, firstSeq],
        },
      ];
      return drafts;
    },
  };
}

/** What the selected range costs by the session's meter: the sum of its nodes' prices. */
export function tokensOf(selection: Selection): number {
  return selection.prices.reduce((sum, price) => sum + price, 0);
}
