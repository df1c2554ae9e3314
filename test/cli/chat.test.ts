// `shadowlog chat` driven through piped standard input against the fake provider server.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { type FakeProviderServer, readFixtureChunks, readFixtureJson, startFakeProviderServer } from '../support/fake-provider-server.js';

const toolCall = (id: string, name: string, args: string) => [
  JSON.stringify({
    id: 'c',
    object: 'chat.completion.chunk',
    model: 'gpt-4.1-mini',
    choices: [
      {
        index: 0,
        delta: { role: 'assistant', tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }] },
        finish_reason: null,
      },
    ],
  }),
  JSON.stringify({
    id: 'c',
    object: 'chat.completion.chunk',
    model: 'gpt-4.1-mini',
    choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
  }),
];

describe('shadowlog chat', () => {
  let server: FakeProviderServer;
  let workspace: ReturnType<typeof createCliWorkspace>;
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
  beforeEach(async () => {
    server = await startFakeProviderServer();
    workspace = createCliWorkspace();
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
  });
  afterEach(async () => {
    await server.close();
    workspace.cleanup();
    if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
    if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
  });

  it('streams answers, runs file tools in the working directory, and answers /surface, /record and /replay', async () => {
    writeFileSync(join(workspace.cwd, 'notes.txt'), 'Remember the milk.');
    server.enqueue(
      { type: 'sse', payloads: toolCall('call_1', 'read_file', '{"path":"notes.txt"}') },
      { type: 'sse', payloads: readFixtureChunks('openai-text') },
    );
    const input = ['What do my notes say?', '/surface', '/record', '/replay 1 2', '/replay x', '/bogus', '/compact', '/quit', ''].join(
      '\n',
    );
    const result = await workspace.run(
      ['chat', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', `${server.baseUrl}/v1`, '--session', 'chat-1'],
      input,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('chatting with openai/gpt-4.1-mini in session chat-1');
    expect(result.stdout).toContain('[read_file {"path":"notes.txt"}]');
    expect(result.stdout).toContain('**Holiday Name:** Harmony Day');
    expect(result.stdout).toContain('surface of chat-1');
    expect(result.stdout).toContain('record of chat-1');
    expect(result.stdout).toMatch(/turn 1, step 2 \(event #\d+\): openai\/gpt-4\.1-mini/);
    expect(result.stdout).toContain('Remember the milk.');
    expect(result.stdout).toContain('shadowlog: USAGE: usage: /replay TURN [STEP]');
    expect(result.stdout).toContain('shadowlog: USAGE: unknown command /bogus');
    // Nothing outside the retained tail yet: a manual compaction says so and writes nothing.
    expect(result.stdout).toContain('nothing to compact');
    // The tool result went to the model in the second request.
    expect(server.requests[1]?.body).toContain('Remember the milk.');

    // The same session continues in a new lifecycle, counting turns on.
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-text') });
    const again = await workspace.run(
      ['chat', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', `${server.baseUrl}/v1`, '--session', 'chat-1'],
      'Hello again\n/replay 2\n',
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/turn 2, step 1/);
    expect((await workspace.run(['verify', 'chat-1'])).code).toBe(0);
  });

  it('reports a failed turn and goes on', async () => {
    // The first attempt and its two retries, each asked to wait a millisecond.
    const limited = {
      type: 'error',
      status: 429,
      headers: { 'retry-after-ms': '1' },
      body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    } as const;
    server.enqueue(limited, limited, limited);
    const result = await workspace.run(
      ['chat', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', `${server.baseUrl}/v1`],
      'Hi\n/quit\n',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\(turn 1 ended: error — .*Rate limit reached/);
  });

  it('chats with a local model the table does not know, its limits given on the command line, and replays its calls', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-text') });
    const args = ['--provider', 'openai', '--base-url', `${server.baseUrl}/v1`, '--model', 'qwen3-coder-local'];
    const limits = ['--context-window', '32768', '--max-output-tokens', '4096'];
    const result = await workspace.run(['chat', ...args, ...limits, '--session', 'local'], 'Hello\n/replay 1\n/quit\n');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('chatting with openai/qwen3-coder-local in session local');
    expect(result.stdout).toContain('model limits: context window 32768, output 4096 tokens, from the model options');
    // The default policy keeps no headroom, so it fits a 32k window as it is: nothing is chosen for the user.
    expect(result.stdout).not.toContain('compaction:');
    expect(result.stdout).toMatch(/turn 1, step 1 \(event #\d+\): openai\/qwen3-coder-local/);
    // The output flag is the model's budget and the reserve of each request.
    expect(JSON.parse(server.requests[0]?.body ?? '{}')).toMatchObject({ model: 'qwen3-coder-local', max_tokens: 4096 });
    expect((await workspace.run(['verify', 'local'])).code).toBe(0);

    // Without them it is refused, saying which flags and which file would do.
    const refused = await workspace.run(['chat', ...args], '');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /INVALID_CONFIG: no built-in limits for model "qwen3-coder-local".*--context-window and --max-output-tokens.*--model-limits FILE or SHADOWLOG_MODEL_LIMITS/,
    );
  });

  it('reads model limits from a file named by --model-limits or SHADOWLOG_MODEL_LIMITS, and says which entry it used', async () => {
    writeFileSync(
      join(workspace.cwd, 'limits.json'),
      JSON.stringify({ 'qwen3-coder': { contextWindow: 40_960, defaultMaxOutputTokens: 8_192 } }),
    );
    const args = ['chat', '--provider', 'openai', '--base-url', `${server.baseUrl}/v1`, '--model', 'qwen3-coder:30b'];
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-text') });
    const flagged = await workspace.run([...args, '--model-limits', 'limits.json'], 'Hi\n/quit\n');
    expect(flagged.stderr).toBe('');
    expect(flagged.stdout).toContain(
      'model limits: context window 40960, output 8192 tokens, from entry "qwen3-coder" of limits.json (matched by prefix)',
    );
    const saved = process.env.SHADOWLOG_MODEL_LIMITS;
    process.env.SHADOWLOG_MODEL_LIMITS = 'limits.json';
    try {
      server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-text') });
      const fromEnv = await workspace.run(args, 'Hi\n/quit\n');
      expect(fromEnv.stdout).toContain('from entry "qwen3-coder" of limits.json (matched by prefix)');
      process.env.SHADOWLOG_MODEL_LIMITS = 'missing.json';
      const missing = await workspace.run(args, '');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^shadowlog: USAGE: cannot read the model limits file missing\.json \(SHADOWLOG_MODEL_LIMITS\)/);
    } finally {
      if (saved === undefined) delete process.env.SHADOWLOG_MODEL_LIMITS;
      else process.env.SHADOWLOG_MODEL_LIMITS = saved;
    }
    writeFileSync(join(workspace.cwd, 'bad.json'), '{"qwen3": {"contextWindow": 0}}');
    const bad = await workspace.run([...args, '--model-limits', 'bad.json'], '');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/INVALID_CONFIG: bad\.json: entry "qwen3": contextWindow must be a positive integer of tokens, found 0/);
  });

  it('records the cache and reasoning tokens Anthropic reports, and stats shows the cache hit share', async () => {
    const answer = (usage: Record<string, number>, text: string) => [
      JSON.stringify({
        type: 'message_start',
        message: { id: 'msg_1', model: 'claude-sonnet-4-5', content: [], usage: { ...usage, output_tokens: 1 } },
      }),
      JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
      JSON.stringify({ type: 'content_block_stop', index: 0 }),
      JSON.stringify({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: 10, output_tokens_details: { thinking_tokens: 4 } },
      }),
      JSON.stringify({ type: 'message_stop' }),
    ];
    server.enqueue(
      { type: 'sse', payloads: answer({ input_tokens: 100, cache_creation_input_tokens: 900, cache_read_input_tokens: 0 }, 'One.') },
      { type: 'sse', payloads: answer({ input_tokens: 50, cache_creation_input_tokens: 100, cache_read_input_tokens: 900 }, 'Two.') },
    );
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const chat = ['chat', '--provider', 'anthropic', '--base-url', server.baseUrl, '--model', 'claude-sonnet-4-5', '--session', 'cached'];
      const result = await workspace.run(chat, 'First\nSecond\n/quit\n');
      expect(result.stderr).toBe('');
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
    const record = JSON.parse((await workspace.run(['show', 'cached', '--record', '--json'])).stdout) as {
      events: Array<{ type: string; data: { usage?: unknown } }>;
    };
    expect(record.events.filter((event) => event.type === 'assistant/message').map((event) => event.data.usage)).toEqual([
      { inputTokens: 1_000, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 900, reasoningTokens: 4 },
      { inputTokens: 1_050, outputTokens: 10, cacheReadTokens: 900, cacheWriteTokens: 100, reasoningTokens: 4 },
    ]);
    const stats = JSON.parse((await workspace.run(['stats', 'cached', '--json'])).stdout) as Record<string, unknown>;
    expect(stats).toMatchObject({
      reportedInputTokens: 2_050,
      cacheReadTokens: 900,
      cacheWriteTokens: 1_000,
      reasoningTokens: 8,
      cacheHitShare: 0.439,
    });
    const text = await workspace.run(['stats', 'cached']);
    expect(text.stdout).toContain(
      'prompt cache: 43.9 % of the input read from the cache (900 of 2,050 tokens, in the calls that reported it), 1,000 written',
    );
    expect(text.stdout).toContain('reasoning: 8 output tokens');
  });

  it('chats through the OpenAI Responses API, shows the reasoning in the record, and replays the call', async () => {
    // The recorded response, streamed as the API streams one: each output item done, then the response.
    const response = readFixtureJson('openai-responses-reasoning') as { output: unknown[] };
    server.enqueue({
      type: 'sse',
      payloads: [
        ...response.output.map((item, index) => JSON.stringify({ type: 'response.output_item.done', output_index: index, item })),
        JSON.stringify({ type: 'response.completed', response }),
      ],
    });
    const args = [
      'chat',
      '--provider',
      'openai-responses',
      '--base-url',
      `${server.baseUrl}/v1`,
      '--model',
      'gpt-5-mini',
      '--session',
      'responses',
    ];
    const result = await workspace.run(args, 'Compute it\n/record\n/replay 1\n/quit\n');
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('chatting with openai-responses/gpt-5-mini in session responses');
    expect(result.stdout).toContain('[reasoning by openai, 1572 chars of opaque data] **Reporting final result**');
    expect(result.stdout).toMatch(/turn 1, step 1 \(event #\d+\): openai-responses\/gpt-5-mini/);
    expect(server.requests[0]?.path).toBe('/v1/responses');
  });

  it('says which variable to set when the API key is missing, and what a bad provider is', async () => {
    const missing = await workspace.run(['chat', '--provider', 'openai', '--model', 'gpt-4.1'], '');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^shadowlog: PROVIDER_MISSING_API_KEY: .*OPENAI_API_KEY/);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    const bad = await workspace.run(['chat', '--provider', 'gemini', '--model', 'x'], '');
    expect(bad.code).toBe(2);
    const noModel = await workspace.run(['chat', '--provider', 'openai'], '');
    expect(noModel.code).toBe(2);
  });
});
