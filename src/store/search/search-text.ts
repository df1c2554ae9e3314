// What search finds in an event: its searchable parts, each of one kind (a message's text, a
// tool call's name and arguments, a tool's result, a summary…). The one definition every store
// indexes at append time and every search checks its candidates against, so that the memory,
// SQLite and PostgreSQL stores find the same hits. The SQL stores keep what this returned when
// each event was appended: a change to it is a change of their schema (a migration that rebuilds
// the index), or stored events are looked up by the old text and checked against the new.

import type { ContentBlock, LogEvent } from '../../log/event.js';
import { dataOf } from '../../log/event-data.js';
import { isForeignType } from '../../log/foreign-event.js';
import type { JsonValue } from '../../log/json-value.js';
import { normalizeSearchText } from './search-match.js';
import { isSurfaceReplacement } from './search-place.js';

/** The kinds of text search tells apart; `--type` chooses among them. */
export const SEARCH_KINDS = ['message', 'reasoning', 'tool-call', 'tool-result', 'summary', 'error', 'other'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** One searchable part of an event. */
export interface SearchPart {
  readonly kind: SearchKind;
  /** The part's text, as searched: control characters and line breaks read as spaces (normalizeSearchText). */
  readonly text: string;
}

export { normalizeSearchText };

/** Keys of a foreign line that say nothing a person searches for: ids, times, hashes, opaque data. */
const FOREIGN_NOISE_KEYS = new Set([
  'uuid',
  'parentUuid',
  'leafUuid',
  'sessionId',
  'session_id',
  'requestId',
  'id',
  'timestamp',
  'signature',
  'encrypted_content',
  'version',
  'userType',
  'isSidechain',
  'gitBranch',
  'cwd',
  'toolUseID',
  'parentToolUseID',
  'messageId',
]);

/** A long run of base64 characters: opaque data (an image, an encrypted reasoning), not text. */
const OPAQUE = /^[A-Za-z0-9+/=_-]{200,}$/;

/**
 * The searchable parts of `event`, in a fixed order, at most one per kind (a kind's pieces joined
 * by a space). Never throws: data that does not have its type's shape is searched by its string
 * values, as a foreign line is.
 */
export function searchParts(event: LogEvent): SearchPart[] {
  const pieces = new Map<SearchKind, string[]>();
  const add = (kind: SearchKind, text: string | undefined) => {
    if (text === undefined || text === '') return;
    const list = pieces.get(kind);
    if (list === undefined) pieces.set(kind, [text]);
    else list.push(text);
  };
  try {
    collect(event, add);
  } catch {
    // Data of the wrong shape for its type (a store keeps what its writer sealed): its strings.
    pieces.clear();
    add('other', stringLeaves(event.data as JsonValue).join(' '));
  }
  const parts: SearchPart[] = [];
  for (const kind of SEARCH_KINDS) {
    const list = pieces.get(kind);
    if (list === undefined) continue;
    const text = normalizeSearchText(list.join(' '));
    if (text.trim() !== '') parts.push({ kind, text });
  }
  return parts;
}

type Add = (kind: SearchKind, text: string | undefined) => void;

function collect(event: LogEvent, add: Add): void {
  switch (event.type) {
    case 'system/message':
    case 'user/message': {
      // The message that replaces a compacted range holds its summary.
      const kind = event.type === 'user/message' && isSurfaceReplacement(event) ? 'summary' : 'message';
      blocks(dataOf(event, event.type).content, kind, add);
      return;
    }
    case 'assistant/message': {
      const data = dataOf(event, 'assistant/message');
      blocks(data.content, 'message', add);
      for (const call of data.toolCalls) add('tool-call', `${call.name} ${argumentsText(call.arguments)}`);
      return;
    }
    case 'tool/result': {
      const data = dataOf(event, 'tool/result');
      blocks(data.content, 'tool-result', add);
      if (typeof data.error === 'object') add('tool-result', data.error.message);
      return;
    }
    case 'model/error':
      add('error', dataOf(event, 'model/error').message);
      return;
    default:
      if (isForeignType(event.type)) add('other', foreignText(event.data));
      else if (event.type === 'compaction/end') add('error', errorText(event.data.error));
  }
}

function blocks(content: readonly ContentBlock[], kind: SearchKind, add: Add): void {
  for (const block of content) {
    switch (block.type) {
      case 'text':
        add(kind, block.text);
        break;
      case 'reasoning':
        add('reasoning', block.text ?? block.summary?.join(' '));
        break;
      case 'compaction':
        add('summary', block.text);
        break;
      case 'server-tool-call':
        add('tool-call', `${block.name} ${argumentsText(block.input as JsonValue)}`);
        break;
      case 'server-tool-result':
        add('tool-result', `${block.name} ${stringLeaves(block.content as JsonValue).join(' ')}`);
        break;
      default:
      // Images carry no text to search.
    }
  }
}

/**
 * A call's arguments as `key=value` pairs, strings as they are (a path or a command reads as
 * written, not JSON-escaped), a list as `[a b c]`, a nested object as `{key=value …}`.
 */
function argumentsText(value: JsonValue, nested = false): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => argumentsText(item, true)).join(' ')}]`;
  const pairs = Object.entries(value)
    .filter(([, item]) => item !== undefined)
    .map(([key, item]) => `${key}=${argumentsText(item as JsonValue, true)}`);
  return nested ? `{${pairs.join(' ')}}` : pairs.join(' ');
}

function errorText(error: unknown): string | undefined {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return undefined;
}

/** A foreign line's text: the string values of its JSON but for ids, times and opaque data; the line itself when it is not JSON. */
function foreignText(data: Record<string, unknown>): string | undefined {
  const text = data.text;
  if (typeof text !== 'string') return stringLeaves(data as JsonValue).join(' ');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return stringLeaves(parsed as JsonValue).join(' ');
}

/** Every string value inside `value` (depth first), skipping noise keys and opaque data. */
function stringLeaves(value: JsonValue, out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (!OPAQUE.test(value)) out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) stringLeaves(item, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined && !FOREIGN_NOISE_KEYS.has(key)) stringLeaves(item, out);
    }
  }
  return out;
}

/**
 * Every searchable part of `event` in one text, the parts on separate lines: a plain search's
 * text (which reads a line break as a space) never matches across two parts, so it matches this
 * text exactly when it matches one of the parts. The audit page's record search reads it.
 */
export function searchEventText(event: LogEvent): string {
  return searchParts(event)
    .map((part) => part.text)
    .join('\n');
}
