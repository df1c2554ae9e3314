// The fake provider server checked against the official clients: the openai and
// @anthropic-ai/sdk packages talk to it on loopback as they would to the real APIs. The fake
// takes their requests without a violation, they read its recorded answers (JSON and streams),
// its request ids, its refusals in each provider's error envelope, and the retry headers they
// honour. A fake that drifted from the wire formats would fail here, not in the adapters' tests.

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, readFixtureChunks, readFixtureJson, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const openai = (maxRetries = 0) => new OpenAI({ apiKey: 'sk-test', baseURL: `${server.baseUrl}/v1`, maxRetries });
const anthropic = (maxRetries = 0) => new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.baseUrl, maxRetries });

describe('the official OpenAI client against the fake server', () => {
  it('reads a chat completion and its request id', async () => {
    const fixture = readFixtureJson('openai-text') as { choices: [{ message: { content: string } }] };
    server.enqueue({ type: 'json', body: fixture });
    const completion = await openai().chat.completions.create({
      model: 'gpt-4.1-nano',
      messages: [{ role: 'user', content: 'Invent a holiday' }],
    });
    expect(completion.choices[0]?.message.content).toBe(fixture.choices[0].message.content);
    expect(completion._request_id).toBe('req_fake_1');
    expect(server.violations).toEqual([]);
  });

  it('reads a streamed tool call', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-tool-call') });
    const stream = await openai().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: {} } } }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) pieces.push(call.function?.arguments ?? '');
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(pieces.join('')).toBe('{}');
    expect(finish).toBe('tool_calls');
    expect(server.violations).toEqual([]);
  });

  it('reads a Responses API stream and a response with reasoning', async () => {
    server.enqueue(
      { type: 'sse', payloads: readFixtureChunks('openai-responses-text') },
      { type: 'json', body: readFixtureJson('openai-responses-reasoning') },
    );
    const stream = await openai().responses.create({ model: 'gpt-4o-mini', input: 'Say OK', stream: true });
    const deltas: string[] = [];
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas.push(event.delta);
    expect(deltas).toEqual(['OK']);
    const response = await openai().responses.create({
      model: 'gpt-5-mini',
      input: [{ role: 'user', content: 'Compute' }],
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    expect(response.output_text).toBe('12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570');
    expect(response.output[0]?.type).toBe('reasoning');
    expect(server.violations).toEqual([]);
  });

  it("reads the fake's refusal of a bad request as the API's error, and retries a 429 as the fake asks", async () => {
    const refused = await openai()
      .chat.completions.create({ model: 'gpt-4o', messages: [] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/'messages' must contain at least one message/);
    expect(server.violations).toHaveLength(1);

    const limited = {
      type: 'error',
      status: 429,
      headers: { 'retry-after-ms': '1' },
      body: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    } as const;
    server.enqueue(limited, { type: 'json', body: readFixtureJson('openai-text') });
    const before = server.requests.length;
    await openai(2).chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'Hi' }] });
    expect(server.requests.length - before).toBe(2);
  });
});

describe('the official Anthropic client against the fake server', () => {
  it('reads a message and its request id, and sends the anthropic-version header the fake requires', async () => {
    server.enqueue({ type: 'json', body: readFixtureJson('anthropic-text') });
    const message = await anthropic().messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 1_024,
      messages: [{ role: 'user', content: 'Hello, how are you?' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Hello! I'm doing well/) });
    expect(message._request_id).toBe('req_fake_1');
    expect(server.requests[0]?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(server.violations).toEqual([]);
  });

  it('assembles a recorded thinking stream with its signature', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('anthropic-thinking') });
    const message = await anthropic()
      .messages.stream({
        model: 'claude-sonnet-5',
        max_tokens: 4_096,
        thinking: { type: 'enabled', budget_tokens: 2_048 },
        messages: [{ role: 'user', content: 'GCD of 1071 and 462?' }],
      })
      .finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^EsECCokB/) });
    expect(server.violations).toEqual([]);
  });

  it('sends a thinking tool loop the fake takes, and gets the fake refusing one that drops the thinking', async () => {
    const thinking = readFixtureJson('anthropic-thinking-tool') as { content: [{ thinking: string; signature: string }, { id: string }] };
    const history = (withThinking: boolean): Anthropic.MessageParam[] => [
      { role: 'user', content: 'Check the sandbox.' },
      {
        role: 'assistant',
        content: [
          ...(withThinking
            ? [{ type: 'thinking' as const, thinking: thinking.content[0].thinking, signature: thinking.content[0].signature }]
            : []),
          { type: 'tool_use', id: thinking.content[1].id, name: 'checkSandboxErrors', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: thinking.content[1].id, content: 'no errors' }] },
    ];
    const request = (withThinking: boolean) =>
      anthropic().messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 4_096,
        thinking: { type: 'enabled', budget_tokens: 2_048 },
        tools: [{ name: 'checkSandboxErrors', input_schema: { type: 'object', properties: {} } }],
        messages: history(withThinking),
      });
    server.enqueue({ type: 'json', body: readFixtureJson('anthropic-text') });
    await request(true);
    expect(server.violations).toEqual([]);
    const refused = await request(false).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/Expected `thinking` or `redacted_thinking`/);
  });

  it('retries a 529 with retry-after as the fake asks', async () => {
    server.enqueue(
      {
        type: 'error',
        status: 529,
        headers: { 'retry-after-ms': '1' },
        body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      },
      { type: 'json', body: readFixtureJson('anthropic-text') },
    );
    const message = await anthropic(2).messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 1_024,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.stop_reason).toBe('end_turn');
    expect(server.requests).toHaveLength(2);
  });
});
