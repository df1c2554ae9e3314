// Codex's response items (the OpenAI Responses API's input and output items, as Codex records
// them) in shadowlog's terms: message content as text and image blocks, reasoning (summary,
// reasoning text, encrypted content) as reasoning blocks, web_search_call as a server tool call,
// function, custom and local shell calls as tool calls, their outputs as tool results.

import { type ContentBlock, imageBlockFromUrl } from '../../log/content-block.js';
import type { JsonValue, Usage } from '../../log/event.js';
import { argumentsFromText } from '../../providers/tool-arguments.js';
import type { SourceToolCall } from '../imported-call.js';
import type { MappingNotes } from '../session-builder.js';
import { arrayOf, countOf, objectOf, type SourceObject, stringOf } from '../source-values.js';

const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** The items a model call outputs. */
export const OUTPUT_ITEM_TYPES = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);

export function isOutputItem(item: SourceObject): boolean {
  return OUTPUT_ITEM_TYPES.has(String(item.type)) || (item.type === 'message' && item.role === 'assistant');
}

/** A message's content parts: input_text, output_text, input_image (by URL, or data: URL). */
export function codexContent(parts: unknown, line: number, builder: MappingNotes, where = 'content'): ContentBlock[] {
  if (typeof parts === 'string') return [{ type: 'text', text: parts }];
  const blocks: ContentBlock[] = [];
  for (const [index, item] of arrayOf(parts).entries()) {
    const part = objectOf(item);
    const text = stringOf(part?.text);
    const url = stringOf(part?.image_url);
    if ((part?.type === 'input_text' || part?.type === 'output_text' || part?.type === 'text') && text !== undefined) {
      blocks.push({ type: 'text', text });
    } else if (part?.type === 'input_image' && url !== undefined && URL_SCHEME.test(url)) {
      blocks.push(imageBlockFromUrl(url));
    } else {
      const found = part?.type === 'input_image' ? 'an input_image whose image_url is not a URL' : `type ${JSON.stringify(part?.type)}`;
      builder.note(line, `${where} part ${index} (${found}) is not one shadowlog maps; it is left out`);
    }
  }
  return blocks;
}

/** An output item as assistant content (reasoning, message text, a server tool), or undefined for a tool call. */
export function outputContent(item: SourceObject, provider: string, line: number, builder: MappingNotes): ContentBlock[] {
  switch (item.type) {
    case 'message':
      return codexContent(item.content, line, builder);
    case 'reasoning': {
      const summary = arrayOf(item.summary).flatMap((part) => stringOf(objectOf(part)?.text) ?? []);
      const text = arrayOf(item.content).flatMap((part) => stringOf(objectOf(part)?.text) ?? []);
      const data = stringOf(item.encrypted_content);
      const id = stringOf(item.id);
      return [
        {
          type: 'reasoning',
          provider,
          ...(Array.isArray(item.summary) ? { summary } : {}),
          ...(text.length === 0 ? {} : { text: text.join('\n') }),
          ...(data === undefined ? {} : { data }),
          ...(id === undefined ? {} : { id }),
        },
      ];
    }
    case 'web_search_call': {
      const id = stringOf(item.id);
      const status = stringOf(item.status);
      return [
        {
          type: 'server-tool-call',
          provider,
          name: 'web_search',
          input: (item.action ?? {}) as JsonValue,
          ...(id === undefined ? {} : { id }),
          ...(status === undefined ? {} : { status }),
        },
      ];
    }
    default:
      return [];
  }
}

/** A tool call item (function_call, custom_tool_call, local_shell_call); undefined for any other item. */
export function toolCallOf(item: SourceObject): SourceToolCall | undefined {
  const id = stringOf(item.call_id) ?? stringOf(item.id) ?? '';
  switch (item.type) {
    case 'function_call': {
      const name = stringOf(item.name);
      if (name === undefined || name === '') return undefined;
      const text = stringOf(item.arguments);
      return text === undefined
        ? { id, name, arguments: (item.arguments ?? {}) as JsonValue }
        : { id, name, ...argumentsFromText(text, 'text') };
    }
    case 'custom_tool_call': {
      const name = stringOf(item.name);
      const input = stringOf(item.input) ?? '';
      return name === undefined || name === '' ? undefined : { id, name, arguments: input, argumentsText: input };
    }
    case 'local_shell_call':
      return { id, name: 'local_shell', arguments: (item.action ?? {}) as JsonValue };
    default:
      return undefined;
  }
}

/** A tool output's content and error flag: a string, `{content, success}`, or content items. */
export function toolOutput(output: unknown, line: number, builder: MappingNotes): { content: ContentBlock[]; error?: true } {
  if (typeof output === 'string') return { content: [{ type: 'text', text: output }] };
  const object = objectOf(output);
  if (object !== undefined && 'content' in object) {
    return {
      content: codexContent(object.content, line, builder, 'output'),
      ...(object.success === false ? { error: true as const } : {}),
    };
  }
  return { content: codexContent(output, line, builder, 'output') };
}

/** token_count's last_token_usage: input_tokens already holds the cached part; output_tokens the reasoning. */
export function codexUsage(info: SourceObject | undefined): Usage | undefined {
  const last = objectOf(info?.last_token_usage);
  const input = countOf(last?.input_tokens);
  const output = countOf(last?.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const cached = countOf(last?.cached_input_tokens);
  const reasoning = countOf(last?.reasoning_output_tokens);
  return {
    inputTokens: input,
    outputTokens: output,
    ...(cached === undefined ? {} : { cacheReadTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}
