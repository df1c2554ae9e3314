// What the store holds that mapping a file needs. The sessions that files of an import name as
// the session they were forked from (a
// Claude Code `--fork-session` file, a Codex rollout with `forked_from_id`), read before the
// files are mapped: a file whose parent the store holds, and whose copy of it matches, is
// mapped as a branch of it (copied-history.ts). And where a rewound transcript's stored session
// ends, so that its path keeps the session's id.

import type { LogEvent } from '../log/event.js';
import { isPlainObject } from '../log/shape.js';
import type { LogStore } from '../store/log-store.js';
import type { ForeignInput } from './build-sessions.js';
import { claudeForkOf } from './claude-code/claude-fork-session.js';
import { agentIdOf, claudeSessionIdOf } from './claude-code/claude-importer.js';
import { codexForkOf } from './codex/codex-importer.js';
import { importedSessionId } from './derived-ids.js';
import { objectOf } from './source-values.js';

/** The session a file says it was forked from, as a shadowlog session id. */
export function forkParentOf(input: ForeignInput): string | undefined {
  const records = input.file.records;
  if (input.format === 'codex') return codexForkOf(objectOf(records.find((record) => record.value.type === 'session_meta')?.value.payload));
  if (input.format === 'claude-code') return claudeForkOf(records.filter((record) => record.value.isSidechain !== true))?.parentSessionId;
  return undefined;
}

/** The events of each fork parent the store holds. */
export async function readForkParents(store: LogStore, inputs: readonly ForeignInput[]): Promise<Map<string, LogEvent[]>> {
  const parents = new Map<string, LogEvent[]>();
  for (const input of inputs) {
    const parentId = forkParentOf(input);
    if (parentId === undefined || parents.has(parentId) || (await store.head(parentId)) === undefined) continue;
    const events: LogEvent[] = [];
    for await (const page of store.read(parentId)) events.push(...page);
    parents.set(parentId, events);
  }
  return parents;
}

/** Events read back from a session's end to find the last source line it names. */
const LAST_LINE_WINDOW = 64;

/**
 * For each Claude Code transcript whose session the store holds: the last source line that
 * session was imported from (claude-rewinds.ts keeps the path through it as the session).
 */
export async function readStoredLastLines(store: LogStore, inputs: readonly ForeignInput[]): Promise<Map<string, number>> {
  const lines = new Map<string, number>();
  for (const input of inputs) {
    if (input.format !== 'claude-code' || agentIdOf(input.file) !== undefined) continue;
    const sourceId = claudeSessionIdOf(input.file);
    const sessionId = sourceId === undefined ? undefined : importedSessionId('claude-code', sourceId);
    const head = sessionId === undefined ? undefined : await store.head(sessionId);
    if (sessionId === undefined || head === undefined || lines.has(sessionId)) continue;
    let last: number | undefined;
    for await (const page of store.read(sessionId, { fromSeq: Math.max(0, head.nextSeq - LAST_LINE_WINDOW) })) {
      for (const event of page) last = lastLineOf(event) ?? last;
    }
    if (last !== undefined) lines.set(sessionId, last);
  }
  return lines;
}

/** The last source line an imported event names (its sourceLines, or a foreign event's line). */
function lastLineOf(event: LogEvent): number | undefined {
  const data: unknown = event.data;
  if (!isPlainObject(data)) return undefined;
  if (Array.isArray(data.sourceLines)) {
    const numbers = data.sourceLines.flatMap((ref: unknown) => (isPlainObject(ref) && typeof ref.line === 'number' ? [ref.line] : []));
    return numbers.length === 0 ? undefined : Math.max(...numbers);
  }
  return typeof data.line === 'number' ? data.line : undefined;
}

/** The session a forked file gives (its own id), for the files that say they were forked. */
function forkedSessionIdOf(input: ForeignInput, sessionId: string | undefined): string | undefined {
  if (forkParentOf(input) === undefined) return undefined;
  if (sessionId !== undefined) return sessionId;
  if (input.format === 'claude-code') {
    const sourceId = claudeSessionIdOf(input.file);
    return sourceId === undefined ? undefined : importedSessionId('claude-code', sourceId);
  }
  const meta = objectOf(input.file.records.find((record) => record.value.type === 'session_meta')?.value.payload);
  return typeof meta?.id === 'string' ? importedSessionId('codex', meta.id) : undefined;
}

/** The forked files' sessions the store holds already, not as branches (imported whole before their parent was). */
export async function readStoredWhole(store: LogStore, inputs: readonly ForeignInput[], sessionId?: string): Promise<Set<string>> {
  const whole = new Set<string>();
  for (const input of inputs) {
    const id = forkedSessionIdOf(input, sessionId);
    if (id === undefined || (await store.head(id)) === undefined) continue;
    if ((await store.readForkLink?.(id)) === undefined) whole.add(id);
  }
  return whole;
}
