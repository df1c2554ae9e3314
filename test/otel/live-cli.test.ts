// `shadowlog chat --otlp-endpoint`: the session is sent as it is recorded, with the ids a later
// `otel` export gives; with the collector not listening, the chat and its log are unaffected and
// the failure is told once on stderr.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { type FakeProviderServer, readFixtureChunks, startFakeProviderServer } from '../support/fake-provider-server.js';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.js';

const toolCall = (id: string, name: string, args: string) => [
  JSON.stringify({
    id: 'chatcmpl-tool',
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
    id: 'chatcmpl-tool',
    object: 'chat.completion.chunk',
    model: 'gpt-4.1-mini',
    choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
  }),
];

describe('shadowlog chat --otlp-endpoint', () => {
  let server: FakeProviderServer;
  let receiver: OtlpReceiver;
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(async () => {
    server = await startFakeProviderServer();
    receiver = await startOtlpReceiver();
    workspace = createCliWorkspace();
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', '');
  });
  afterEach(async () => {
    await server.close();
    await receiver.close();
    workspace.cleanup();
    vi.unstubAllEnvs();
  });

  const chat = (endpoint: string) => {
    writeFileSync(join(workspace.cwd, 'notes.txt'), 'Remember the milk.');
    server.enqueue(
      { type: 'sse', payloads: toolCall('call_1', 'read_file', '{"path":"notes.txt"}') },
      { type: 'sse', payloads: readFixtureChunks('openai-text') },
    );
    return workspace.run(
      [
        'chat',
        '--provider',
        'openai',
        '--model',
        'gpt-4.1-mini',
        '--base-url',
        `${server.baseUrl}/v1`,
        '--session',
        'live-chat',
        '--otlp-endpoint',
        endpoint,
      ],
      ['What do my notes say?', '/quit', ''].join('\n'),
    );
  };

  it('sends the chat as it is recorded, the same spans a later export sends', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
    const result = await chat(receiver.url);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const live = receiver.spans();
    expect(live.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat')).toHaveLength(2);
    const tool = live.find((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tool?.attributes['gen_ai.tool.name']).toBe('read_file');
    expect(tool?.attributes['gen_ai.tool.call.id']).toBe('call_1');
    const chatSpan = live.find((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chatSpan?.attributes['gen_ai.provider.name']).toBe('openai');
    expect(chatSpan?.attributes['gen_ai.response.id']).toBe('chatcmpl-tool');

    receiver.requests.length = 0;
    const exported = await workspace.run(['otel', 'live-chat', '--endpoint', receiver.url]);
    expect(exported.code).toBe(0);
    const later = receiver.spans();
    expect(later.map((span) => span.spanId).sort()).toEqual(live.map((span) => span.spanId).sort());
  });

  it('records the whole chat when the collector is not listening, and says so once', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_TIMEOUT', '300');
    const url = receiver.url;
    await receiver.close();
    receiver = await startOtlpReceiver();
    const result = await chat(url);
    expect(result.code).toBe(0);
    expect(result.stderr.match(/OTLP_UNREACHABLE/g)).toHaveLength(1);
    expect(result.stderr).toMatch(/the session's log is not affected/);
    expect(result.stderr).toMatch(/0 spans sent, \d+ not delivered/);
    const record = JSON.parse((await workspace.run(['show', 'live-chat', '--record', '--json'])).stdout) as {
      events: Array<{ type: string }>;
    };
    expect(record.events.filter((event) => event.type === 'assistant/message')).toHaveLength(2);
    expect(record.events.filter((event) => event.type === 'turn/end')).toHaveLength(1);
  });
});
