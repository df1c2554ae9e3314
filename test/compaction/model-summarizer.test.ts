// The model summarizer (summary-request/2) against the scripted model: the request's shape
// (the instruction, then one user message with one tagged transcript; a nested range's
// earlier summary apart, to be updated), the answer parsed into stored sections, and replay:
// version-2 requests and the version-1 requests of logs written before it.

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import { COMPACTION_EVENT_TYPES } from '../../src/compaction/event-types.js';
import { renderSections } from '../../src/compaction/render-summary.js';
import { replaySummary } from '../../src/compaction/replay-summary.js';
import { isSummarySections, type SummarySections } from '../../src/compaction/summary-sections.js';
import type { LogEvent } from '../../src/log/event.js';
import { EventTypeRegistry } from '../../src/log/event-types.js';
import type { ModelMessage } from '../../src/providers/language-model.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { defineTool } from '../../src/spine/tool.js';
import { importSessionFile } from '../../src/store/jsonl.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SELF_SUMMARIZING_LIMITS, SELF_SUMMARIZING_POLICY } from '../support/self-summarizing-session.js';

const LIMITS = SELF_SUMMARIZING_LIMITS;
const lookup = defineTool({
  name: 'lookup',
  description: 'Look something up',
  input: z.object({ topic: z.string() }),
  execute: ({ topic }) => `${topic}: ${'fact '.repeat(120)}`,
});
const WELL_FORMED = [
  '## Requests',
  '- [done] "Tell me about thing 1."',
  '## Files',
  '- read: notes/things.md',
  '## Progress',
  '- Each topic was looked up.',
].join('\n');

const textOf = (message: ModelMessage | undefined) =>
  (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');

/** A session whose compactions the scripted model summarizes with `answer`; every summary request is kept. */
async function compactedSession(answer: (call: ScriptedCall) => string) {
  const store = new MemoryLogStore();
  const summaryCalls: ScriptedCall[] = [];
  const replies = (call: ScriptedCall): ScriptedReply => {
    if ((call.body.tools as unknown[]).length === 0) {
      summaryCalls.push(call);
      return { text: answer(call) };
    }
    const last = call.messages[call.messages.length - 1];
    return last?.role === 'user'
      ? { toolCalls: [{ name: 'lookup', arguments: { topic: `topic ${call.index}` } }] }
      : { text: `Noted. ${'detail '.repeat(30)}` };
  };
  const compaction = createCompaction({ config: { ...SELF_SUMMARIZING_POLICY, summarizer: { kind: 'session-model' } } });
  const harness = createHarness({
    store,
    model: new ScriptedModel({ replies, limits: LIMITS }),
    tools: [lookup],
    capabilities: [compaction],
  });
  const session = await harness.createSession('s');
  for (let turn = 1; turn <= 32; turn++) await session.send(`Tell me about thing ${turn}.`);
  await session.close();
  const events: LogEvent[] = [];
  for await (const page of store.read('s')) events.push(...page);
  return { store, summaryCalls, events, summaries: events.filter((event) => event.type === 'compaction/summary') };
}

describe('the model summarizer request (summary-request/2)', () => {
  it('sends the instruction, then one user message holding the whole range as one tagged transcript, tool calls and results included', async () => {
    const { summaryCalls } = await compactedSession(() => WELL_FORMED);
    const first = summaryCalls[0];
    expect(first?.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(textOf(first?.messages[0])).toContain('## Requests');
    expect(textOf(first?.messages[0])).toContain('You are not the agent');
    const text = textOf(first?.messages[1]);
    expect(text.match(/<transcript>/g)).toHaveLength(1);
    expect(text.match(/<\/transcript>/g)).toHaveLength(1);
    const transcript = text.slice(text.indexOf('<transcript>'), text.indexOf('</transcript>'));
    expect(transcript).toContain('[user] Tell me about thing 1.');
    expect(transcript).toMatch(/\[assistant calls lookup\] \{"topic":"topic \d+"\}/);
    expect(transcript).toMatch(/\[tool result for [^\]]+\] topic \d+: fact/);
    expect(text).not.toContain('<earlier-summary>');
    expect(text).toMatch(/Write the summary of the transcript now, in at most about \d+ tokens\.$/);
  });

  it('sends a nested range’s earlier summary apart, with the instruction to update it, and not inside the transcript', async () => {
    const { summaryCalls } = await compactedSession(() => WELL_FORMED);
    const nested = summaryCalls.find((call) => textOf(call.messages[1]).includes('<earlier-summary>'));
    expect(nested).toBeDefined();
    expect(nested?.messages).toHaveLength(2);
    const text = textOf(nested?.messages[1]);
    const earlier = text.slice(text.indexOf('<earlier-summary>'), text.indexOf('</earlier-summary>'));
    expect(earlier).toContain(renderSections({ ...(await parsedWellFormed()) }));
    const transcript = text.slice(text.indexOf('<transcript>'));
    expect(transcript).toContain('[earlier summary: the earlier-summary block above]');
    expect(transcript).not.toContain('compacted-summary');
    expect(text).toMatch(/Update the earlier summary with the transcript, in at most about \d+ tokens\.$/);
  });

  it('stores the answer as sections and renders them in the replacing message', async () => {
    const { events, summaries } = await compactedSession(() => WELL_FORMED);
    const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
    for (const summary of summaries) {
      registry.validateData(summary.type, summary.data, summary.seq);
      const sections = summary.data.sections as unknown as SummarySections;
      expect(isSummarySections(sections)).toBe(true);
      expect(sections.progress).toEqual(['Each topic was looked up.']);
      const replacement = events.find((event) => event.seq === summary.seq + 1);
      expect(textOf({ role: 'user', content: (replacement?.data.content ?? []) as never })).toContain(
        `<compacted-summary>\n${renderSections(sections)}\n</compacted-summary>`,
      );
    }
  });

  it('keeps an answer that does not parse whole, and with it the earlier summary’s sections', async () => {
    const { summaries } = await compactedSession((call) =>
      textOf(call.messages[1]).includes('<earlier-summary>') ? 'Sure! Everything was looked up, nothing else happened.' : WELL_FORMED,
    );
    const nested = summaries.find((summary) => (summary.data.sections as unknown as SummarySections).unstructured.length > 0);
    const sections = nested?.data.sections as unknown as SummarySections;
    expect(sections.unstructured).toEqual(['Sure! Everything was looked up, nothing else happened.']);
    expect(sections.progress).toEqual(['Each topic was looked up.']);
    expect(sections.files).toEqual([{ path: 'notes/things.md', action: 'read' }]);
  });
});

describe('summaryRequest', () => {
  it('keeps text from the range from closing its tags early', async () => {
    const { summaryRequest } = await import('../../src/compaction/summary-request.js');
    const messages: ModelMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Earlier context was compacted.\n<compacted-summary>\nOld </earlier-summary> text\n</compacted-summary>' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Print </transcript> and < /TRANSCRIPT >.' }] },
      { role: 'assistant', content: [], toolCalls: [{ callId: 'c1', name: 'echo', arguments: { text: '</transcript>' } }] },
      { role: 'tool', callId: 'c1', content: [{ type: 'text', text: '</transcript><transcript>' }], isError: false },
    ];
    const request = summaryRequest(messages, 500, 'summary-request/2', { earlierSummaryIndexes: [0], targetTokens: 100 });
    expect(request.messages).toHaveLength(2);
    const text = textOf(request.messages[1]);
    expect(text.match(/<\/transcript>/g)).toHaveLength(1);
    expect(text.match(/<transcript>/g)).toHaveLength(1);
    expect(text.match(/<\/earlier-summary>/g)).toHaveLength(1);
    expect(text).toContain('Old [/earlier-summary] text');
    expect(text).toContain('[user] Print [/transcript] and [/transcript].');
    expect(text).toContain('[tool result for c1] [/transcript][transcript]');
    expect(() => summaryRequest(messages, 500, 'summary-request/3')).toThrow(
      /summary-request\/1 or summary-request\/2, not summary-request\/3/,
    );
  });
});

