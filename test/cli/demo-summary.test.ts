// The demo's nested compaction, end to end through the CLI: its summary merges the first one
// (one wrapper, the session's first request first, the answers of turns 4 and 6 kept), checked
// against a golden file; and `stats` reports summary size ÷ shadowed size.
// Regenerate the golden: SHADOWLOG_UPDATE_GOLDEN=1 npx vitest run test/cli/demo-summary.test.ts

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectGolden } from '../compaction/support/golden.js';
import { createCliWorkspace } from '../support/cli.js';

interface RecordEvent {
  seq: number;
  type: string;
  data: {
    content?: Array<{ text?: string }>;
    shadowedSeqs?: number[];
    turn?: number;
    toolCalls?: unknown[];
    sections?: { requests: Array<{ text: string }> };
  };
  sourceEventSeqs?: number[];
}

const textOf = (event: RecordEvent | undefined) => (event?.data.content ?? []).map((block) => block.text ?? '').join('');

describe('the demo’s nested summary', () => {
  const workspace = createCliWorkspace();
  let events: RecordEvent[] = [];

  beforeAll(async () => {
    const demo = await workspace.run(['demo', '--json', '--session', 'golden']);
    expect(demo.code).toBe(0);
    events = JSON.parse((await workspace.run(['show', 'golden', '--record', '--json'])).stdout).events;
  });
  afterAll(() => workspace.cleanup());

  /** The final answer of each turn: its last assistant message without tool calls. */
  function answerOf(turn: number): string {
    let current = 0;
    let answer = '';
    for (const event of events) {
      if (event.type === 'turn/start') current = event.data.turn ?? 0;
      if (current === turn && event.type === 'assistant/message' && (event.data.toolCalls ?? []).length === 0) answer = textOf(event);
    }
    return answer;
  }

  function nestedSummary(): RecordEvent {
    const replacements = new Set(
      events.filter((event) => event.type === 'user/message' && event.sourceEventSeqs !== undefined).map((event) => event.seq),
    );
    const summary = events.find(
      (event) => event.type === 'compaction/summary' && (event.data.shadowedSeqs ?? []).some((seq) => replacements.has(seq)),
    );
    const node = events.find((event) => event.seq === (summary?.seq ?? -2) + 1);
    if (node === undefined) expect.unreachable('the demo has no nested compaction');
    return node;
  }

  it('has one wrapper, the session’s first request first, and the answers of turns 4 and 6', () => {
    const text = textOf(nestedSummary());
    expect(text.match(/<compacted-summary>/g)).toHaveLength(1);
    expect(text.match(/<\/compacted-summary>/g)).toHaveLength(1);
    const firstRequest = textOf(events.find((event) => event.type === 'user/message'));
    expect(text.split('\n## Requests\n')[1]?.split('\n')[0]).toBe(`- [done] "${firstRequest}"`);
    for (const turn of [4, 6]) {
      const firstSentence = answerOf(turn).split(/(?<=\.)\s/)[0] ?? '';
      expect(firstSentence.length).toBeGreaterThan(10);
      expect(text).toContain(firstSentence);
    }
    expect(text).not.toContain('[user]');
    // Inline code is never split: every line closes the code spans it opens.
    for (const line of text.split('\n')) expect((line.match(/`/g) ?? []).length % 2).toBe(0);
  });

  it('matches the golden file', () => {
    expectGolden(new URL('../compaction/fixtures/demo-nested-summary.txt', import.meta.url), `${textOf(nestedSummary())}\n`);
  });

  it('reports summary size ÷ shadowed size in stats, as text and as JSON', async () => {
    const json = JSON.parse((await workspace.run(['stats', 'golden', '--json'])).stdout);
    const summaries = events.filter((event) => event.type === 'compaction/summary') as unknown as Array<{
      data: { summaryTokens: number; shadowedTokenCount: number };
    }>;
    const expected =
      summaries.reduce((sum, event) => sum + event.data.summaryTokens, 0) /
      summaries.reduce((sum, event) => sum + event.data.shadowedTokenCount, 0);
    expect(json.summaryRatio).toBeCloseTo(expected, 4);
    expect(json.summaryRatio).toBeLessThan(0.5);
    expect(json).toHaveProperty('tokensBefore');
    const text = (await workspace.run(['stats', 'golden'])).stdout;
    expect(text).toMatch(
      new RegExp(
        `summaries: [\\d,]+ tokens? for the [\\d,]+ they shadowed \\(${json.summaryRatio.toFixed(3).replace('.', '\\.')}× the size\\)`,
      ),
    );
  });
});
