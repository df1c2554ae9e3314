// The matching rule (docs/proxy.md, "Sessions") on the shapes real clients send: Claude Code's
// compaction (one summary message in place of everything), Codex's replacement_history (copies
// of earlier messages and an encrypted compaction item), a sliding window, an edited message, a
// regenerated answer, the session header, and two conversations that share a system prompt.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { dataOf } from '../../src/log/event-data.js';
import { verifyLog } from '../../src/log/verify.js';
import { answerJson } from './proxy-answers.js';
import { describeSurface, type ProxyHarness, startProxyHarness } from './proxy-harness.js';

let harness: ProxyHarness;
beforeEach(async () => {
  harness = await startProxyHarness();
});
afterEach(async () => {
  await harness.close();
});

async function post(path: string, body: object, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const response = await fetch(`${harness.proxy.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as Record<string, unknown>;
}

const claudeTools = [
  { name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
];
const anthropic = (messages: object[], extra: object = {}) =>
  post('/v1/messages', {
    model: 'claude-opus-4-6',
    max_tokens: 100,
    system: 'You are Claude Code.',
    messages,
    tools: claudeTools,
    ...extra,
  });
const chat = (messages: object[], headers: Record<string, string> = {}) =>
  post('/v1/chat/completions', { model: 'gpt-4o', messages }, headers);

function replacements(events: readonly LogEvent[]): Array<{ seq: number; range: unknown; sources: readonly number[] | undefined }> {
  return events
    .filter((event) => event.surfaceOp !== undefined && event.surfaceOp !== 'append')
    .map((event) => ({ seq: event.seq, range: event.surfaceOp, sources: event.sourceEventSeqs }));
}

function copyOf(event: LogEvent | undefined): unknown {
  return (event?.data as { copyOf?: number } | undefined)?.copyOf;
}

async function verified(sessionId: string): Promise<LogEvent[]> {
  const events = await harness.events(sessionId);
  expect((await verifyLog(harness.store.read(sessionId))).ok).toBe(true);
  return events;
}

describe('session matching', () => {
  it("Claude Code's compaction: one summary message in place of the whole history joins the session by its metadata.user_id", async () => {
    const metadata = { user_id: 'user_abc_account_1_session_5f2c' };
    harness.upstream.enqueue(
      answerJson('anthropic', { tool: { id: 'toolu_a', name: 'Read', arguments: { file_path: 'x.ts' } } }, 1),
      answerJson('anthropic', { text: 'x.ts exports f.' }, 2),
      answerJson('anthropic', { text: 'Continuing.' }, 3),
    );
    const history: object[] = [{ role: 'user', content: [{ type: 'text', text: 'Explain x.ts', cache_control: { type: 'ephemeral' } }] }];
    const first = await anthropic(history, { metadata });
    history.push({ role: 'assistant', content: first.content });
    // Claude Code moves its cache breakpoint to the newest message: the same message, for the key.
    history[0] = { role: 'user', content: [{ type: 'text', text: 'Explain x.ts' }] };
    history.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'export const f = 1;', cache_control: { type: 'ephemeral' } }],
    });
    await anthropic(history, { metadata });
    const summary =
      'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nAnalysis: the user asked about x.ts.';
    await anthropic([{ role: 'user', content: summary }], { metadata });

    expect(harness.proxy.sessionIds()).toEqual(['proxied-1']);
    const events = await verified('proxied-1');
    expect(await harness.surface('proxied-1')).toEqual([
      '2 system/message: You are Claude Code.',
      `9 user/message (replaces): ${summary}`,
      '11 assistant/message: Continuing.',
    ]);
    expect(replacements(events)).toEqual([{ seq: 9, range: { op: 'replace', startSeq: 3, endSeq: 8 }, sources: [3, 5, 6, 8] }]);
  });

  it("Codex's replacement_history: copies of earlier messages and the compaction item replace everything after the instructions", async () => {
    const instructions = 'You are Codex.';
    const developer = {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: '<permissions>sandboxed</permissions>' }],
    };
    const user1 = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files' }] };
    harness.upstream.enqueue(
      answerJson('responses', { tool: { id: 'call_ls', name: 'shell', arguments: { command: ['ls'] } } }, 1),
      answerJson('responses', { text: 'Two files: a, b.' }, 2),
      answerJson('responses', { text: 'Done.' }, 3),
    );
    const responses = (input: object[]) =>
      post('/v1/responses', { model: 'gpt-5-codex', instructions, input, store: false, prompt_cache_key: 'thread-1' });
    const first = await responses([developer, user1]);
    const call = (first.output as object[])[0] as object;
    const output = { type: 'function_call_output', call_id: 'call_ls', output: 'a\nb' };
    const second = await responses([developer, user1, call, output]);
    const answer = (second.output as object[])[0] as object;
    const compaction = { type: 'compaction', encrypted_content: 'gAAAA-opaque-summary' };
    const user2 = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Now count them' }] };
    await responses([user1, answer, developer, compaction, user2]);

    expect(harness.proxy.sessionIds()).toEqual(['proxied-1']);
    const events = await verified('proxied-1');
    // The last answer is the tail the request kept; the copies before it and the items after it are the client's.
    expect(await harness.surface('proxied-1')).toEqual([
      '2 system/message: You are Codex.',
      '12 user/message (replaces): List the files',
      '9 assistant/message: Two files: a, b.',
      '13 system/message: <permissions>sandboxed</permissions>',
      '14 user/message: [reasoning]',
      '15 user/message: Now count them',
      '17 assistant/message: Done.',
    ]);
    expect(replacements(events)).toEqual([{ seq: 12, range: { op: 'replace', startSeq: 3, endSeq: 7 }, sources: [3, 4, 6, 7] }]);
    // The copies name what they copy.
    const copies = events.filter((event) => (event.data as { copyOf?: number }).copyOf !== undefined);
    expect(copies.map((event) => [event.seq, (event.data as { copyOf: number }).copyOf])).toEqual([
      [12, 4],
      [13, 3],
    ]);
    const calls = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
    expect(calls.map((call) => [call.turn, call.step])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
    ]);
  });

  it('a sliding window: the oldest messages dropped, nothing in their place; the first kept one takes their place as a copy of itself', async () => {
    harness.upstream.enqueue(...[1, 2, 3, 4].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
    const system = { role: 'system', content: 'Be brief.' };
    const history: object[] = [];
    for (const index of [1, 2, 3]) {
      history.push({ role: 'user', content: `question ${index}` });
      const answer = (await chat([system, ...history])) as { choices: Array<{ message: object }> };
      history.push(answer.choices[0]?.message as object);
    }
    // The window keeps the last two messages.
    await chat([system, ...history.slice(-2), { role: 'user', content: 'question 4' }]);

    expect(harness.proxy.sessionIds()).toEqual(['proxied-1']);
    const events = await verified('proxied-1');
    expect(replacements(events)).toEqual([{ seq: 18, range: { op: 'replace', startSeq: 3, endSeq: 13 }, sources: [3, 5, 8, 10, 13] }]);
    expect(copyOf(events[18])).toBe(13);
    expect(await harness.surface('proxied-1')).toEqual([
      '2 system/message: Be brief.',
      '18 user/message (replaces): question 3',
      '15 assistant/message: answer 3',
      '19 user/message: question 4',
      '21 assistant/message: answer 4',
    ]);
  });

  it('an edited message is replaced on its own, the rest kept', async () => {
    harness.upstream.enqueue(...[1, 2, 3].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
    const history: object[] = [{ role: 'user', content: 'Write a haiku about rain' }];
    history.push(((await chat(history)) as { choices: Array<{ message: object }> }).choices[0]?.message as object);
    history.push({ role: 'user', content: 'Shorter' });
    history.push(((await chat(history)) as { choices: Array<{ message: object }> }).choices[0]?.message as object);
    history[0] = { role: 'user', content: 'Write a haiku about snow' };
    history.push({ role: 'user', content: 'Again' });
    await chat(history);

    const events = await verified('proxied-1');
    expect(replacements(events)).toEqual([{ seq: 12, range: { op: 'replace', startSeq: 2, endSeq: 2 }, sources: [2] }]);
    expect(describeSurface(events).at(-3)).toBe('12 user/message (replaces): Write a haiku about snow');
  });

  it('a regenerated answer: the request stops before the last answer, which is shadowed', async () => {
    harness.upstream.enqueue(...[1, 2, 3].map((index) => answerJson('openai', { text: `try ${index}` }, index)));
    const question = { role: 'user', content: 'Name a colour' };
    const first = ((await chat([question])) as { choices: Array<{ message: object }> }).choices[0]?.message as object;
    const again = { role: 'user', content: 'Another' };
    await chat([question, first, again]);
    // The client drops the last answer and asks again.
    await chat([question, first, again]);
    const events = await verified('proxied-1');
    expect(replacements(events)).toEqual([{ seq: 10, range: { op: 'replace', startSeq: 7, endSeq: 9 }, sources: [7, 9] }]);
    expect(copyOf(events[10])).toBe(7);
    expect((await harness.surface('proxied-1')).slice(-2)).toEqual(['10 user/message (replaces): Another', '12 assistant/message: try 3']);
  });

  it("a regenerated first answer is a new run, unless the session header says it is the session's", async () => {
    harness.upstream.enqueue(...[1, 2, 3, 4].map((index) => answerJson('openai', { text: `try ${index}` }, index)));
    await chat([{ role: 'user', content: 'Name a colour' }]);
    await chat([{ role: 'user', content: 'Name a colour' }]);
    expect(harness.proxy.sessionIds()).toEqual(['proxied-1', 'proxied-2']);
    const header = { 'x-shadowlog-session': 'colours' };
    await chat([{ role: 'user', content: 'Name a colour' }], header);
    await chat([{ role: 'user', content: 'Name a colour' }], header);
    const events = await verified('colours');
    expect(replacements(events)).toEqual([{ seq: 5, range: { op: 'replace', startSeq: 2, endSeq: 4 }, sources: [2, 4] }]);
    expect(copyOf(events[5])).toBe(2);
    expect(await harness.surface('colours')).toEqual(['5 user/message (replaces): Name a colour', '7 assistant/message: try 4']);
  });

  it('the x-shadowlog-session header names the session, and is not passed on', async () => {
    harness.upstream.enqueue(answerJson('openai', { text: 'one' }, 1), answerJson('openai', { text: 'two' }, 2));
    await chat([{ role: 'user', content: 'Unrelated A' }], { 'x-shadowlog-session': 'my-agent' });
    await chat([{ role: 'user', content: 'Unrelated B' }], { 'x-shadowlog-session': 'my-agent' });
    expect(harness.proxy.sessionIds()).toEqual(['my-agent']);
    const events = await verified('my-agent');
    expect(replacements(events)).toHaveLength(1);
    expect(harness.upstream.requests.every((request) => request.headers['x-shadowlog-session'] === undefined)).toBe(true);
  });

  it('two conversations that share only a system prompt are two sessions', async () => {
    harness.upstream.enqueue(...[1, 2, 3, 4].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
    const system = { role: 'system', content: 'Shared prompt.' };
    const a = [system, { role: 'user', content: 'Conversation A' }];
    const b = [system, { role: 'user', content: 'Conversation B' }];
    const answerA = ((await chat(a)) as { choices: Array<{ message: object }> }).choices[0]?.message as object;
    const answerB = ((await chat(b)) as { choices: Array<{ message: object }> }).choices[0]?.message as object;
    await chat([...a, answerA, { role: 'user', content: 'A again' }]);
    await chat([...b, answerB, { role: 'user', content: 'B again' }]);
    expect(harness.proxy.sessionIds()).toEqual(['proxied-1', 'proxied-2']);
    for (const id of ['proxied-1', 'proxied-2']) expect(replacements(await verified(id))).toEqual([]);
  });
});
