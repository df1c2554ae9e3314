// A Claude Code session started with `claude --resume <id> --fork-session` (or `/branch`): a new
// session file whose first records copy the other session's, each with the new sessionId and
// `forkedFrom: {sessionId, messageUuid}` naming the session and record it copies (the same
// uuid), then its own records. Imported as a branch of that session when this import or the
// store holds it and the copy matches it as imported (copied-history.ts); else whole, and the
// report says why.

import type { LogEvent } from '../../log/event.js';
import { forkFromCopiedHistory, STORED_WHOLE } from '../copied-history.js';
import { importedSessionId } from '../derived-ids.js';
import type { SessionBuilder } from '../session-builder.js';
import type { SourceRecord } from '../source-file.js';
import { objectOf, stringOf } from '../source-values.js';
import { type ClaudeSessionLinks, ClaudeSessionMapper } from './claude-session.js';

/** The session a Claude Code file was forked from (as a shadowlog session id), and how many of its records are copies. */
export function claudeForkOf(records: readonly SourceRecord[]): { readonly parentSessionId: string; readonly copied: number } | undefined {
  let parent: string | undefined;
  let copied = 0;
  records.forEach((record, index) => {
    const from = stringOf(objectOf(record.value.forkedFrom)?.sessionId);
    if (from === undefined || (parent !== undefined && from !== parent)) return;
    parent = from;
    copied = index + 1;
  });
  return parent === undefined ? undefined : { parentSessionId: importedSessionId('claude-code', parent), copied };
}

export interface ClaudeForkInput {
  readonly records: readonly SourceRecord[];
  readonly fork: { readonly parentSessionId: string; readonly copied: number };
  readonly parentEvents: readonly LogEvent[] | undefined;
  /** The store holds this session already, imported whole: it stays so. */
  readonly storedWhole: boolean;
  readonly newBuilder: (prefix: readonly LogEvent[]) => SessionBuilder;
  readonly links: ClaudeSessionLinks;
}

/** The branch, with its mapper; or why the file is not one. */
export function mapClaudeForkSession(
  input: ClaudeForkInput,
): { readonly builder: SessionBuilder; readonly mapper: ClaudeSessionMapper } | { readonly reason: string } {
  const { records, fork } = input;
  if (input.storedWhole) return { reason: STORED_WHOLE };
  if (input.parentEvents === undefined) {
    return {
      reason: `neither this import nor the store holds ${fork.parentSessionId}; import it with this file, or before it, to link them`,
    };
  }
  let last: ClaudeSessionMapper | undefined;
  const result = forkFromCopiedHistory({
    parentSessionId: fork.parentSessionId,
    parentEvents: input.parentEvents,
    copied: fork.copied,
    mapperFor: (prefix) => {
      const builder = input.newBuilder(prefix);
      const mapper = new ClaudeSessionMapper(builder, input.links);
      last = mapper;
      return {
        builder,
        mapper: {
          length: records.length,
          feed: (index) => mapper.feed(records[index] as SourceRecord),
          settledBefore: (index) => (index < records.length ? mapper.settledBefore(records[index] as SourceRecord) : mapper.settleNow()),
          end: () => mapper.end(records[records.length - 1]),
          lineOf: (index) => records[index]?.line ?? 0,
        },
      };
    },
  });
  if (result.kind === 'unlinked') return { reason: result.reason };
  return { builder: result.builder, mapper: last as ClaudeSessionMapper };
}
