// Which events of the record `show --record` and `show --follow` print. By default, text output
// leaves out the events that are source noise: foreign events (log/foreign-event.ts), lines of
// another harness's file that the import kept whole because shadowlog maps them to no event of
// its own (Claude Code's progress lines, Codex's token counts, pi's thinking-level changes). What
// shadowlog understands of such a line is in the core events mapped beside it (and the import
// reported each line it could not map), so the rule is the format's, not a list of one harness's
// names; what was left out is counted per type and named at the end.
// `--all` prints every event, `--type T` only events of the types named (JSON included, whose
// default stays every event: scripts rely on it, SPEC §12).

import { isForeignType } from '../log/index.js';
import { UsageError } from './usage-error.js';

export type RecordSelection =
  /** Text output's default: every event but the source's noise. */
  | { readonly kind: 'default' }
  | { readonly kind: 'all' }
  /** Only events whose type is one of `types`, or in a namespace `noun/*` names. */
  | { readonly kind: 'types'; readonly types: readonly string[] };

/** Is the event type noise that text output leaves out by default? */
export function isSourceNoise(type: string): boolean {
  return isForeignType(type);
}

const TYPE = /^[a-z0-9][a-z0-9-]*\/(?:\*|[a-z0-9][a-z0-9-]*)$/;

/** Collects `--type` values: repeatable, each a comma-separated list; names are checked against the session. */
export function collectTypes(value: string, previous: readonly string[] = []): string[] {
  const types = value.split(',').map((type) => type.trim());
  if (types.some((type) => type === ''))
    throw new UsageError(`--type takes event types separated by commas; found ${JSON.stringify(value)}`);
  return [...previous, ...types];
}

/** Refuses a --type that cannot be an event type at all (for a record still to come, whose types are not known yet). */
export function checkTypeNames(selection: RecordSelection): void {
  if (selection.kind !== 'types') return;
  const bad = selection.types.filter((type) => !TYPE.test(type));
  if (bad.length === 0) return;
  throw new UsageError(
    `--type ${bad.join(',')}: an event type is noun/verb, such as model/request or claude-code/progress, or a namespace such as compaction/*`,
  );
}

/** The selection the options name; `json` output keeps every event unless --type narrows it. */
export function recordSelection(options: { readonly types?: readonly string[]; readonly all?: boolean }, json: boolean): RecordSelection {
  if (options.types !== undefined && options.types.length > 0) return { kind: 'types', types: [...new Set(options.types)] };
  return options.all === true || json ? { kind: 'all' } : { kind: 'default' };
}

function matches(selector: string, type: string): boolean {
  return selector.endsWith('/*') ? type.startsWith(selector.slice(0, -1)) : selector === type;
}

/** Does the selection print an event of `type`? */
export function isSelected(selection: RecordSelection, type: string): boolean {
  switch (selection.kind) {
    case 'all':
      return true;
    case 'default':
      return !isSourceNoise(type);
    case 'types':
      return selection.types.some((selector) => matches(selector, type));
  }
}

/**
 * Refuses a --type that names no event of the session (a typo would print nothing and say
 * nothing), listing the types it holds; `present` counts events by type, `where` says up to where.
 */
export function checkTypesPresent(selection: RecordSelection, present: ReadonlyMap<string, number>, where: string): void {
  if (selection.kind !== 'types') return;
  const missing = selection.types.filter((selector) => ![...present.keys()].some((type) => matches(selector, type)));
  if (missing.length === 0) return;
  const near = [...present.keys()].filter((type) => missing.some((selector) => isNear(selector, type)));
  const hint = near.length === 0 ? '' : ` (did you mean ${near.join(' or ')}?)`;
  throw new UsageError(
    `--type ${missing.join(',')}: no event of ${missing.length === 1 ? 'that type' : 'those types'} in ${where}${hint}; its types are ${describeCounts(present)}`,
  );
}

/** `progress`, `claude/progress` or `Model/Request` for claude-code/progress or model/request: a type it likely means. */
function isNear(selector: string, type: string): boolean {
  const wanted = selector.toLowerCase();
  if (wanted === type) return true;
  const slash = wanted.indexOf('/');
  const [namespace, verb] = [type.slice(0, type.indexOf('/')), type.slice(type.indexOf('/') + 1)];
  if (slash < 0) return verb === wanted;
  const [wantedNamespace, wantedVerb] = [wanted.slice(0, slash), wanted.slice(slash + 1)];
  return (
    wantedVerb === verb && wantedNamespace !== namespace && (namespace.startsWith(wantedNamespace) || wantedNamespace.startsWith(namespace))
  );
}

/** `1,083 claude-code/progress, 14 claude-code/file-history-snapshot`, most first. */
export function describeCounts(counts: ReadonlyMap<string, number>): string {
  return [...counts]
    .sort(([typeA, countA], [typeB, countB]) => countB - countA || (typeA < typeB ? -1 : 1))
    .map(([type, count]) => `${formatCount(count)} ${type}`)
    .join(', ');
}

export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** Counts what a selection leaves out, and says so at the end of the output. */
export class HiddenEvents {
  private readonly counts = new Map<string, number>();
  private total = 0;
  constructor(private readonly selection: RecordSelection) {}

  /** True when the event is to be printed; counts it otherwise. */
  shows(type: string): boolean {
    if (isSelected(this.selection, type)) return true;
    this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
    this.total++;
    return false;
  }

  get hidden(): number {
    return this.total;
  }

  /** The closing line: what was left out and how to see it; '' when nothing was. */
  summary(): string {
    if (this.total === 0) return '';
    if (this.selection.kind === 'types') {
      return `only ${this.selection.types.join(', ')} shown; ${formatCount(this.total)} events of other types left out; --all shows every event`;
    }
    return `${formatCount(this.total)} source events hidden: ${describeCounts(this.counts)} (lines of the source harness's file, kept whole as foreign events); --all shows them, --type TYPE shows one kind`;
  }
}
