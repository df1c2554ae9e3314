// pi's message content in shadowlog's blocks: text, base64 images, thinking as reasoning (with
// its signature), tool calls; pi's usage as shadowlog's. A block of a kind shadowlog does not
// know is reported; its line keeps it.

import { type ContentBlock, isBase64 } from '../../log/content-block.js';
import type { Usage } from '../../log/event.js';
import { argumentsFromValue } from '../../providers/tool-arguments.js';
import type { SourceToolCall } from '../imported-call.js';
import type { SessionBuilder } from '../session-builder.js';
import { arrayOf, countOf, objectOf, stringOf } from '../source-values.js';

/** User or tool-result content: a string (one text block) or text and image blocks. */
export function piContent(content: unknown, line: number, builder: SessionBuilder): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const blocks: ContentBlock[] = [];
  for (const [index, item] of arrayOf(content).entries()) {
    const block = objectOf(item);
    const text = stringOf(block?.text);
    if (block?.type === 'text' && text !== undefined) blocks.push({ type: 'text', text });
    else if (block?.type === 'image' && isBase64(block.data) && typeof block.mimeType === 'string' && block.mimeType !== '') {
      blocks.push({ type: 'image', mediaType: block.mimeType, data: block.data });
    } else
      builder.note(
        line,
        `content block ${index} (${describeBlock(block)}) is not a text or base64 image block; it is left out of the message`,
      );
  }
  return blocks;
}

/** An assistant message's content and tool calls; `provider` owns its thinking. */
export function piAssistantContent(
  content: unknown,
  provider: string,
  line: number,
  builder: SessionBuilder,
): { content: ContentBlock[]; toolCalls: SourceToolCall[] } {
  const blocks: ContentBlock[] = [];
  const toolCalls: SourceToolCall[] = [];
  for (const [index, item] of arrayOf(content).entries()) {
    const block = objectOf(item);
    switch (block?.type) {
      case 'text':
        if (typeof block.text === 'string') {
          blocks.push({ type: 'text', text: block.text });
          continue;
        }
        break;
      case 'thinking': {
        const signature = stringOf(block.thinkingSignature);
        const thinking = stringOf(block.thinking) ?? '';
        // Redacted thinking is opaque: its signature is the data the provider must get back.
        if (block.redacted === true && signature !== undefined) blocks.push({ type: 'reasoning', provider, data: signature });
        else blocks.push({ type: 'reasoning', provider, text: thinking, ...(signature === undefined ? {} : { signature }) });
        continue;
      }
      case 'toolCall': {
        const id = stringOf(block.id);
        const name = stringOf(block.name);
        if (id !== undefined && name !== undefined && name !== '') {
          toolCalls.push({ id, name, ...argumentsFromValue(block.arguments ?? {}, () => undefined) });
          continue;
        }
        break;
      }
      case 'image':
        blocks.push(...piContent([block], line, builder));
        continue;
    }
    builder.note(line, `content block ${index} (${describeBlock(block)}) is not one shadowlog maps; it is left out of the message`);
  }
  return { content: blocks, toolCalls };
}

/** pi's usage: `input` is the uncached part; the whole input adds the cache reads and writes. */
export function piUsage(value: unknown): Usage | undefined {
  const usage = objectOf(value);
  const input = countOf(usage?.input);
  const output = countOf(usage?.output);
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = countOf(usage?.cacheRead);
  const cacheWrite = countOf(usage?.cacheWrite);
  return {
    inputTokens: input + (cacheRead ?? 0) + (cacheWrite ?? 0),
    outputTokens: output,
    ...(cacheRead === undefined ? {} : { cacheReadTokens: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
  };
}

function describeBlock(block: Readonly<Record<string, unknown>> | undefined): string {
  return block === undefined ? 'not an object' : `type ${JSON.stringify(block.type)}`;
}
