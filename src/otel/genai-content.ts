// Message content in the GenAI conventions' JSON shapes (gen_ai.input.messages,
// gen_ai.output.messages, gen_ai.system_instructions): a list of {role, parts} whose parts are
// text, tool calls, tool call responses, reasoning, and media. Sent only when asked (--content),
// and bounded: a value over its byte budget has its strings cut (each cut says how much it left
// out) and then its oldest messages dropped, and the span says it was truncated.

import type { ContentBlock, JsonObject, ToolCall } from '../log/index.js';

export type GenAiPart = JsonObject & { readonly type: string };

export interface GenAiMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly parts: GenAiPart[];
  readonly finish_reason?: string;
}

/** The parts of a message's content blocks. */
export function partsOfBlocks(blocks: readonly ContentBlock[]): GenAiPart[] {
  return blocks.map(partOfBlock);
}

function partOfBlock(block: ContentBlock): GenAiPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: block.text };
    case 'image':
      return block.url === undefined
        ? { type: 'blob', modality: 'image', mime_type: block.mediaType, content: block.data }
        : { type: 'uri', modality: 'image', uri: block.url, ...(block.mediaType === undefined ? {} : { mime_type: block.mediaType }) };
    case 'reasoning':
      return { type: 'reasoning', content: block.text ?? (block.summary ?? []).join('\n') };
    case 'server-tool-call':
      return {
        type: 'server_tool_call',
        name: block.name,
        server_tool_call: block.input,
        ...(block.id === undefined ? {} : { id: block.id }),
      };
    case 'server-tool-result':
      return { type: 'server_tool_call_response', name: block.name, server_tool_call_response: block.content };
    case 'compaction':
      return { type: 'compaction', content: block.text ?? '' };
  }
}

/** An assistant message's tool calls as tool_call parts. */
export function partsOfToolCalls(toolCalls: readonly ToolCall[]): GenAiPart[] {
  return toolCalls.map((call) => ({ type: 'tool_call', id: call.callId, name: call.name, arguments: call.arguments }));
}

/** A value's JSON within `maxBytes` (UTF-8), cut as the module says; `truncated` when anything was cut or dropped. */
export function boundedJson(messages: readonly unknown[], maxBytes: number): { readonly json: string; readonly truncated: boolean } {
  let json = JSON.stringify(messages);
  if (Buffer.byteLength(json) <= maxBytes) return { json, truncated: false };
  let cap = maxBytes;
  let kept = [...messages];
  while (cap > 64) {
    cap = Math.floor(cap / 2);
    json = JSON.stringify(kept.map((message) => capStrings(message, cap)));
    if (Buffer.byteLength(json) <= maxBytes) return { json, truncated: true };
  }
  while (kept.length > 1) {
    kept = kept.slice(1);
    json = JSON.stringify(kept.map((message) => capStrings(message, cap)));
    if (Buffer.byteLength(json) <= maxBytes) return { json, truncated: true };
  }
  return { json: '[]', truncated: true };
}

function capStrings(value: unknown, cap: number): unknown {
  if (typeof value === 'string') return capString(value, cap);
  if (Array.isArray(value)) return value.map((item) => capStrings(item, cap));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, capStrings(item, cap)]));
  }
  return value;
}

/** The string's first code points within `cap` UTF-8 bytes, and how many bytes were left out. */
export function capString(text: string, cap: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= cap) return text;
  let used = 0;
  let end = 0;
  for (const character of text) {
    const size = Buffer.byteLength(character);
    if (used + size > cap) break;
    used += size;
    end += character.length;
  }
  return `${text.slice(0, end)}… [${bytes - used} bytes left out]`;
}
