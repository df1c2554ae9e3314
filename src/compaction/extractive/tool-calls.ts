// Tool calls as one line each: the name, the arguments that say what was touched, and how
// the result came back. Repeated identical calls are folded into one line with a count.

import type { JsonValue } from '../../log/event.js';
import type { SummaryItem } from './assemble.js';
import { priorityOf, recencyOf, TIER } from './priority.js';
import type { ToolCallRecord } from './read-messages.js';
import { safeEnd, truncateGraphemes } from './unicode.js';

/** Arguments that name what a call touched, shown first. */
const KEY_ARGUMENTS = ['path', 'file', 'file_path', 'filePath', 'filename', 'command', 'cmd', 'query', 'pattern', 'url', 'name'];
/** Arguments that carry bodies (file contents, patches): long, and already visible in their effect. */
const BODY_ARGUMENTS = new Set([
  'content',
  'contents',
  'text',
  'body',
  'data',
  'patch',
  'diff',
  'old_string',
  'new_string',
  'oldText',
  'newText',
]);
const ARGUMENTS_SHOWN = 3;
const VALUE_GRAPHEMES = 80;
const VALUE_READ_CODE_UNITS = 1_000;

function shownValue(value: JsonValue): string | undefined {
  // Only the start is shown, so only the start is read: an argument may be megabytes long.
  if (typeof value === 'string')
    return truncateGraphemes(value.slice(0, safeEnd(value, VALUE_READ_CODE_UNITS)).replace(/\s+/g, ' ').trim(), VALUE_GRAPHEMES);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Up to ARGUMENTS_SHOWN plain arguments, the ones naming files and commands first. */
export function keyArguments(args: JsonValue): [string, string][] {
  if (typeof args === 'string') return [['arguments', shownValue(args) ?? '']];
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  const names = Object.keys(args).filter((name) => !BODY_ARGUMENTS.has(name));
  const rank = (name: string): number => {
    const index = KEY_ARGUMENTS.indexOf(name);
    return index === -1 ? KEY_ARGUMENTS.length : index;
  };
  const shown: [string, string][] = [];
  for (const name of names.sort((first, second) => rank(first) - rank(second))) {
    const value = shownValue(args[name] ?? null);
    if (value !== undefined && value !== '') shown.push([name, value]);
    if (shown.length === ARGUMENTS_SHOWN) break;
  }
  return shown;
}

function outcomeOf(outcomes: readonly ToolCallRecord['outcome'][]): string {
  const errors = outcomes.filter((outcome) => outcome === 'error').length;
  const oks = outcomes.filter((outcome) => outcome === 'ok').length;
  const last = outcomes[outcomes.length - 1];
  if (errors === 0) return oks === 0 ? 'no result in this range' : 'ok';
  if (oks === 0) return 'error';
  return last === 'ok' ? 'error, then ok' : 'ok, then error';
}

/** One item per distinct call (name and key arguments), placed where it was first made. */
export function toolCallItems(calls: readonly ToolCallRecord[], lastMessageIndex: number): SummaryItem[] {
  const groups = new Map<string, { first: number; last: number; outcomes: ToolCallRecord['outcome'][] }>();
  calls.forEach((call, index) => {
    const shown = keyArguments(call.arguments).map(([name, value]) => `${name}: ${value}`);
    const signature = `${call.name}(${shown.join(', ')})`;
    const group = groups.get(signature) ?? { first: index, last: call.messageIndex, outcomes: [] };
    group.last = call.messageIndex;
    group.outcomes.push(call.outcome);
    groups.set(signature, group);
  });
  return [...groups.entries()].map(([signature, group]) => {
    const outcome = outcomeOf(group.outcomes);
    const count = group.outcomes.length > 1 ? ` (×${group.outcomes.length})` : '';
    // A call that failed and was never retried successfully is an open problem.
    const tier = outcome === 'error' ? TIER.essential : outcome === 'error, then ok' ? TIER.key : TIER.supporting;
    return {
      section: 'tools',
      order: group.first,
      priority: priorityOf(tier, recencyOf(group.last, lastMessageIndex) * group.outcomes.length),
      text: `- ${signature} → ${outcome}${count}`,
      list: undefined,
      isSentence: false,
    };
  });
}
