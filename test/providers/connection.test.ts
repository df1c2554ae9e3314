// Where the adapters connect and with which key: options, then the environment, then the
// official host, which alone requires a key.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/log/errors.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { LanguageModel, ModelRequest } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { type FakeProviderServer, readFixtureJson, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const HI: ModelRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], params: { tools: [], stream: false } };

function thrown(create: () => unknown): unknown {
  try {
    create();
  } catch (error) {
    return error;
  }
  return undefined;
}

async function sendOnce(model: LanguageModel, fixture: string) {
  server.enqueue({ type: 'json', body: readFixtureJson(fixture) });
  await model.send(model.render(HI));
  return server.requests.at(-1);
}

describe('API keys and base URLs', () => {
  it('refuses to talk to api.openai.com without a key, in one line naming the variable', () => {
    const error = thrown(() => createOpenAIChatModel({ model: 'gpt-4o', env: {} }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'missing-api-key', code: 'PROVIDER_MISSING_API_KEY', provider: 'openai' });
    expect((error as Error).message).toBe('no OpenAI API key: set OPENAI_API_KEY, or pass apiKey to createOpenAIChatModel');
    // The official host named explicitly still needs its key.
    expect(
      thrown(() =>
        createOpenAIChatModel({ model: 'gpt-4o', env: { OPENAI_BASE_URL: 'https://api.openai.com/v1/', OPENAI_API_KEY: '  ' } }),
      ),
    ).toMatchObject({
      kind: 'missing-api-key',
    });
  });

  it('refuses to talk to api.anthropic.com without a key, in one line naming the variable', () => {
    const error = thrown(() => createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', env: {} }));
    expect(error).toMatchObject({ kind: 'missing-api-key', provider: 'anthropic' });
    expect((error as Error).message).toBe('no Anthropic API key: set ANTHROPIC_API_KEY, or pass apiKey to createAnthropicMessagesModel');
  });

  it('talks to a local OpenAI-compatible server without a key and sends no Authorization header', async () => {
    const local = createOpenAIChatModel({
      model: 'qwen3:8b',
      baseUrl: `${server.baseUrl}/v1/`,
      env: {},
      contextWindow: 32_768,
      defaultMaxOutputTokens: 4_096,
    });
    const received = await sendOnce(local, 'openai-text');
    expect(received?.path).toBe('/v1/chat/completions');
    expect(received?.headers.authorization).toBeUndefined();
  });

  it('reads the key and the base URL from the environment when the options have none', async () => {
    const openai = createOpenAIChatModel({
      model: 'gpt-4o',
      env: { OPENAI_API_KEY: 'sk-from-env', OPENAI_BASE_URL: `${server.baseUrl}/v1` },
    });
    expect((await sendOnce(openai, 'openai-text'))?.headers.authorization).toBe('Bearer sk-from-env');
    const anthropic = createAnthropicMessagesModel({
      model: 'claude-haiku-4-5',
      env: { ANTHROPIC_API_KEY: 'sk-ant-env', ANTHROPIC_BASE_URL: server.baseUrl },
    });
    expect(await sendOnce(anthropic, 'anthropic-text')).toMatchObject({ path: '/v1/messages', headers: { 'x-api-key': 'sk-ant-env' } });
  });

  it('prefers the options to the environment', async () => {
    const openai = createOpenAIChatModel({
      model: 'gpt-4o',
      apiKey: 'sk-option',
      baseUrl: `${server.baseUrl}/v1`,
      env: { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    expect((await sendOnce(openai, 'openai-text'))?.headers.authorization).toBe('Bearer sk-option');
  });

  it('refuses a base URL that is not http or https', () => {
    for (const baseUrl of ['localhost:8080', 'ftp://example.com', 'not a url']) {
      expect(thrown(() => createOpenAIChatModel({ model: 'gpt-4o', baseUrl, env: {} }))).toBeInstanceOf(ConfigError);
    }
  });

  it('refuses timeouts that are not positive integers', () => {
    const error = thrown(() => createOpenAIChatModel({ model: 'gpt-4o', apiKey: 'k', env: {}, timeouts: { idleMs: 0 } }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe('timeouts.idleMs must be a positive integer of milliseconds, found 0');
  });
});
