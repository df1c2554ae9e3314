// Error classification of both adapters through the fake server: each HTTP error class,
// each provider's real context-length error body, and the messages they produce.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { LanguageModel, ModelRequest } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import { ProviderError, type ProviderErrorKind } from '../../src/providers/provider-error.js';
import { type FakeProviderServer, type FakeResponse, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const ADAPTERS = {
  openai: () => createOpenAIChatModel({ model: 'gpt-4o', apiKey: 'sk-test', baseUrl: `${server.baseUrl}/v1`, env: {} }),
  anthropic: () => createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test', baseUrl: server.baseUrl, env: {} }),
};
const HI: ModelRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], params: { tools: [], stream: false } };

async function failWith(model: LanguageModel, response: FakeResponse, request: ModelRequest = HI): Promise<ProviderError> {
  server.enqueue(response);
  const error = await model.send(model.render(request)).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

const openAIError = (message: string, type: string, code: string | null = null) => ({ error: { message, type, param: null, code } });
const anthropicError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

describe('OpenAI errors', () => {
  const cases: [status: number, body: unknown, kind: ProviderErrorKind][] = [
    [
      401,
      openAIError(
        'Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.',
        'invalid_request_error',
        'invalid_api_key',
      ),
      'authentication',
    ],
    [403, openAIError('Project does not have access to model gpt-4o', 'invalid_request_error', 'model_not_found'), 'authentication'],
    [
      429,
      openAIError('Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000.', 'tokens', 'rate_limit_exceeded'),
      'rate-limit',
    ],
    [500, openAIError('The server had an error while processing your request. Sorry about that!', 'server_error'), 'server'],
    [503, openAIError('The engine is currently overloaded, please try again later', 'server_error'), 'server'],
    [
      400,
      openAIError("Invalid value for 'temperature': must be between 0 and 2.", 'invalid_request_error', 'invalid_value'),
      'invalid-request',
    ],
    [
      404,
      openAIError('The model `gpt-9` does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found'),
      'invalid-request',
    ],
    [408, 'request timed out', 'timeout'],
    [413, '', 'context-overflow'],
  ];
  for (const [status, body, kind] of cases) {
    it(`classifies HTTP ${status} as ${kind}`, async () => {
      const error = await failWith(ADAPTERS.openai(), { type: 'error', status, body });
      expect(error).toMatchObject({ kind, status, provider: 'openai', code: `PROVIDER_${kind.toUpperCase().replaceAll('-', '_')}` });
      if (typeof body === 'object') expect(error.message).toContain((body as ReturnType<typeof openAIError>).error.message);
    });
  }

  it("recognises OpenAI's context-window error in both wordings", async () => {
    const bodies = [
      openAIError(
        'Your input exceeds the context window of this model. Please adjust your input and try again.',
        'invalid_request_error',
        'context_length_exceeded',
      ),
      {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130012 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
    ];
    for (const body of bodies) {
      const error = await failWith(ADAPTERS.openai(), { type: 'error', status: 400, body });
      expect(error).toMatchObject({ kind: 'context-overflow', contextOverflow: true, retryable: false, status: 400 });
      expect(error.message).toBe(
        `OpenAI-compatible server at ${server.baseUrl}/v1: the request does not fit the model context window (HTTP 400, invalid_request_error, context_length_exceeded): ${body.error.message}; compact the session or send fewer tokens, then retry`,
      );
    }
  });

  it('says to wait and retry on a rate limit, with the Retry-After the server sent', async () => {
    const body = openAIError('Rate limit reached for requests', 'requests', 'rate_limit_exceeded');
    const error = await failWith(ADAPTERS.openai(), { type: 'error', status: 429, body, headers: { 'retry-after': '20' } });
    expect(error).toMatchObject({ kind: 'rate-limit', retryable: true });
    expect(error.message).toBe(
      `OpenAI-compatible server at ${server.baseUrl}/v1: rate limit reached (HTTP 429, requests, rate_limit_exceeded): Rate limit reached for requests; wait 20 s (Retry-After) and retry, or lower the request rate`,
    );
    const date = 'Wed, 21 Oct 2026 07:28:00 GMT';
    const later = await failWith(ADAPTERS.openai(), { type: 'error', status: 429, body, headers: { 'retry-after': date } });
    expect(later.message).toMatch(new RegExp(`; wait until ${date} \\(Retry-After\\) and retry, or lower the request rate$`));
  });

  it("reads the error bodies of OpenAI-compatible servers: Ollama's string, a proxy's HTML", async () => {
    const ollama = await failWith(ADAPTERS.openai(), {
      type: 'error',
      status: 404,
      body: { error: 'model "qwen9" not found, try pulling it first' },
    });
    expect(ollama.message).toContain('model "qwen9" not found, try pulling it first');
    const proxy = await failWith(ADAPTERS.openai(), { type: 'error', status: 502, body: '<html><body>502 Bad Gateway</body></html>' });
    expect(proxy).toMatchObject({ kind: 'server', status: 502 });
    expect(proxy.message).toContain('<html><body>502 Bad Gateway</body></html>');
  });

  it('classifies an error object inside a stream', async () => {
    const streamed: ModelRequest = { ...HI, params: { ...HI.params, stream: true } };
    const payloads = [
      JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error' } }),
    ];
    const error = await failWith(ADAPTERS.openai(), { type: 'sse', payloads }, streamed);
    expect(error).toMatchObject({ kind: 'server', status: undefined, retryable: true });
    expect(error.message).toContain('(error event in the stream, server_error): The server had an error while processing your request.');
    const overflow = [
      JSON.stringify(
        openAIError('Your input exceeds the context window of this model.', 'invalid_request_error', 'context_length_exceeded'),
      ),
    ];
    expect(await failWith(ADAPTERS.openai(), { type: 'sse', payloads: overflow }, streamed)).toMatchObject({ kind: 'context-overflow' });
  });
});

describe('Anthropic errors', () => {
  const cases: [status: number, type: string, message: string, kind: ProviderErrorKind][] = [
    [401, 'authentication_error', 'invalid x-api-key', 'authentication'],
    [403, 'permission_error', 'Your API key does not have permission to use the specified resource.', 'authentication'],
    [429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', 'rate-limit'],
    [500, 'api_error', 'Internal server error', 'server'],
    [529, 'overloaded_error', 'Overloaded', 'server'],
    [
      400,
      'invalid_request_error',
      'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
      'invalid-request',
    ],
    [404, 'not_found_error', 'model: claude-9', 'invalid-request'],
    [413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.', 'invalid-request'],
  ];
  for (const [status, type, message, kind] of cases) {
    it(`classifies HTTP ${status} ${type} as ${kind}`, async () => {
      const error = await failWith(ADAPTERS.anthropic(), { type: 'error', status, body: anthropicError(type, message) });
      expect(error).toMatchObject({ kind, status, provider: 'anthropic' });
      expect(error.message).toContain(`(HTTP ${status}, ${type}): ${message}; `);
    });
  }

  it("recognises Anthropic's context-window error", async () => {
    const body = anthropicError('invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum');
    const error = await failWith(ADAPTERS.anthropic(), { type: 'error', status: 400, body });
    expect(error).toMatchObject({ kind: 'context-overflow', contextOverflow: true, status: 400 });
    expect(error.message).toBe(
      `Anthropic-compatible server at ${server.baseUrl}: the request does not fit the model context window (HTTP 400, invalid_request_error): prompt is too long: 208310 tokens > 200000 maximum; compact the session or send fewer tokens, then retry`,
    );
  });

  it('says to wait and retry when overloaded, and marks it retryable', async () => {
    const error = await failWith(ADAPTERS.anthropic(), {
      type: 'error',
      status: 529,
      body: anthropicError('overloaded_error', 'Overloaded'),
    });
    expect(error).toMatchObject({ retryable: true, contextOverflow: false });
    expect(error.message).toMatch(/Overloaded; the provider may be overloaded; wait and retry$/);
  });
});

describe('both adapters', () => {
  for (const [name, create] of Object.entries(ADAPTERS)) {
    it(`${name}: a 200 whose body is not JSON is a malformed response`, async () => {
      const error = await failWith(create(), { type: 'raw', contentType: 'text/html', body: '<html>Welcome to nginx!</html>' });
      expect(error).toMatchObject({ kind: 'malformed-response', retryable: false });
      expect(error.message).toMatch(
        /found a body that is not JSON: "<html>Welcome to nginx!<\/html>"; check that the base URL points at an (OpenAI chat completions|Anthropic Messages) endpoint$/,
      );
    });

    it(`${name}: JSON without the fields of a response is a malformed response`, async () => {
      for (const body of [{ id: 'x' }, [1, 2], 'text', { choices: [{}] }]) {
        expect(await failWith(create(), { type: 'json', body })).toMatchObject({ kind: 'malformed-response' });
      }
    });

    it(`${name}: a stream event that is not JSON is a malformed response`, async () => {
      const streamed: ModelRequest = { ...HI, params: { ...HI.params, stream: true } };
      const error = await failWith(create(), { type: 'sse', payloads: ['{"type": "message_start", "trunc'] }, streamed);
      expect(error.kind).toBe('malformed-response');
      expect(error.message).toContain('a stream event that is not a JSON object: "{\\"type\\": \\"message_start\\", \\"trunc"');
    });

    it(`${name}: the fake server answers an unscripted request with a 500 that says so`, async () => {
      const model = create();
      const error = await model.send(model.render(HI)).catch((reason: unknown) => reason);
      expect(error).toMatchObject({ kind: 'server', status: 500 });
      expect((error as Error).message).toContain('fake provider server: no response queued for POST');
    });
  }
});
