// The tool/result events the spine appends, and the limit on what a tool may return. A tool's
// output goes into one event, and then into every request while it is on the surface; past a
// size, that JSON no longer fits a JavaScript string (RangeError: Invalid string length) or a
// store's row, so a larger output is refused as an error result the model can read, and the
// turn goes on.

import type { ContentBlock, EventDraft } from '../log/event.js';

/**
 * The default limit on a tool result, in UTF-16 code units of its text and image data: 32 Mi.
 * Written as JSON, even text that is all escapes (6 characters each) stays near 200 M, well
 * inside a string (at most 536,870,888 characters) and every store's row, with room for the
 * rest of the request. No model's context window takes this much (about 8 M tokens): with
 * compaction mounted the pruner cuts it down, and the original stays in the log.
 */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 32 * 1024 * 1024;

/** The largest limit allowed: 80 Mi code units, whose JSON stays inside a string even if all escapes. */
export const MAX_TOOL_RESULT_CHARS_LIMIT = 80 * 1024 * 1024;

export function toolResultDraft(callId: string, content: ContentBlock[]): EventDraft {
  return { type: 'tool/result', data: { callId, content }, surfaceOp: 'append' };
}

export function errorResultDraft(callId: string, message: string): EventDraft {
  return {
    type: 'tool/result',
    data: { callId, content: [{ type: 'text', text: `Error: ${message}` }], error: { message } },
    surfaceOp: 'append',
  };
}

/** The size of a tool's output as the limit counts it: the length of its texts and image data. */
export function outputSize(content: readonly ContentBlock[]): number {
  let size = 0;
  for (const block of content as readonly unknown[]) {
    if (typeof block !== 'object' || block === null) continue;
    const record = block as Partial<Record<'type' | 'text' | 'data', unknown>>;
    const part = record.type === 'image' ? record.data : record.text;
    if (typeof part === 'string') size += part.length;
  }
  return size;
}

export function oversizeMessage(toolName: string, size: number, limit: number): string {
  const count = (value: number) => value.toLocaleString('en-US');
  return `${toolName} returned ${count(size)} characters, more than the ${count(limit)} a tool result may hold (maxToolResultChars), so its output was not recorded; ask for less at a time (a range of lines, a filter, a summary)`;
}
