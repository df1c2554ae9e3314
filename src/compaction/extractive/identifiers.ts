// The paths and identifiers the conversation itself names: what the user and the assistant
// wrote, what failed, and what the tools were pointed at. Tool output is evidence, not story:
// the names in a file the agent read (order_id, customer_city …) are not listed.

import type { JsonValue } from '../../log/event.js';
import { type Entity, entitiesOf } from './entities.js';
import type { ToolCallRecord } from './read-messages.js';
import type { Sentence } from './sentences.js';
import { pathOf } from './tool-call-lines.js';

/** A name the user gave matters more than one the assistant used. */
const WEIGHT = { user: 2, assistant: 1.5, error: 1.5, call: 1 } as const;
const MOST_IDENTIFIERS = 24;
/** Arguments that carry bodies (file contents, patches): their names are the file's, not the conversation's. */
const BODY_ARGUMENTS = new Set(['content', 'contents', 'body', 'data', 'patch', 'diff', 'old_string', 'new_string', 'oldText', 'newText']);
const MOST_MENTIONED_PATHS = 24;

interface Tally {
  text: string;
  readonly first: number;
  score: number;
}

export interface Mentions {
  /** Identifiers, best first by weighted mentions, at most MOST_IDENTIFIERS, in first-mention order. */
  readonly identifiers: string[];
  /** Paths named in the text (not by a call's path argument), in first-mention order. */
  readonly paths: string[];
}

function stringsIn(value: JsonValue, into: string[]): void {
  if (typeof value === 'string') into.push(value.slice(0, 1_000));
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, into);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) stringsIn(item ?? null, into);
}

function tally(tallies: Map<string, Tally>, entity: Entity, weight: number): void {
  const found = tallies.get(entity.key) ?? { text: entity.text, first: tallies.size, score: 0 };
  found.score += weight;
  // "parseRow()" says more than "parseRow": it is a function.
  if (entity.text.length > found.text.length && !entity.text.includes(' ')) found.text = entity.text;
  tallies.set(entity.key, found);
}

function best(tallies: Map<string, Tally>, most: number): string[] {
  const ranked = [...tallies.values()].sort((first, second) => second.score - first.score || first.first - second.first).slice(0, most);
  return ranked.sort((first, second) => first.first - second.first).map((found) => found.text);
}

/** Identifiers and mentioned paths from the prose, the error lines kept and the calls' arguments. */
export function mentionsOf(
  sentences: readonly Sentence[],
  errorLines: readonly string[],
  calls: readonly ToolCallRecord[],
  toolNames: ReadonlySet<string>,
): Mentions {
  const identifiers = new Map<string, Tally>();
  const paths = new Map<string, Tally>();
  const add = (text: string, weight: number) => {
    for (const entity of entitiesOf(text)) {
      if (entity.kind === 'path') tally(paths, entity, weight);
      else if (!toolNames.has(entity.key)) tally(identifiers, entity, weight);
    }
  };
  for (const sentence of sentences)
    if (sentence.role === 'user' || sentence.role === 'assistant') add(sentence.text, WEIGHT[sentence.role]);
  for (const line of errorLines) add(line, WEIGHT.error);
  for (const call of calls) {
    const values: string[] = [];
    const named = pathOf(call.arguments);
    const args = call.arguments;
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
      for (const [name, value] of Object.entries(args)) if (!BODY_ARGUMENTS.has(name)) stringsIn(value ?? null, values);
    } else stringsIn(args, values);
    for (const value of values) if (value !== named) add(value, WEIGHT.call);
  }
  return { identifiers: best(identifiers, MOST_IDENTIFIERS), paths: best(paths, MOST_MENTIONED_PATHS) };
}
