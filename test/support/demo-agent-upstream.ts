// The demo's scripted agent behind the OpenAI chat-completions wire, on 127.0.0.1: a fake
// provider (fake-provider-server.ts) whose every answer is computed from the request it gets,
// by the demo agent's own policy (src/cli/demo/demo-agent.ts), so that what it answers depends
// on what it was sent: a request that holds an original a compaction shadowed gets the answer
// that original gives. JSON or a stream, as the request asks.

import { demoAgentReply } from '../../src/cli/demo/demo-agent.js';
import type { ContentBlock, JsonValue } from '../../src/log/index.js';
import type { ModelMessage } from '../../src/providers/index.js';
import { type FakeProviderServer, type FakeResponse, type RecordedRequest, startFakeProviderServer } from './fake-provider-server.js';

export interface WireMessage {
  readonly role: string;
  readonly content?: string | ReadonlyArray<{ type: string; text?: string }> | null;
  readonly tool_calls?: ReadonlyArray<{ id: string; function: { name: string; arguments: string } }>;
  readonly tool_call_id?: string;
}

/** Starts the server; every request is answered, by the demo agent, for as long as it runs. */
export async function startDemoAgentUpstream(): Promise<FakeProviderServer> {
  const server = await startFakeProviderServer();
  const answer: FakeResponse = {
    type: 'computed',
    respond: (request) => {
      server.enqueue(answer);
      return demoAnswer(request);
    },
  };
  server.enqueue(answer);
  return server;
}

/** The demo agent's answer to a chat-completions request, in the wire form the request asks for. */
export function demoAnswer(request: RecordedRequest): FakeResponse {
  const body = JSON.parse(request.body) as {
    messages: WireMessage[];
    tools?: Array<{ function: { name: string } }>;
    stream?: boolean;
    model: string;
  };
  const messages = body.messages.map(modelMessageOf);
  const tools = (body.tools ?? []).map((tool) => ({ name: tool.function.name }));
  const reply = demoAgentReply({ messages, body: { tools }, index: 0 });
  const text = reply.text ?? '';
  const calls = (reply.toolCalls ?? []).map((call, index) => ({
    id: `call_fake_${index + 1}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  const usage = {
    prompt_tokens: Math.ceil(request.body.length / 4),
    completion_tokens: Math.ceil((text.length + JSON.stringify(calls).length) / 4),
  };
  const base = { id: 'chatcmpl-demo', created: 1, model: body.model };
  if (body.stream !== true) {
    return {
      type: 'json',
      body: {
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text === '' ? null : text, ...(calls.length === 0 ? {} : { tool_calls: calls }) },
            finish_reason: finish,
          },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      },
    };
  }
  const chunk = (delta: object, finishReason: string | null = null) =>
    JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
  return {
    type: 'sse',
    payloads: [
      chunk({ role: 'assistant', content: text }),
      ...calls.map((call, index) => chunk({ tool_calls: [{ index, ...call }] })),
      chunk({}, finish),
      JSON.stringify({
        ...base,
        object: 'chat.completion.chunk',
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
    ],
  };
}

export function modelMessageOf(message: WireMessage): ModelMessage {
  const content: ContentBlock[] = textsOf(message.content).map((text) => ({ type: 'text', text }));
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content,
        toolCalls: (message.tool_calls ?? []).map((call) => ({
          callId: call.id,
          name: call.function.name,
          arguments: JSON.parse(call.function.arguments || '{}') as JsonValue,
        })),
      };
    case 'tool':
      return { role: 'tool', callId: message.tool_call_id ?? '', content, isError: false };
    case 'system':
      return { role: 'system', content };
    default:
      return { role: 'user', content };
  }
}

function textsOf(content: WireMessage['content']): string[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [content];
  return content.flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : []));
}
