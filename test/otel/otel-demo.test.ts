// The "done when", through the command line: the demo session sent to a loopback OTLP
// receiver, in both protocols, checked span by span against the session's own record.

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';

interface RecordEvent {
  seq: number;
  type: string;
  surfaceOp?: unknown;
  data: Record<string, unknown> & {
    model?: string;
    usage?: { inputTokens: number };
    toolCalls?: Array<{ callId: string; name: string }>;
    content?: Array<{ type: string; text?: string }>;
  };
}

const SESSION = 'demo-otel';
const CONTENT_KEYS = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
];

describe('shadowlog otel on the demo session', () => {
  const workspace = createCliWorkspace();
  let receiver: OtlpReceiver;
  let events: RecordEvent[];

  beforeAll(async () => {
    const demo = await workspace.run(['demo', '--json', '--session', SESSION]);
    expect(demo.code).toBe(0);
    events = (JSON.parse((await workspace.run(['show', SESSION, '--record', '--json'])).stdout) as { events: RecordEvent[] }).events;
    receiver = await startOtlpReceiver();
  }, 60_000);
  afterAll(async () => {
    await receiver.close();
    workspace.cleanup();
  });
  afterEach(() => {
    receiver.requests.length = 0;
    receiver.answer(200);
    vi.unstubAllEnvs();
  });

  async function exportDemo(...extra: string[]): Promise<ReceivedSpan[]> {
    receiver.requests.length = 0;
    const result = await workspace.run(['otel', SESSION, '--endpoint', receiver.url, ...extra]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return receiver.spans();
  }

  const byId = (spans: ReceivedSpan[]) => new Map(spans.map((span) => [`${span.traceId}/${span.spanId}`, span]));

  it('sends a chat span per model call with its model and input tokens, execute_tool spans, the compactions and every parent', async () => {
    const spans = await exportDemo('--protocol', 'http/json');
    expect(receiver.requests.every((request) => request.path === '/v1/traces' && request.contentType.includes('application/json'))).toBe(
      true,
    );

    const requests = events.filter((event) => event.type === 'model/request');
    const answers = events.filter((event) => event.type === 'assistant/message' && event.surfaceOp === 'append');
    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(requests.length);
    for (const chat of chats) {
      const request = events[chat.attributes['shadowlog.seq.start'] as number] as RecordEvent;
      expect(request.type).toBe('model/request');
      expect(chat.name).toBe(`chat ${request.data.model}`);
      expect(chat.attributes['gen_ai.request.model']).toBe(request.data.model);
      expect(chat.kind).toBe(3); // CLIENT
      const answer = events[chat.attributes['shadowlog.answer.seq'] as number] as RecordEvent;
      expect(answers).toContain(answer);
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBe(answer.data.usage?.inputTokens);
      expect(chat.attributes['gen_ai.request.max_tokens']).toBe(512);
      // The conventions' flag for a call sent a compacted view: a summary or a pruned result on its surface.
      const surfaceSeqs = request.data.surfaceSeqs as number[] | undefined;
      if (surfaceSeqs !== undefined) {
        const compacted = surfaceSeqs.some((seq) => typeof events[seq]?.surfaceOp === 'object');
        expect(chat.attributes['gen_ai.conversation.compacted']).toBe(compacted);
      }
    }
    expect(chats.filter((chat) => chat.attributes['gen_ai.conversation.compacted'] === true).length).toBeGreaterThan(0);
    expect(chats[0]?.attributes['gen_ai.conversation.compacted']).toBe(false);

    const toolCalls = answers.flatMap((answer) => answer.data.toolCalls ?? []);
    const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((span) => span.attributes['gen_ai.tool.call.id']).sort()).toEqual(toolCalls.map((call) => call.callId).sort());
    for (const tool of tools) {
      const call = toolCalls.find((candidate) => candidate.callId === tool.attributes['gen_ai.tool.call.id']);
      expect(tool.attributes['gen_ai.tool.name']).toBe(call?.name);
      expect(tool.name).toBe(`execute_tool ${call?.name}`);
    }

    const compactionStarts = events.filter((event) => event.type === 'compaction/start');
    const compactions = spans.filter((span) => span.name.startsWith('compaction '));
    expect(compactions).toHaveLength(compactionStarts.length);
    expect(compactionStarts.length).toBeGreaterThanOrEqual(2);
    for (const compaction of compactions) {
      const summary = events.find(
        (event) => event.type === 'compaction/summary' && event.data.compactionId === compaction.attributes['shadowlog.compaction.id'],
      );
      expect(compaction.attributes['shadowlog.compaction.shadowed_seqs']).toEqual(summary?.data.shadowedSeqs);
      expect(compaction.attributes['shadowlog.compaction.tokens_before']).toBe(summary?.data.tokensBefore);
      expect(compaction.attributes['shadowlog.compaction.tokens_after']).toBe(summary?.data.tokensAfter);
      expect(compaction.attributes['shadowlog.compaction.trigger']).toBe('pressure');
    }
    const prunes = events.filter((event) => event.type === 'compaction/prune');
    expect(spans.filter((span) => span.name === 'prune').map((span) => span.attributes['shadowlog.prune.shadowed_seqs'])).toEqual(
      prunes.map((prune) => prune.data.shadowedSeqs),
    );

    const ids = byId(spans);
    expect(ids.size).toBe(spans.length);
    const roots = spans.filter((span) => span.parentSpanId === '');
    expect(roots.map((root) => root.name)).toEqual(['invoke_agent shadowlog']);
    for (const span of spans) {
      if (span.parentSpanId !== '') expect(ids.has(`${span.traceId}/${span.parentSpanId}`), `parent of ${span.name}`).toBe(true);
      expect(span.attributes['gen_ai.conversation.id']).toBe(SESSION);
      expect(span.endTimeUnixNano).toBeGreaterThanOrEqual(span.startTimeUnixNano);
    }
    expect(spans.filter((span) => span.name.startsWith('turn ')).length).toBe(events.filter((event) => event.type === 'turn/start').length);
    // Times come from the log.
    const first = events[0] as RecordEvent & { time?: string };
    expect(roots[0]?.startTimeUnixNano).toBe(BigInt(Date.parse((first as { time: string }).time)) * 1_000_000n);
  });

  it('sends no message content unless --content, and the content within --content-max-bytes', async () => {
    const texts = events
      .filter((event) => event.type === 'user/message' || event.type === 'system/message')
      .flatMap((event) => (event.data.content ?? []).map((block) => block.text ?? ''))
      .filter((text) => text.length > 20);
    expect(texts.length).toBeGreaterThan(3);

    const plain = await exportDemo('--protocol', 'http/json');
    const bodies = receiver.requests.map((request) => request.body.toString('utf8')).join('\n');
    for (const text of texts) expect(bodies.includes(text.slice(0, 40))).toBe(false);
    for (const span of plain) for (const key of CONTENT_KEYS) expect(span.attributes[key]).toBeUndefined();

    const full = await exportDemo('--protocol', 'http/json', '--content');
    const chats = full.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    const firstChat = chats.find((span) => span.attributes['shadowlog.turn'] === 1 && span.attributes['shadowlog.step'] === 1);
    const input = JSON.parse(firstChat?.attributes['gen_ai.input.messages'] as string) as Array<{
      role: string;
      parts: Array<{ content?: string }>;
    }>;
    expect(input[0]?.role).toBe('user');
    expect(input[0]?.parts[0]?.content).toBe('Give me a short overview of this project.');
    expect(JSON.parse(firstChat?.attributes['gen_ai.system_instructions'] as string)[0].content).toMatch(/^You are a coding agent/);
    expect(JSON.parse(firstChat?.attributes['gen_ai.output.messages'] as string)[0].role).toBe('assistant');
    const toolSpan = full.find((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(typeof toolSpan?.attributes['gen_ai.tool.call.result']).toBe('string');
    // The same spans, with content added.
    expect([...byId(full).keys()].sort()).toEqual([...byId(plain).keys()].sort());

    const bounded = await exportDemo('--protocol', 'http/json', '--content', '--content-max-bytes', '300');
    let truncated = 0;
    for (const span of bounded) {
      for (const key of CONTENT_KEYS) {
        const value = span.attributes[key];
        if (value !== undefined) expect(Buffer.byteLength(String(value))).toBeLessThanOrEqual(300);
      }
      if (span.attributes['shadowlog.content.truncated'] === true) truncated++;
    }
    expect(truncated).toBeGreaterThan(0);
  });

  it('gives the same ids and attributes on a second export, in either protocol', async () => {
    const first = byId(await exportDemo('--protocol', 'http/json'));
    const second = byId(await exportDemo('--protocol', 'http/json'));
    const protobuf = byId(await exportDemo());
    expect(receiver.requests.every((request) => request.contentType.includes('application/x-protobuf'))).toBe(true);
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    expect([...protobuf.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [id, span] of first) {
      expect(protobuf.get(id)?.attributes).toEqual(span.attributes);
      expect(protobuf.get(id)?.parentSpanId).toBe(span.parentSpanId);
      expect(protobuf.get(id)?.startTimeUnixNano).toBe(span.startTimeUnixNano);
      expect(protobuf.get(id)?.resource['service.name']).toBe('shadowlog');
    }
  });

  it('sends with --since only the spans that ended at or after the seq, the same spans as the full export', async () => {
    const full = byId(await exportDemo('--protocol', 'http/json'));
    const since = 50;
    const later = await exportDemo('--protocol', 'http/json', '--since', String(since));
    expect(later.length).toBeGreaterThan(0);
    expect(later.length).toBeLessThan(full.size);
    for (const span of later) {
      expect(span.attributes['shadowlog.seq.end'] as number).toBeGreaterThanOrEqual(since);
      expect(full.get(`${span.traceId}/${span.spanId}`)?.attributes).toEqual(span.attributes);
    }
    const expected = [...full.values()].filter((span) => (span.attributes['shadowlog.seq.end'] as number) >= since).length;
    expect(later).toHaveLength(expected);
  });

  it('adds the OpenInference attributes with --openinference', async () => {
    const spans = await exportDemo('--protocol', 'http/json', '--openinference');
    const kinds = new Set(spans.map((span) => span.attributes['openinference.span.kind']));
    expect([...kinds].sort()).toEqual(['AGENT', 'CHAIN', 'LLM', 'TOOL']);
    const chat = spans.find((span) => span.attributes['openinference.span.kind'] === 'LLM');
    expect(chat?.attributes['llm.model_name']).toBe('demo-script');
    expect(chat?.attributes['llm.token_count.total']).toBe(
      (chat?.attributes['llm.token_count.prompt'] as number) + (chat?.attributes['llm.token_count.completion'] as number),
    );
    expect(spans.every((span) => span.attributes['session.id'] === SESSION)).toBe(true);
    expect(spans.some((span) => 'input.value' in span.attributes)).toBe(false);
  });

  it('takes the endpoint, protocol and headers from the OTEL_EXPORTER_OTLP_* variables, and never prints the headers', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
    vi.stubEnv('OTEL_EXPORTER_OTLP_HEADERS', 'authorization=Bearer%20secret-token-123,x-team=audit');
    const result = await workspace.run(['otel', SESSION, '--json']);
    expect(result.code).toBe(0);
    expect(receiver.requests[0]?.contentType).toContain('application/json');
    expect(receiver.requests[0]?.headers.authorization).toBe('Bearer secret-token-123');
    expect(receiver.requests[0]?.headers['x-team']).toBe('audit');
    expect(result.stdout + result.stderr).not.toContain('secret-token');

    receiver.answer(401, 'bad credentials');
    const refused = await workspace.run(['otel', SESSION]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^shadowlog: OTLP_REFUSED: the collector at http:\/\/127\.0\.0\.1:\d+\/v1\/traces refused the spans: HTTP 401 .*bad credentials.*OTEL_EXPORTER_OTLP_HEADERS/,
    );
    expect(refused.stdout + refused.stderr).not.toContain('secret-token');
  });

  it('says clearly when the collector refuses (4xx, 5xx) or nothing listens, after its retries', async () => {
    receiver.answer(400, 'malformed');
    const bad = await workspace.run(['otel', SESSION, '--endpoint', receiver.url, '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr).error.code).toBe('OTLP_REFUSED');
    expect(receiver.requests).toHaveLength(1);

    receiver.requests.length = 0;
    receiver.answer(503, 'overloaded');
    vi.stubEnv('OTEL_EXPORTER_OTLP_TIMEOUT', '2500');
    const unavailable = await workspace.run(['otel', SESSION, '--endpoint', receiver.url]);
    expect(unavailable.code).toBe(1);
    expect(unavailable.stderr).toMatch(/OTLP_REFUSED: .*refused the spans with a retryable status \(429, 502, 503 or 504\)/);
    // 503 is retried (the exporter's backoff starts at about a second) until the timeout.
    expect(receiver.requests.length).toBeGreaterThan(1);

    const closed = await startOtlpReceiver();
    const closedUrl = closed.url;
    await closed.close();
    const unreachable = await workspace.run(['otel', SESSION, '--endpoint', closedUrl]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^shadowlog: OTLP_UNREACHABLE: no collector answered at http:\/\/127\.0\.0\.1:\d+\/v1\/traces \(ECONNREFUSED\)/,
    );
  }, 30_000);

  it('refuses bad usage before anything is sent', async () => {
    const cases: Array<[string[], string, RegExp]> = [
      [['otel', SESSION], 'INVALID_CONFIG', /no OTLP endpoint/],
      [['otel', SESSION, '--endpoint', 'grpc://127.0.0.1:4317'], 'INVALID_CONFIG', /http:\/\/ or https:\/\//],
      [['otel', SESSION, '--endpoint', 'not a url'], 'INVALID_CONFIG', /is not a URL/],
      [['otel', '--endpoint', receiver.url], 'USAGE', /session ids or --all/],
      [['otel', SESSION, '--endpoint', receiver.url, '--content-max-bytes', '1000'], 'USAGE', /give --content too/],
      [['otel', SESSION, '--endpoint', receiver.url, '--protocol', 'grpc'], 'USAGE', /grpc/],
      [['otel', 'no-such-session', '--endpoint', receiver.url], 'SESSION_NOT_FOUND', /no-such-session/],
    ];
    for (const [args, code, message] of cases) {
      const result = await workspace.run([...args, '--json']);
      expect(result.code, args.join(' ')).not.toBe(0);
      const error = JSON.parse(result.stderr).error as { code: string; message: string };
      expect(error.code, args.join(' ')).toBe(code);
      expect(error.message).toMatch(message);
    }
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc');
    const grpc = await workspace.run(['otel', SESSION, '--endpoint', receiver.url]);
    expect(grpc.code).toBe(2);
    expect(grpc.stderr).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json, found "grpc"/);
    vi.stubEnv('OTEL_EXPORTER_OTLP_HEADERS', 'authorization');
    const headers = await workspace.run(['otel', SESSION, '--endpoint', receiver.url, '--protocol', 'http/json']);
    expect(headers.code).toBe(2);
    expect(headers.stderr).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: entry 1 is not key=value/);
    expect(receiver.requests).toHaveLength(0);
  });
});
