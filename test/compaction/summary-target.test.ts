// The size a summary aims at: a share of the new text with a floor and a cap, never above
// maxSummaryTokens; and the extractive summarizer stays within it instead of filling its budget.

import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../../src/compaction/summarizer.js';
import { SUMMARY_TARGET, summaryTargetTokens } from '../../src/compaction/summary-target.js';
import type { ModelMessage } from '../../src/providers/language-model.js';

const chars4 = (text: string): number => Math.ceil(text.length / 4);

describe('summaryTargetTokens', () => {
  it('is 5 % of the new text, at least 256 and at most 1,536, and never above maxSummaryTokens', () => {
    expect(SUMMARY_TARGET).toEqual({ share: 0.05, floor: 256, cap: 1_536, mergedCap: 3_072 });
    expect(summaryTargetTokens(1_000, 8_192)).toBe(256);
    expect(summaryTargetTokens(20_000, 8_192)).toBe(1_000);
    expect(summaryTargetTokens(100_000, 8_192)).toBe(1_536);
    expect(summaryTargetTokens(100_000, 500)).toBe(500);
  });
});

describe('the extractive summarizer and its target', () => {
  it('aims at the target, far below maxSummaryTokens and half its input', async () => {
    const messages: ModelMessage[] = [];
    for (let turn = 1; turn <= 40; turn++) {
      messages.push({ role: 'user', content: [{ type: 'text', text: `Check module ${turn} for unused exports.` }] });
      messages.push({
        role: 'assistant',
        content: [],
        toolCalls: [{ callId: `c${turn}`, name: 'read_file', arguments: { path: `src/module${turn}.ts` } }],
      });
      const source = Array.from(
        { length: 80 },
        (_, line) => `export const value${turn}_${line} = ${line}; // used by module ${line % 7}`,
      ).join('\n');
      messages.push({ role: 'tool', callId: `c${turn}`, content: [{ type: 'text', text: source }], isError: false });
      messages.push({
        role: 'assistant',
        content: [{ type: 'text', text: `Module ${turn} has ${turn % 5} unused exports out of 80.` }],
        toolCalls: [],
      });
    }
    const inputTokens = messages.reduce(
      (sum, message) => sum + chars4(message.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n')),
      0,
    );
    const result = await createExtractiveSummarizer(chars4).summarize({ messages, maxTokens: 8_192, signal: new AbortController().signal });
    const target = summaryTargetTokens(inputTokens, 8_192);
    expect(result.targetTokens).toBe(target);
    expect(chars4(result.text)).toBeLessThanOrEqual(target);
    expect(chars4(result.text)).toBeLessThan(Math.min(8_192, inputTokens / 2) / 4);
    expect(result.sections?.requests).toHaveLength(40);
  });
});
