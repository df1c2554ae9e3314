// The paths of a rewound Claude Code transcript (claude-rewinds.ts) mapped into sessions: the
// main path as the session, each abandoned path a branch of the path it left (SPEC §14). A
// branch maps its parent's records up to where it leaves (the builder takes the parent's events
// for them, hash for hash: the prefix is read from the parent, never copied), then its
// session/fork, then its own records. It leaves at the last point before its first own record
// where the parent's records are all mapped and no tool call waits for its result; the parent's
// records between that point and its own (rare: an answer still open there) are mapped again as
// the branch's own.

import type { LogEvent } from '../../log/event.js';
import { subSessionId } from '../derived-ids.js';
import type { SessionBuilder } from '../session-builder.js';
import type { SourceFile, SourceRecord } from '../source-file.js';
import type { ClaudePath } from './claude-rewinds.js';
import { type ClaudeSessionLinks, ClaudeSessionMapper } from './claude-session.js';

/** A record to map, or a session/fork: a branch's own (`own`), or an ancestor's, replayed with the prefix. */
type Step =
  | { readonly kind: 'record'; readonly index: number }
  | {
      readonly kind: 'fork';
      readonly parentId: string;
      readonly own: boolean;
      /** The record that decides whether the answer open at the fork is complete (the parent's next), if any. */
      readonly next: number | undefined;
    };

/** The builder's state before a step: how many events, and whether a branch can leave there. */
interface Checkpoint {
  readonly events: number;
  readonly forkable: boolean;
}

interface BuiltPath {
  readonly sessionId: string;
  readonly builder: SessionBuilder;
  readonly mapper: ClaudeSessionMapper;
  readonly steps: readonly Step[];
  readonly checkpoints: readonly Checkpoint[];
}

export interface RewindSessionsInput {
  readonly mainId: string;
  readonly file: SourceFile;
  readonly records: readonly SourceRecord[];
  readonly paths: readonly ClaudePath[];
  readonly newBuilder: (sessionId: string, prefix: readonly LogEvent[]) => SessionBuilder;
  readonly links: ClaudeSessionLinks;
}

/** Each path's session, the main one first; every one built after the path it leaves. */
export function mapClaudeRewinds(input: RewindSessionsInput): Array<{ builder: SessionBuilder; mapper: ClaudeSessionMapper }> {
  const [only] = input.paths;
  if (input.paths.length === 1 && only !== undefined) {
    // No rewinds: the transcript is mapped as one session, as it always was.
    const builder = input.newBuilder(input.mainId, []);
    const mapper = new ClaudeSessionMapper(builder, input.links);
    mapper.map(only.own.map((index) => input.records[index] as SourceRecord));
    return [{ builder, mapper }];
  }
  const built: BuiltPath[] = [];
  for (const path of input.paths) {
    if (path.parent === undefined) {
      built.push(
        buildPath(
          input,
          input.mainId,
          path.own.map((index) => ({ kind: 'record', index })),
          [],
        ),
      );
      continue;
    }
    const parent = built[path.parent.path] as BuiltPath;
    const at = path.parent.at;
    const sessionId = subSessionId(input.mainId, `branch-${(path.rootUuid ?? `line-${input.records[at]?.line ?? at}`).slice(0, 8)}`);
    // The parent's steps before the branch's first own record, and the last point among them it can leave at.
    let leave = parent.steps.findIndex((step) => step.kind === 'record' && step.index > at);
    if (leave < 0) leave = parent.steps.length;
    const before = leave;
    while (leave > 0 && parent.checkpoints[leave]?.forkable !== true) leave--;
    const shared = parent.steps.slice(leave, before).filter((step) => step.kind === 'record');
    const steps: Step[] = [
      ...parent.steps.slice(0, leave).map((step): Step => (step.kind === 'fork' ? { ...step, own: false } : step)),
      { kind: 'fork', parentId: parent.sessionId, own: true, next: nextRecordIndex(parent.steps, leave) ?? path.own[0] },
      ...shared,
      ...path.own.map((index): Step => ({ kind: 'record', index })),
    ];
    const prefix = parent.builder.events.slice(0, (parent.checkpoints[leave] as Checkpoint).events);
    built.push(buildPath(input, sessionId, steps, prefix));
  }
  return built.map(({ builder, mapper }) => ({ builder, mapper }));
}

function buildPath(input: RewindSessionsInput, sessionId: string, steps: readonly Step[], prefix: readonly LogEvent[]): BuiltPath {
  const builder = input.newBuilder(sessionId, prefix);
  const mapper = new ClaudeSessionMapper(builder, input.links);
  const checkpoints: Checkpoint[] = [];
  let last: SourceRecord | undefined;
  for (const step of steps) {
    if (step.kind === 'fork') {
      checkpoints.push({ events: builder.events.length, forkable: false });
      // The parent's records end as they end in the parent: the record that follows there
      // decides whether its last answer is complete (at the parent's end, it is).
      const next = step.next === undefined ? undefined : input.records[step.next];
      if (next === undefined || !mapper.settledBefore(next)) mapper.settleNow();
      builder.fork(step.parentId);
      continue;
    }
    const record = input.records[step.index] as SourceRecord;
    const settled = mapper.settledBefore(record);
    checkpoints.push({ events: builder.events.length, forkable: settled && builder.forkProblem() === undefined });
    mapper.feed(record);
    last = record;
  }
  // At the end, a branch leaves where the parent's last answer is complete, with no compaction waiting for its summary.
  const clean = mapper.settleNow();
  checkpoints.push({ events: builder.events.length, forkable: clean && builder.forkProblem() === undefined });
  mapper.end(last);
  return { sessionId, builder, mapper, steps, checkpoints };
}

/** The index of the first record among `steps` from `from` on. */
function nextRecordIndex(steps: readonly Step[], from: number): number | undefined {
  for (const step of steps.slice(from)) if (step.kind === 'record') return step.index;
  return undefined;
}
