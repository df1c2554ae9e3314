// Foreign events (format 2): a line of another harness's file that has no core meaning, kept
// whole so that nothing in the source is dropped. Each source has its namespace, and the verb is
// the kind of line in kebab case: `claude-code/progress`, `codex/turn-context`,
// `pi/thinking-level-change`. They are ignorable, so that a reader that does not know them skips
// them, and they change no surface.

import { InvalidEventError } from './errors.js';
import type { EventDraft } from './event.js';
import { isPositiveInteger, isString, objectWith } from './shape.js';

export const FOREIGN_SOURCES = ['claude-code', 'codex', 'pi'] as const;
export type ForeignSource = (typeof FOREIGN_SOURCES)[number];

export interface ForeignEventData {
  /** The source line exactly as it was, without its line break. */
  text: string;
  /** Its line number in the source file, from 1. */
  line?: number;
}

export function isForeignType(type: string): boolean {
  const slash = type.indexOf('/');
  return slash > 0 && (FOREIGN_SOURCES as readonly string[]).includes(type.slice(0, slash));
}

/** The event type for a kind of line of a source: `codex` + `turn_context` → `codex/turn-context`. */
export function foreignEventType(source: ForeignSource, kind: string): string {
  const verb = kind
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${source}/${/^[a-z]/.test(verb) ? verb : `line-${verb || 'unknown'}`}`;
}

export function foreignEventDraft(source: ForeignSource, kind: string, text: string, line?: number, time?: string): EventDraft {
  return {
    type: foreignEventType(source, kind),
    data: line === undefined ? { text } : { text, line },
    ignorable: true,
    ...(time === undefined ? {} : { time }),
  };
}

const foreignData = objectWith({ text: isString }, { line: isPositiveInteger });

/** Checks an event of a foreign namespace in a format-2 session. */
export function checkForeignEvent(event: { readonly type: string; readonly data: unknown; readonly ignorable?: true }, seq: number): void {
  if (event.ignorable !== true) {
    throw new InvalidEventError(
      'ignorable',
      `true on ${event.type}, a foreign event (a line of another harness's file), so that readers that do not know it skip it`,
      'absent',
      seq,
    );
  }
  foreignData(event.data, 'data', seq);
}
