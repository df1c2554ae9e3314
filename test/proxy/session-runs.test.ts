// The proxy's session rule for runs (docs/proxy.md, "Sessions"): a conversation's first request
// starts a new session (a fresh run of the same client is not spliced into the earlier one), the
// same run's next request joins its session, the header and conversation ids say otherwise, and
// a client's compaction sent with no conversation id starts a session linked to the one it most
// likely continues, with the evidence, never merged.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { dataOf } from '../../src/log/event-data.js';
import { verifyLog } from '../../src/log/verify.js';
import { continuedSession, type LinkCandidate } from '../../src/proxy/session-link.js';
import { answerJson } from './proxy-answers.js';
import { type ProxyHarness, startProxyHarness } from './proxy-harness.js';

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

const SYSTEM = { role: 'system', content: 'You are a careful coding agent.' };
const TOOLS = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }];
type Message = Record<string, unknown>;
const chat = async (messages: object[], extra: object = {}, headers: Record<string, string> = {}): Promise<Message> => {
  const answer = (await post('/v1/chat/completions', { model: 'gpt-4o', messages, tools: TOOLS, ...extra }, headers)) as {
    choices: Array<{ message: Message }>;
  };
  return answer.choices[0]?.message as Message;
};

async function verified(sessionId: string): Promise<LogEvent[]> {
  const events = await harness.events(sessionId);
  expect((await verifyLog(harness.store.read(sessionId))).ok).toBe(true);
  return events;
}

const replaced = (events: readonly LogEvent[]) => events.filter((event) => event.surfaceOp !== undefined && event.surfaceOp !== 'append');
const startOf = async (sessionId: string) => dataOf((await verified(sessionId))[0] as LogEvent, 'session/start');

describe('runs and sessions', () => {
  it("a fresh run of the same client is a new session, not a regeneration of the earlier one; the run's next request joins its own", async () => {
    harness.upstream.enqueue(...[1, 2, 3, 4].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
    const question = { role: 'user', content: 'What does src/csv.ts export?' };
    const first = await chat([SYSTEM, question]);
    await chat([SYSTEM, question, first, { role: 'user', content: 'And its tests?' }]);
    // The client is started again, and asks the same first question.
    const again = await chat([SYSTEM, question]);
    await chat([SYSTEM, question, again, { role: 'user', content: 'Thanks' }]);

    expect(harness.proxy.sessionIds()).toEqual(['proxied-1', 'proxied-2']);
    for (const id of ['proxied-1', 'proxied-2']) expect(replaced(await verified(id))).toEqual([]);
    expect(await harness.surface('proxied-2')).toEqual([
      '2 system/message: You are a careful coding agent.',
      '3 user/message: What does src/csv.ts export?',
      '5 assistant/message: answer 3',
      '8 user/message: Thanks',
      '10 assistant/message: answer 4',
    ]);
    // Asking the same first question again is a new run of the client, not a continuation: no link.
    expect((await startOf('proxied-2')).continues).toBeUndefined();
  });

  it('a retry of a first request that got no answer stays in its session', async () => {
    harness.upstream.enqueue(
      { type: 'error', status: 500, body: { error: { message: 'overloaded', type: 'server_error', param: null, code: null } } },
      answerJson('openai', { text: 'answer' }, 1),
    );
    const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [SYSTEM, { role: 'user', content: 'Hi' }], tools: TOOLS }),
    });
    expect(response.status).toBe(500);
    await response.text();
    await chat([SYSTEM, { role: 'user', content: 'Hi' }]);
    expect(harness.proxy.sessionIds()).toEqual(['proxied-1']);
  });

  it('the header joins a first request to the session it names, and the rewrite is recorded', async () => {
    harness.upstream.enqueue(...[1, 2, 3].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
    const header = { 'x-shadowlog-session': 'my-run' };
    const first = await chat([SYSTEM, { role: 'user', content: 'Step one' }], {}, header);
    await chat([SYSTEM, { role: 'user', content: 'Step one' }, first, { role: 'user', content: 'Step two' }], {}, header);
    // The client compacts: the system prompt and a summary, under the same header.
    await chat([SYSTEM, { role: 'user', content: 'Summary: step one done, step two asked.' }], {}, header);
    expect(harness.proxy.sessionIds()).toEqual(['my-run']);
    const events = await verified('my-run');
    expect(replaced(events).map((event) => [event.surfaceOp, event.sourceEventSeqs])).toEqual([
      [{ op: 'replace', startSeq: 3, endSeq: 10 }, [3, 5, 8, 10]],
    ]);
  });

  it("a conversation id joins a first request to its session when the system prompt is the session's, and the rewrite is recorded", async () => {
    harness.upstream.enqueue(...[1, 2, 3, 4].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
    const thread = { prompt_cache_key: 'thread-7' };
    const first = await chat([SYSTEM, { role: 'user', content: 'Plan the refactor' }], thread);
    await chat([SYSTEM, { role: 'user', content: 'Plan the refactor' }, first, { role: 'user', content: 'Go on' }], thread);
    await chat([SYSTEM, { role: 'user', content: 'Summary: the plan has three steps.' }], thread);
    // A sub-agent of the same client: its own system prompt, the same conversation id: a session of its own.
    await chat(
      [
        { role: 'system', content: 'You are a search sub-agent.' },
        { role: 'user', content: 'Find csv.ts' },
      ],
      thread,
    );

    expect(harness.proxy.sessionIds()).toEqual(['proxied-1', 'proxied-2']);
    expect(replaced(await verified('proxied-1'))).toHaveLength(1);
    expect((await startOf('proxied-2')).continues).toBeUndefined();
  });

  it("a client's compaction sent with no conversation id is a new session linked to the one it continues, with the evidence", async () => {
    harness.upstream.enqueue(...[1, 2, 3].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
    const first = await chat([SYSTEM, { role: 'user', content: 'Port the parser' }]);
    await chat([SYSTEM, { role: 'user', content: 'Port the parser' }, first, { role: 'user', content: 'Now the tests' }]);
    const summary = 'This session continues an earlier conversation. Summary: the parser was ported; the tests are next.';
    await chat([SYSTEM, { role: 'user', content: summary }]);

    expect(harness.proxy.sessionIds()).toEqual(['proxied-1', 'proxied-2']);
    // Never merged: the earlier session is untouched, the new one holds the summary.
    expect(replaced(await verified('proxied-1'))).toEqual([]);
    expect(await harness.surface('proxied-2')).toEqual([
      '2 system/message: You are a careful coding agent.',
      `3 user/message: ${summary}`,
      '5 assistant/message: answer 3',
    ]);
    const start = await startOf('proxied-2');
    expect(start.continues?.sessionId).toBe('proxied-1');
    expect(start.continues?.reason).toMatch(
      /names no conversation.*same system prompt, tools and model.*likely continuation, not a certain one/,
    );
    expect(start.continues?.evidence).toMatchObject({
      systemPrompt: 'the same',
      tools: 'the same',
      model: 'gpt-4o',
      linkIdleSeconds: 1800,
      earlierSurfaceMessages: 5,
      requestMessages: 2,
      conversationId: 'none in the request',
    });
  });

  it('a Responses conversation joins its session, the input holding only the new items', async () => {
    harness.upstream.enqueue(answerJson('responses', { text: 'one' }, 1), answerJson('responses', { text: 'two' }, 2));
    const body = (text: string) => ({
      model: 'gpt-5',
      instructions: 'Be brief.',
      conversation: 'conv_42',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }],
    });
    await post('/v1/responses', body('First'));
    await post('/v1/responses', body('Second'));
    expect(harness.proxy.sessionIds()).toEqual(['proxied-1']);
    expect((await harness.surface('proxied-1')).map((line) => line.replace(/^\d+ /, ''))).toEqual([
      'system/message: Be brief.',
      'user/message: First',
      'assistant/message: one',
      'user/message: Second',
      'assistant/message: two',
    ]);
  });
});

