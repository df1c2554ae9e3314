// The sessions in a store that files of an import name as the session they were forked from (a
// Claude Code `--fork-session` file, a Codex rollout with `forked_from_id`), read before the
// files are mapped: a file whose parent the store holds, and whose copy of it matches, is
// mapped as a branch of it (copied-history.ts).

import type { LogEvent } from '../log/event.js';
import type { LogStore } from '../store/log-store.js';
import type { ForeignInput } from './build-sessions.js';
import { claudeForkOf } from './claude-code/claude-fork-session.js';
import { codexForkOf } from './codex/codex-importer.js';
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
