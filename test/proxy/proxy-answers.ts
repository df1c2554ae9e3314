// Answers in each API's wire format, for the fake upstream to serve: a text answer or a tool
// call, as a JSON body or as the event stream the real API sends for it.

import type { FakeResponse } from '../support/fake-provider-server.js';

export type Api = 'openai' | 'responses' | 'anthropic';
export type Answer =
  | { readonly text: string }
  | { readonly tool: { readonly id: string; readonly name: string; readonly arguments: object } };

const usage = { input: 20, output: 5 };

export function answerJson(api: Api, answer: Answer, index = 1): FakeResponse {
  return { type: 'json', body: jsonBody(api, answer, index) };
}

export function answerStream(api: Api, answer: Answer, index = 1, chunkSizes: readonly number[] = [7, 13, 29]): FakeResponse {
  return { type: 'sse', payloads: streamPayloads(api, answer, index).map((payload) => JSON.stringify(payload)), chunkSizes };
}

function jsonBody(api: Api, answer: Answer, index: number): object {
  switch (api) {
    case 'openai':
      return {
        id: `chatcmpl-${index}`,
        object: 'chat.completion',
        created: 1_700_000_000 + index,
        model: 'gpt-4o-2024-08-06',
        choices: [
          {
            index: 0,
            message:
              'text' in answer
                ? { role: 'assistant', content: answer.text, refusal: null }
                : {
                    role: 'assistant',
                    content: null,
                    refusal: null,
                    tool_calls: [
                      {
                        id: answer.tool.id,
                        type: 'function',
                        function: { name: answer.tool.name, arguments: JSON.stringify(answer.tool.arguments) },
                      },
                    ],
                  },
            finish_reason: 'text' in answer ? 'stop' : 'tool_calls',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
      };
    case 'anthropic':
      return {
        id: `msg_${index}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content:
          'text' in answer
            ? [{ type: 'text', text: answer.text }]
            : [
                { type: 'text', text: 'Let me look.' },
                { type: 'tool_use', id: answer.tool.id, name: answer.tool.name, input: answer.tool.arguments },
              ],
        stop_reason: 'text' in answer ? 'end_turn' : 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      };
    case 'responses':
      return responseObject(answer, index, 'completed');
  }
}

function responseObject(answer: Answer, index: number, status: string): object {
  return {
    id: `resp_${index}`,
    object: 'response',
    created_at: 1_700_000_000 + index,
    status,
    model: 'gpt-4.1-2025-04-14',
    output: [outputItem(answer, index)],
    usage: { input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

function outputItem(answer: Answer, index: number): object {
  return 'text' in answer
    ? {
        type: 'message',
        id: `msg_${index}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: answer.text, annotations: [] }],
      }
    : {
        type: 'function_call',
        id: `fc_${index}`,
        call_id: answer.tool.id,
        name: answer.tool.name,
        arguments: JSON.stringify(answer.tool.arguments),
        status: 'completed',
      };
}

function streamPayloads(api: Api, answer: Answer, index: number): object[] {
  switch (api) {
    case 'openai': {
      const base = { id: `chatcmpl-${index}`, object: 'chat.completion.chunk', created: 1_700_000_000 + index, model: 'gpt-4o-2024-08-06' };
      const deltas =
        'text' in answer
          ? [{ role: 'assistant', content: '' }, ...splitText(answer.text).map((content) => ({ content }))]
          : [
              {
                role: 'assistant',
                content: null,
                tool_calls: [{ index: 0, id: answer.tool.id, type: 'function', function: { name: answer.tool.name, arguments: '' } }],
              },
              ...splitText(JSON.stringify(answer.tool.arguments)).map((piece) => ({
                tool_calls: [{ index: 0, function: { arguments: piece } }],
              })),
            ];
      return [
        ...deltas.map((delta) => ({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })),
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'text' in answer ? 'stop' : 'tool_calls' }] },
        {
          ...base,
          choices: [],
          usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
        },
      ];
    }
    case 'anthropic': {
      const message = jsonBody('anthropic', answer, index) as { content: Array<Record<string, unknown>>; stop_reason: string };
      const events: object[] = [
        {
          type: 'message_start',
          message: { ...message, content: [], stop_reason: null, usage: { input_tokens: usage.input, output_tokens: 1 } },
        },
      ];
      message.content.forEach((block, position) => {
        if (block.type === 'text') {
          events.push({ type: 'content_block_start', index: position, content_block: { type: 'text', text: '' } });
          for (const text of splitText(String(block.text)))
            events.push({ type: 'content_block_delta', index: position, delta: { type: 'text_delta', text } });
        } else {
          events.push({ type: 'content_block_start', index: position, content_block: { ...block, input: {} } });
          for (const partial_json of splitText(JSON.stringify(block.input)))
            events.push({ type: 'content_block_delta', index: position, delta: { type: 'input_json_delta', partial_json } });
        }
        events.push({ type: 'content_block_stop', index: position });
      });
      events.push({
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: usage.output },
      });
      events.push({ type: 'message_stop' });
      return events;
    }
    case 'responses': {
      const item = outputItem(answer, index);
      const inProgress = responseObject(answer, index, 'in_progress') as Record<string, unknown>;
      const events: object[] = [
        { type: 'response.created', sequence_number: 0, response: { ...inProgress, output: [] } },
        { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item },
      ];
      if ('text' in answer)
        for (const delta of splitText(answer.text))
          events.push({
            type: 'response.output_text.delta',
            sequence_number: events.length,
            item_id: `msg_${index}`,
            output_index: 0,
            content_index: 0,
            delta,
          });
      events.push({ type: 'response.output_item.done', sequence_number: events.length, output_index: 0, item });
      events.push({ type: 'response.completed', sequence_number: events.length, response: responseObject(answer, index, 'completed') });
      return events;
    }
  }
}

function splitText(text: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += 5) pieces.push(text.slice(start, start + 5));
  return pieces.length === 0 ? [''] : pieces;
}
