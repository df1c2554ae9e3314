// Hostile provider answers, written out as each wire protocol carries them: the exact text the
// fake server sends, so that a test can compare what the log kept with what was said.

import type { FakeResponse } from '../../support/fake-provider-server.js';

export type Protocol = 'openai' | 'anthropic';
export type Transport = 'json' | 'sse';

export interface SentCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as the model wrote them (for Anthropic: the input's JSON text). */
  readonly args: string;
}

/** An answer: text, or tool calls. */
export interface Answer {
  readonly text?: string;
  readonly calls?: readonly SentCall[];
}

export interface Scenario {
  readonly name: string;
  /** Each turn's answers in order: one per model call. */
  readonly turns: readonly (readonly Answer[])[];
}

const probe = (id: string, args: string, name = 'probe'): SentCall => ({ id, name, args });
const done: Answer = { text: 'ok' };
const DEEP = `${'['.repeat(600)}${']'.repeat(600)}`;

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'every call answered with id call_0, turn after turn',
    turns: [1, 2, 3].map((turn) => [{ calls: [probe('call_0', `{"path":"file-${turn}"}`)] }, done]),
  },
  {
    name: 'one id repeated within an answer',
    turns: [[{ calls: [probe('dup', '{"a":1}'), probe('dup', '{"a":2}'), probe('dup', '{}')] }, done]],
  },
  { name: 'empty ids', turns: [[{ calls: [probe('', '{"a":1}'), probe('', '{"a":2}')] }, done]] },
  {
    name: 'numbers beyond a 64-bit float',
    turns: [[{ calls: [probe('c1', '{"size":1e400,"path":"a"}'), probe('c2', '[-1e999]')] }, done]],
  },
  { name: 'a JSON string literal', turns: [[{ calls: [probe('c1', '"README.md"')] }, done]] },
  {
    name: 'arguments that are not JSON',
    turns: [[{ calls: [probe('c1', '{path: a'), probe('c2', 'undefined'), probe('c3', '{"a":1}}')] }, done]],
  },
  {
    name: 'arguments that are JSON but not canonical',
    turns: [[{ calls: [probe('c1', '{"z": 1, "a": {"y": [1.0, 2e0], "x": "\\u00e9"}}'), probe('c2', '{"a":1,"a":2}')] }, done]],
  },
  { name: 'empty arguments', turns: [[{ calls: [probe('c1', ''), probe('c2', '   ')] }, done]] },
  { name: 'arguments nested 600 levels deep', turns: [[{ calls: [probe('c1', DEEP)] }, done]] },
  { name: 'a lone surrogate in the arguments', turns: [[{ calls: [probe('c1', '{"path":"\\ud800"}')] }, done]] },
  {
    name: 'everything at once',
    turns: [
      [
        { text: 'Let me look.', calls: [probe('call_0', '"x"'), probe('call_0', '{"n":1e400}'), probe('', '{bad'), probe('call_0', '')] },
        done,
      ],
      [{ calls: [probe('call_0', '{"path": "again"}')] }, done],
    ],
  },
  {
    name: 'a tool call without a name, then a normal turn',
    turns: [[{ text: 'Calling.', calls: [probe('c1', '{}', '')] }], [{ calls: [probe('c1', '{"path":"b"}')] }, done]],
  },
];

/** Is `text` JSON that JSON.parse reads (numbers beyond a float included)? */
export function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The JSON text of a call's input in an Anthropic answer. A JSON body can carry only JSON: text
 * that is not JSON is sent as a string; none is sent for blank arguments.
 */
export function anthropicInputText(call: SentCall, transport: Transport): string {
  if (transport === 'sse') return call.args;
  if (call.args.trim() === '') return '';
  return parsesAsJson(call.args) ? call.args : JSON.stringify(call.args);
}