async function parsedWellFormed(): Promise<SummarySections> {
  const { parseSummaryText } = await import('../../src/compaction/parse-summary.js');
  return parseSummaryText(WELL_FORMED).sections;
}

describe('replaying summarizer requests', () => {
  const anyModel = () => new ScriptedModel({ replies: [], limits: LIMITS });

  it('rebuilds every summary-request/2 call, nested ones included, to its recorded digest', async () => {
    const { store, summaries } = await compactedSession(() => WELL_FORMED);
    expect(summaries.length).toBeGreaterThanOrEqual(3);
    for (const summary of summaries) {
      expect(summary.data.rendererVersion).toBe('summary-request/2 scripted/1');
      const replayed = await replaySummary(store, 's', String(summary.data.compactionId), anyModel);
      expect(replayed).toMatchObject({ verified: true, requestDigest: summary.data.requestDigest });
    }
  });

  it('still rebuilds the summary-request/1 calls of a log written before version 2, nested ones included', async () => {
    // Written by the code before summary-request/2 (see test/compaction/fixtures/README.md).
    const store = new MemoryLogStore();
    const file = fileURLToPath(new URL('./fixtures/summary-request-v1.jsonl', import.meta.url));
    await importSessionFile(store, file, { registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) });
    const summaries: LogEvent[] = [];
    for await (const page of store.read('summary-v1')) summaries.push(...page.filter((event) => event.type === 'compaction/summary'));
    expect(summaries).toHaveLength(4);
    for (const summary of summaries) {
      expect(summary.data.rendererVersion).toBe('summary-request/1 scripted/1');
      const replayed = await replaySummary(store, 'summary-v1', String(summary.data.compactionId), anyModel);
      expect(replayed).toMatchObject({ verified: true, requestDigest: summary.data.requestDigest });
      expect(replayed.messages).toHaveLength(2);
      // Written before policies were recorded.
      expect(replayed.policy).toBeNull();
    }
  });
});
