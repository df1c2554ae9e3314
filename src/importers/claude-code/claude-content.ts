// Claude Code's message content (the Anthropic Messages API's blocks) in shadowlog's: text,
// images (base64 or URL), thinking and redacted thinking as reasoning, tool_use as tool calls,
// the server's own tools as server-tool blocks; message.usage as shadowlog's usage. A block
// shadowlog does not map is reported; its line keeps it.

import { type ContentBlock, imageBlockFromUrl, isBase64 } from '../../log/content-block.js';
import type { JsonValue, Usage } from '../../log/event.js';
import { argumentsFromValue } from '../../providers/tool-arguments.js';
import type { SourceToolCall } from '../imported-call.js';
import type { MappingNotes } from '../session-builder.js';
import { arrayOf, countOf, objectOf, type SourceObject, stringOf } from '../source-values.js';

const PROVIDER = 'anthropic';

/** Text and image blocks (a user message, a tool result); a string is one text block. */
export function claudeContent(content: unknown, line: number, builder: MappingNotes, where = 'content'): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const blocks: ContentBlock[] = [];
  for (const [index, item] of arrayOf(content).entries()) {
    const block = objectOf(item);
    const mapped = block === undefined ? undefined : plainBlock(block);
    if (mapped !== undefined) blocks.push(mapped);
    else builder.note(line, `${where} block ${index} (${describe(block)}) is not a block shadowlog maps; it is left out`);
  }
  return blocks;
}

function plainBlock(block: SourceObject): ContentBlock | undefined {
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.type !== 'image') return undefined;
  const source = objectOf(block.source);
  const mediaType = stringOf(source?.media_type);
  if (source?.type === 'base64' && isBase64(source.data) && mediaType !== undefined && mediaType !== '') {
    return { type: 'image', mediaType, data: source.data };
  }
  const url = stringOf(source?.url);
  if (source?.type === 'url' && url !== undefined && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) return imageBlockFromUrl(url);
  return undefined;
}

/** An assistant message's blocks: its content and its tool calls. */
export function claudeAssistantContent(
  blocks: readonly unknown[],
  line: number,
  builder: MappingNotes,
): { content: ContentBlock[]; toolCalls: SourceToolCall[] } {
  const content: ContentBlock[] = [];
  const toolCalls: SourceToolCall[] = [];
  for (const [index, item] of blocks.entries()) {
    const block = objectOf(item);
    const type = stringOf(block?.type);
    if (block === undefined || type === undefined) {
      builder.note(line, `content block ${index} is not a block; it is left out`);
      continue;
    }
    if (type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string' && block.name !== '') {
      toolCalls.push({ id: block.id, name: block.name, ...argumentsFromValue(block.input ?? {}, () => undefined) });
      continue;
    }
    const mapped = assistantBlock(type, block);
    if (mapped !== undefined) content.push(mapped);
    else builder.note(line, `content block ${index} (${describe(block)}) is not a block shadowlog maps; it is left out`);
  }
  return { content, toolCalls };
}

function assistantBlock(type: string, block: SourceObject): ContentBlock | undefined {
  switch (type) {
    case 'thinking': {
      const signature = stringOf(block.signature);
      return {
        type: 'reasoning',
        provider: PROVIDER,
        text: stringOf(block.thinking) ?? '',
        ...(signature === undefined ? {} : { signature }),
      };
    }
    case 'redacted_thinking':
      return typeof block.data === 'string' ? { type: 'reasoning', provider: PROVIDER, data: block.data } : undefined;
    case 'server_tool_use':
      if (typeof block.name !== 'string' || block.name === '') return undefined;
      return {
        type: 'server-tool-call',
        provider: PROVIDER,
        name: block.name,
        input: (block.input ?? {}) as JsonValue,
        ...(typeof block.id === 'string' ? { id: block.id } : {}),
      };
    default:
      // The server tools' results: web_search_tool_result, web_fetch_tool_result, code_execution_tool_result, …
      if (type.endsWith('_tool_result')) {
        return {
          type: 'server-tool-result',
          provider: PROVIDER,
          name: type,
          content: (block.content ?? null) as JsonValue,
          ...(typeof block.tool_use_id === 'string' ? { callId: block.tool_use_id } : {}),
        };
      }
      return plainBlock(block);
  }
}

/** message.usage: input_tokens is the uncached part; the whole input adds the cache writes and reads. */
export function claudeUsage(value: unknown): Usage | undefined {
  const usage = objectOf(value);
  const input = countOf(usage?.input_tokens);
  const output = countOf(usage?.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const cacheWrite = countOf(usage?.cache_creation_input_tokens);
  const cacheRead = countOf(usage?.cache_read_input_tokens);
  return {
    inputTokens: input + (cacheWrite ?? 0) + (cacheRead ?? 0),
    outputTokens: output,
    ...(cacheRead === undefined ? {} : { cacheReadTokens: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
  };
}

function describe(block: SourceObject | undefined): string {
  return block === undefined ? 'not an object' : `type ${JSON.stringify(block.type)}`;
}
