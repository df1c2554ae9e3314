import { messageOf } from '../../log/errors.js';
import type { SurfaceNode } from '../../log/surface-fold.js';
import type { ModelMessage } from '../../providers/language-model.js';
import { renderSurface } from '../../spine/render-surface.js';
import type { SessionLog } from '../../store/session-log.js';
import { COMPACTION_SUMMARY, type CompactionSummaryData } from '../event-types.js';
import type { EarlierSummary } from '../extractive-summarizer.js';
import { replacementText } from '../render-summary.js';
import { selectRange } from '../select-range.js';
import { rangeProblem } from '../select-range-problem.js';
import type { SummaryResult } from '../summarizer.js';
import { isSummarySections } from '../summary-sections.js';
import { replacementPlan } from './replacement-plan.js';
import { type CompactionStrategy, StrategyFailure, type StrategyInput, type StrategyPlan } from './strategy.js';

/** The summarizer's answer for the selected range, checked: not empty, not cut at its limit. */
export async function summarizeSelection(input: StrategyInput): Promise<SummaryResult> {
  if (input.signal.aborted) throw new StrategyFailure('the compaction was cancelled before the summary', undefined, 'cancelled');
  const messages: ModelMessage[] = renderSurface(input.nodes);
  const earlierSummaries = await earlierSummariesIn(input.log, input.nodes).catch((error: unknown) => {
    throw new StrategyFailure(`the earlier summary in the range could not be read: ${messageOf(error)}`, error);
  });
  const summary = await input.summarizer
    .summarize({ messages, maxTokens: input.maxSummaryTokens, signal: input.signal, earlierSummaries })
    .catch((error: unknown) => {
      if (input.signal.aborted) throw new StrategyFailure('the compaction was cancelled during the summary', undefined, 'cancelled');
      throw new StrategyFailure(`the summarizer failed: ${messageOf(error)}`, error);
    });
  if (summary.text === '') throw new StrategyFailure('the summarizer answered with an empty summary');
  if (summary.truncated)
    throw new StrategyFailure(
      `the summary was cut at its token limit (max_tokens ${summary.maxTokens ?? input.maxSummaryTokens}${summary.maxTokens === undefined ? ', maxSummaryTokens' : `, below maxSummaryTokens ${input.maxSummaryTokens} by the model's output limit or window`}); raise maxSummaryTokens or compact less at once`,
    );
  return summary;
}

/**
 * The batch that replaces the range by one user message with `text`: compaction/summary (with
 * the summarizer's facts and `extra` fields), then the replacing node listing every shadowed seq.
 */
export function summaryPlan(
  input: StrategyInput,
  summary: SummaryResult,
  text: string,
  extra: Partial<CompactionSummaryData> = {},
): StrategyPlan {
  return replacementPlan(input, {
    what: 'the summary',
    summaryTokens: input.priceOfSummary(text),
    facts: {
      provider: summary.provider,
      model: summary.model,
      usage: summary.usage,
      requestDigest: summary.requestDigest,
      rendererVersion: summary.rendererVersion,
      summarizer: summary.kind,
      ...(summary.sections === undefined ? {} : { sections: summary.sections }),
      ...(summary.targetTokens === undefined ? {} : { targetTokens: summary.targetTokens }),
      ...extra,
    },
    // The budget the request was sent with: replay rebuilds the request from it.
    eventExtra: { maxTokens: summary.maxTokens ?? input.maxSummaryTokens },
    node: { type: 'user/message', data: { content: [{ type: 'text', text }] } },
  });
}

/** The range selection every whole-range strategy uses (SPEC §7 step 3). */
export const selectWholeRange: CompactionStrategy['select'] = ({ nodes, prices, retain }) => selectRange(nodes, prices, retain);

export function createSummaryStrategy(): CompactionStrategy {
  return {
    name: 'summary',
    select: selectWholeRange,
    problem: rangeProblem,
    async plan(input) {
      const summary = await summarizeSelection(input);
      return summaryPlan(input, summary, replacementText(summary.text, input.nodes.length));
    },
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
