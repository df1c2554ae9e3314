// The `recall` strategy: the range becomes a compact handle — what it covers, its size, and an
// outline (the structured summary's sections) — and the originals stay reachable through the
// recall tool (recall/recall-tool.ts), which the harness mounts. Measured by compaction/summary
// like a summary, with `strategy: 'recall'`, so replay and nested summaries treat it alike.

import { formatCount } from '../policy/format-count.js';
import { recallHandleOf } from '../recall/recall-index.js';
import { RECALL_TOOL_NAME } from '../recall/recall-tool.js';
import { neutralizeWrapper } from '../render-summary.js';
import { rangeProblem } from '../select-range-problem.js';
import { tokensOf } from './replacement-plan.js';
import type { CompactionStrategy } from './strategy.js';
import { selectWholeRange, summarizeSelection, summaryPlan } from './summary-strategy.js';

export interface RecallHandle {
  readonly handle: string;
  readonly count: number;
  readonly startSeq: number;
  readonly endSeq: number;
  readonly tokens: number;
  readonly outline: string;
}

/** The handle's text: the range, its size, the outline, and how to recall from it. */
export function recallHandleText({ handle, count, startSeq, endSeq, tokens, outline }: RecallHandle): string {
  const what = count === 1 ? `1 earlier message (#${startSeq}` : `${count} earlier messages (the surface from #${startSeq} to #${endSeq}`;
  return (
    `Earlier context was compacted: ${what}, ${formatCount(tokens)} tokens) ${count === 1 ? 'was' : 'were'} taken off the context and kept whole in the log, under recall handle "${handle}". Outline:\n` +
    `<compacted-summary>\n${neutralizeWrapper(outline)}\n</compacted-summary>\n` +
    `To see any of it again, call ${RECALL_TOOL_NAME}: {"action":"search","query":"…"} finds text in it, {"action":"read","seq":N} reads one message, {"action":"list","handle":"${handle}"} lists them.`
  );
}

export function createRecallStrategy(): CompactionStrategy {
  return {
    name: 'recall',
    select: selectWholeRange,
    problem: rangeProblem,
    async plan(input) {
      const summary = await summarizeSelection(input);
      const { selection } = input;
      const text = recallHandleText({
        handle: recallHandleOf(input.compactionId),
        count: selection.seqs.length,
        startSeq: selection.startSeq,
        endSeq: selection.endSeq,
        tokens: tokensOf(selection),
        outline: summary.text,
      });
      return summaryPlan(input, summary, text, { strategy: 'recall' });
    },
  };
}
