// Tool calls as the summary shows them: the name and the whole arguments as JSON (keys sorted;
// long strings cut, so a 5 MB file body costs a line, not a page), and what a call did to a
// file, judged by the tool's name: read, created or modified.

import type { JsonValue } from '../../log/event.js';
import type { FileAction } from '../summary-sections.js';
import type { ToolCallRecord } from './read-messages.js';
import { safeEnd, truncateGraphemes } from './unicode.js';

/** Arguments that name the file a call works on. */
const PATH_ARGUMENTS = new Set(['path', 'file', 'file_path', 'filePath', 'filename', 'notebook_path']);
const STRING_GRAPHEMES = 120;
/** Arguments that carry bodies (file contents, patches): their size is shown, not their text, which their effect already says. */
const BODY_ARGUMENTS = new Set(['content', 'contents', 'body', 'data', 'patch', 'diff', 'old_string', 'new_string', 'oldText', 'newText']);
/** Only the start of a string is shown, so only the start is read: an argument may be megabytes long. */
const STRING_READ_CODE_UNITS = 1_000;
const MAX_DEPTH = 4;

const MODIFIES = /edit|patch|replace|update|modify|append|insert|delete|remove|rename|move/i;
const CREATES = /create|write|save|new_file|put/i;
const READS = /read|view|cat|open|show|get_file|load/i;

function shown(value: JsonValue, depth: number): JsonValue {
  if (typeof value === 'string') {
    if (value.length <= STRING_GRAPHEMES) return value;
    const cut = truncateGraphemes(value.slice(0, safeEnd(value, STRING_READ_CODE_UNITS)), STRING_GRAPHEMES);
    return cut === value || cut.endsWith('…') ? cut : `${cut}…`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth === MAX_DEPTH) return Array.isArray(value) ? ['…'] : { '…': '…' };
  if (Array.isArray(value)) return value.slice(0, 20).map((item) => shown(item, depth + 1));
  const result: Record<string, JsonValue> = {};
  for (const key of Object.keys(value).sort()) {
    const item = value[key] ?? null;
    result[key] =
      BODY_ARGUMENTS.has(key) && typeof item === 'string' && item.length > STRING_GRAPHEMES
        ? `…(${item.length} characters)`
        : shown(item, depth + 1);
  }
  return result;
}

/** `name({"key":"value"})`: the call as it was made. */
export function callSignature(name: string, args: JsonValue): string {
  return `${name}(${JSON.stringify(shown(args, 0)) ?? ''})`;
}

/** The file a call names, if it names exactly one by a path argument. */
export function pathOf(args: JsonValue): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  for (const [name, value] of Object.entries(args))
    if (PATH_ARGUMENTS.has(name) && typeof value === 'string' && value.trim() !== '' && !/\s/.test(value)) return value;
  return undefined;
}

/** What a successful call did to its file, by the tool's name; undefined for a call that is not a file operation. */
export function fileActionOf(call: ToolCallRecord): FileAction | undefined {
  if (pathOf(call.arguments) === undefined) return undefined;
  if (MODIFIES.test(call.name)) return 'modified';
  if (CREATES.test(call.name)) return 'created';
  if (READS.test(call.name)) return 'read';
  return undefined;
}

/** One line per distinct call that is not a plain file operation: `signature → outcome (×count)`. */
export function toolCallLines(calls: readonly ToolCallRecord[]): string[] {
  const groups = new Map<string, ToolCallRecord['outcome'][]>();
  for (const call of calls) {
    if (call.outcome === 'error' || (fileActionOf(call) !== undefined && call.outcome === 'ok')) continue;
    const signature = callSignature(call.name, call.arguments);
    groups.set(signature, [...(groups.get(signature) ?? []), call.outcome]);
  }
  return [...groups.entries()].map(([signature, outcomes]) => {
    const outcome = outcomes.includes('ok') ? 'ok' : 'no result yet';
    return `${signature} → ${outcome}${outcomes.length > 1 ? ` (×${outcomes.length})` : ''}`;
  });
}