describe('the link rule', () => {
  const system = '{"content":[{"text":"S","type":"text"}],"type":"system/message"}';
  const user = (text: string) => `{"content":[{"text":"${text}","type":"text"}],"type":"user/message"}`;
  const answer = '{"calls":[],"text":"A","type":"assistant/message"}';
  const candidate: LinkCandidate = {
    id: 'earlier',
    protocol: 'openai-chat',
    keys: [system, user('Q'), answer],
    model: 'm',
    toolsKey: 't',
    lastEnded: 1_000_000,
  };
  const request = { protocol: 'openai-chat', keys: [system, user('summary')], model: 'm', toolsKey: 't' };
  const window = 30 * 60 * 1000;

  it('links within the idle window, to the most recently ended candidate', () => {
    const later = { ...candidate, id: 'later', lastEnded: 1_500_000 };
    expect(continuedSession([candidate, later], request, 1_600_000, window)?.sessionId).toBe('later');
    expect(continuedSession([candidate], request, 1_000_000 + window, window)?.evidence?.idleSeconds).toBe(1800);
  });

  it('links nothing past the window, across models, tools, system prompts or APIs, to an unanswered session, or for a repeated first request', () => {
    expect(continuedSession([candidate], request, 1_000_001 + window, window)).toBeUndefined();
    expect(continuedSession([{ ...candidate, model: 'other' }], request, 1_000_100, window)).toBeUndefined();
    expect(continuedSession([{ ...candidate, toolsKey: undefined }], request, 1_000_100, window)).toBeUndefined();
    expect(continuedSession([{ ...candidate, keys: [user('Q'), answer] }], request, 1_000_100, window)).toBeUndefined();
    expect(continuedSession([{ ...candidate, protocol: 'anthropic' }], request, 1_000_100, window)).toBeUndefined();
    expect(continuedSession([{ ...candidate, keys: [system, user('Q')] }], request, 1_000_100, window)).toBeUndefined();
    expect(continuedSession([candidate], { ...request, keys: [system, user('Q')] }, 1_000_100, window)).toBeUndefined();
    expect(continuedSession([{ ...candidate, lastEnded: undefined }], request, 1_000_100, window)).toBeUndefined();
  });
});
