// The AI SDK's provider-level prompt (LanguageModelV3Prompt) in shadowlog's terms: each message
// becomes the surface events it stands for, as the proxy reads a request's messages (a tool
// message with three results is three tool/result events), so that the proxy's matching rule
// and its keys apply unchanged. Each event remembers the prompt message (and part) it came from,
// so that a surface can be sent back to the provider with the app's own message objects.

import type { LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { ContentBlock, JsonValue } from '../log/event.js';
import type { ProxyMessage, ProxyToolCall } from '../proxy/proxy-message.js';
import { parsedArguments } from './tool-input.js';

/** Where in the prompt an event came from: the message, and for a tool result its part. */
export interface PromptOrigin {
  readonly message: number;
  readonly part?: number;
}

export interface ReadPrompt {
  readonly messages: readonly ProxyMessage[];
  readonly origins: readonly PromptOrigin[];
  /** What could not be mapped to content blocks, said in words (kept in the model/request). */
  readonly notes: readonly string[];
}

export function readPrompt(prompt: LanguageModelV3Prompt): ReadPrompt {
  const messages: ProxyMessage[] = [];
  const origins: PromptOrigin[] = [];
  const notes: string[] = [];
  prompt.forEach((message, index) => {
    for (const [part, read] of readMessage(message, notes, index)) {
      messages.push(read);
      origins.push(part === undefined ? { message: index } : { message: index, part });
    }
  });
  return { messages, origins, notes };
}

function readMessage(message: LanguageModelV3Message, notes: string[], index: number): Array<[number | undefined, ProxyMessage]> {
  switch (message.role) {
    case 'system':
      return [[undefined, { type: 'system/message', content: [{ type: 'text', text: message.content }] }]];
    case 'user':
      return [[undefined, { type: 'user/message', content: message.content.map((part) => blockOf(part, notes, index)) }]];
    case 'assistant': {
      const content: ContentBlock[] = [];
      const toolCalls: ProxyToolCall[] = [];
      for (const part of message.content) {
        if (part.type === 'text') content.push({ type: 'text', text: part.text });
        else if (part.type === 'reasoning') content.push({ type: 'reasoning', provider: 'ai-sdk', text: part.text });
        else if (part.type === 'tool-call') {
          toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: parsedArguments(part.input) });
        } else if (part.type === 'file') content.push(blockOf(part, notes, index));
        else notes.push(`message ${index}: a ${part.type} part of an assistant message is kept in the request body only`);
      }
      return [[undefined, { type: 'assistant/message', content, toolCalls }]];
    }
    case 'tool':
      return message.content.flatMap((part, partIndex): Array<[number, ProxyMessage]> => {
        if (part.type !== 'tool-result') {
          notes.push(`message ${index}: a ${part.type} part of a tool message is kept in the request body only`);
          return [];
        }
        const { content, error } = outputBlocks(part.output);
        return [[partIndex, { type: 'tool/result', callId: part.toolCallId, content, ...(error ? { error: true as const } : {}) }]];
      });
  }
}

type FileLike = { type: 'text'; text: string } | { type: 'file'; mediaType: string; data: unknown; filename?: string };

function blockOf(part: FileLike, notes: string[], index: number): ContentBlock {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const data = part.data;
  if (part.mediaType.startsWith('image/') && (typeof data === 'string' || data instanceof Uint8Array) && !isUrlText(data)) {
    return { type: 'image', mediaType: part.mediaType, data: typeof data === 'string' ? data : Buffer.from(data).toString('base64') };
  }
  const where = data instanceof URL ? data.href : typeof data === 'string' && isUrlText(data) ? data : `${byteLength(data)} bytes`;
  notes.push(`message ${index}: a ${part.mediaType} file (${where}) is recorded as a text placeholder; the request body holds it`);
  return { type: 'text', text: `[file ${part.filename ?? ''} ${part.mediaType}: ${where}]` };
}

function isUrlText(data: string | Uint8Array): boolean {
  return typeof data === 'string' && /^(https?|data):/i.test(data);
}

function byteLength(data: unknown): number {
  if (data instanceof Uint8Array) return data.length;
  if (typeof data === 'string') return Math.floor((data.length * 3) / 4);
  return 0;
}

/** A tool result's output as content blocks, and whether it is an error. */
export function outputBlocks(output: LanguageModelV3ToolResultOutput): { content: ContentBlock[]; error: boolean } {
  switch (output.type) {
    case 'text':
      return { content: [{ type: 'text', text: output.value }], error: false };
    case 'json':
      return { content: [{ type: 'text', text: JSON.stringify(output.value ?? null) }], error: false };
    case 'error-text':
      return { content: [{ type: 'text', text: output.value }], error: true };
    case 'error-json':
      return { content: [{ type: 'text', text: JSON.stringify(output.value ?? null) }], error: true };
    case 'execution-denied':
      return {
        content: [{ type: 'text', text: `execution denied${output.reason === undefined ? '' : `: ${output.reason}`}` }],
        error: true,
      };
    case 'content':
      return {
        content: output.value.map((item): ContentBlock => {
          if (item.type === 'text') return { type: 'text', text: item.text };
          if (item.type === 'file-data' && item.mediaType.startsWith('image/'))
            return { type: 'image', mediaType: item.mediaType, data: item.data };
          return { type: 'text', text: `[${item.type}]` };
        }),
        error: false,
      };
  }
}

export type { JsonValue };
