// The fake provider server is stricter than the real ones: each rule it checks refuses a request
// that breaks it with a 400 in the provider's own envelope and words, lists it in `violations`,
// and serves nothing from its queue for it; every answer carries a request id.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, readFixtureJson, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer({ deepseekThinking: true, objectArguments: true });
});
afterEach(async () => {
  await server.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const anthropicHeaders = { 'anthropic-version': '2023-06-01' };
const call = { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } };
const use = { type: 'tool_use', id: 't1', name: 'f', input: {} };

describe('the fake server refuses what the APIs refuse', () => {
  const cases: Array<[string, string, unknown, Record<string, string>, RegExp]> = [
    ['chat: no messages', '/v1/chat/completions', { model: 'm', messages: [] }, {}, /at least one message/],
    ['chat: no model', '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] }, {}, /model: a model id is required/],
    [
      'chat: a tool call with no tool message',
      '/v1/chat/completions',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', tool_calls: [call], reasoning_content: '' },
          { role: 'user', content: 'and?' },
        ],
      },
      {},
      /did not have response messages: c1/,
    ],
    [
      'chat: a tool message with no call',
      '/v1/chat/completions',
      { model: 'm', messages: [{ role: 'tool', tool_call_id: 'x', content: 'r' }] },
      {},
      /preceeding message with 'tool_calls'/,
    ],
    [
      'chat (DeepSeek thinking): a tool call without its reasoning',
      '/v1/chat/completions',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', tool_calls: [call] },
          { role: 'tool', tool_call_id: 'c1', content: 'r' },
        ],
      },
      {},
      /reasoning_content` in the thinking mode must be passed back/,
    ],
    [
      'chat (Ollama): arguments that are not a JSON object',
      '/v1/chat/completions',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', reasoning_content: '', tool_calls: [{ ...call, function: { name: 'f', arguments: '"x"' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'r' },
        ],
      },
      {},
      /expected a JSON object/,
    ],
    [
      'chat: stream_options without stream',
      '/v1/chat/completions',
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } },
      {},
      /only allowed when 'stream' is true/,
    ],
    [
      'anthropic: no anthropic-version header',
      '/v1/messages',
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
      {},
      /anthropic-version: header is required/,
    ],
    [
      'anthropic: no max_tokens',
      '/v1/messages',
      { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      anthropicHeaders,
      /max_tokens: Field required/,
    ],
    ['anthropic: no messages', '/v1/messages', { model: 'm', max_tokens: 5, messages: [] }, anthropicHeaders, /at least one message/],
    [
      'anthropic: an assistant first',
      '/v1/messages',
      { model: 'm', max_tokens: 5, messages: [{ role: 'assistant', content: 'hi' }] },
      anthropicHeaders,
      /first message must use the "user" role/,
    ],
    [
      'anthropic: two user turns in a row',
      '/v1/messages',
      {
        model: 'm',
        max_tokens: 5,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
      anthropicHeaders,
      /roles must alternate/,
    ],
    [
      'anthropic: an empty text block',
      '/v1/messages',
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
      anthropicHeaders,
      /must be non-empty/,
    ],
    [
      'anthropic: a tool use without its result',
      '/v1/messages',
      {
        model: 'm',
        max_tokens: 5,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [use] },
          { role: 'user', content: 'b' },
        ],
      },
      anthropicHeaders,
      /ids were found without `tool_result` blocks immediately after: t1/,
    ],
    [
      'anthropic: a thinking block without its signature',
      '/v1/messages',
      {
        model: 'm',
        max_tokens: 5,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }] },
        ],
      },
      anthropicHeaders,
      /signature: Field required/,
    ],
    [
      'anthropic: five cache breakpoints',
      '/v1/messages',
      {
        model: 'm',
        max_tokens: 5,
        system: [1, 2, 3, 4, 5].map((n) => ({ type: 'text', text: `s${n}`, cache_control: { type: 'ephemeral' } })),
        messages: [{ role: 'user', content: 'a' }],
      },
      anthropicHeaders,
      /A maximum of 4 blocks with cache_control may be provided. Found 5/,
    ],
    ['responses: no input', '/v1/responses', { model: 'm', input: [] }, {}, /'input' must be a non-empty/],
    [
      'responses: a call with no output',
      '/v1/responses',
      { model: 'm', input: [{ type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }] },
      {},
      /No tool output found for function call c1/,
    ],
    [
      'responses: reasoning without its encrypted content when nothing is stored',
      '/v1/responses',
      {
        model: 'm',
        store: false,
        input: [
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { role: 'user', content: 'hi' },
        ],
      },
      {},
      /Items are not persisted when `store` is set to false/,
    ],
  ];
  for (const [label, path, body, headers, message] of cases) {
    it(`refuses ${label}`, async () => {
      server.enqueue({ type: 'json', body: readFixtureJson('openai-text') });
      const answer = await post(path, body, headers);
      expect(answer.status).toBe(400);
      const error = answer.body.error as { message: string; type: string };
      expect(error.type).toBe('invalid_request_error');
      expect(error.message).toMatch(message);
      if (path === '/v1/messages') expect(answer.body.type).toBe('error');
      expect(server.violations).toHaveLength(1);
      // The queued answer waits for a request that keeps the rules.
      expect(server.remaining()).toBe(1);
    });
  }

  it('takes a request that keeps every rule, and names each answer with a request id of its provider', async () => {
    server.enqueue({ type: 'json', body: readFixtureJson('openai-text') }, { type: 'json', body: readFixtureJson('anthropic-text') });
    const chat = await post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(200);
    expect(chat.headers.get('x-request-id')).toBe('req_fake_1');
    const messages = await post(
      '/v1/messages',
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
      anthropicHeaders,
    );
    expect(messages.status).toBe(200);
    expect(messages.headers.get('request-id')).toBe('req_fake_2');
    expect(server.violations).toEqual([]);
  });
});