/** The fake server's response for an answer, and the exact text it puts on the wire. */
export function responseFor(protocol: Protocol, transport: Transport, answer: Answer): { response: FakeResponse; wire: string } {
  if (transport === 'json') {
    const body = protocol === 'openai' ? openaiBody(answer) : anthropicBody(answer);
    return { response: { type: 'raw', body, contentType: 'application/json' }, wire: body };
  }
  const payloads = protocol === 'openai' ? openaiPayloads(answer) : anthropicPayloads(answer);
  const wire =
    protocol === 'openai'
      ? `${payloads.map((payload) => `data: ${payload}\n\n`).join('')}data: [DONE]\n\n`
      : payloads.map((payload) => `event: ${(JSON.parse(payload) as { type: string }).type}\ndata: ${payload}\n\n`).join('');
  return { response: { type: 'sse', payloads, chunkSizes: [5, 17, 64] }, wire };
}

function openaiBody(answer: Answer): string {
  const calls = answer.calls ?? [];
  const message = {
    role: 'assistant',
    content: answer.text ?? null,
    ...(calls.length === 0
      ? {}
      : { tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } })) }),
  };
  return JSON.stringify({
    id: 'chatcmpl-hostile',
    model: 'hostile-1',
    choices: [{ index: 0, message, finish_reason: calls.length === 0 ? 'stop' : 'tool_calls' }],
    usage: { prompt_tokens: 10, completion_tokens: 5 },
  });
}

function openaiPayloads(answer: Answer): string[] {
  const chunk = (delta: object, finishReason: string | null = null) =>
    JSON.stringify({ id: 'chatcmpl-hostile', model: 'hostile-1', choices: [{ index: 0, delta, finish_reason: finishReason }] });
  const calls = answer.calls ?? [];
  const payloads: string[] = [];
  if (answer.text !== undefined) payloads.push(chunk({ role: 'assistant', content: answer.text }));
  calls.forEach((call, index) => {
    const cut = Math.floor(call.args.length / 2);
    payloads.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.args.slice(0, cut) } }] }),
    );
    payloads.push(chunk({ tool_calls: [{ index, function: { arguments: call.args.slice(cut) } }] }));
  });
  payloads.push(chunk({}, calls.length === 0 ? 'stop' : 'tool_calls'));
  payloads.push(
    JSON.stringify({ id: 'chatcmpl-hostile', model: 'hostile-1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } }),
  );
  return payloads;
}

function anthropicBody(answer: Answer): string {
  const blocks: string[] = [];
  if (answer.text !== undefined) blocks.push(JSON.stringify({ type: 'text', text: answer.text }));
  for (const call of answer.calls ?? []) {
    const input = anthropicInputText(call, 'json');
    // Written by hand: JSON.stringify cannot write 1e400 or keep the input's own spelling.
    blocks.push(
      `{"type":"tool_use","id":${JSON.stringify(call.id)},"name":${JSON.stringify(call.name)}${input === '' ? '' : `,"input":${input}`}}`,
    );
  }
  const stop = (answer.calls ?? []).length === 0 ? 'end_turn' : 'tool_use';
  return `{"id":"msg_hostile","type":"message","role":"assistant","model":"hostile-1","content":[${blocks.join(',')}],"stop_reason":"${stop}","usage":{"input_tokens":10,"output_tokens":5}}`;
}

function anthropicPayloads(answer: Answer): string[] {
  const payloads = [
    JSON.stringify({ type: 'message_start', message: { model: 'hostile-1', usage: { input_tokens: 10, output_tokens: 1 } } }),
  ];
  let index = 0;
  if (answer.text !== undefined) {
    payloads.push(JSON.stringify({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    payloads.push(JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: answer.text } }));
    payloads.push(JSON.stringify({ type: 'content_block_stop', index }));
    index++;
  }
  for (const call of answer.calls ?? []) {
    payloads.push(
      JSON.stringify({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }),
    );
    const cut = Math.floor(call.args.length / 2);
    for (const piece of call.args === '' ? [] : [call.args.slice(0, cut), call.args.slice(cut)]) {
      payloads.push(JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
    }
    payloads.push(JSON.stringify({ type: 'content_block_stop', index }));
    index++;
  }
  const stop = (answer.calls ?? []).length === 0 ? 'end_turn' : 'tool_use';
  payloads.push(JSON.stringify({ type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 5 } }));
  payloads.push(JSON.stringify({ type: 'message_stop' }));
  return payloads;
}
