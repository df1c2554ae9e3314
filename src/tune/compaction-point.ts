// What the surface holds right after a compaction, against what the session does next: the
// model-free measures that tell policies apart where retention at the using call does not (see
// docs/tune.md, "After each compaction"). Pure reads of a policy's replay state.

import type { PolicyReplay } from './policy-replay.js';
import type { ReplayContext } from './replay-context.js';

/** The surface right after one compaction. */
export interface CompactionPoint {
  /** Artifacts the next calls use that stood before the compaction, and of them those on the surface. */
  readonly aheadUsed: number;
  readonly aheadKept: number;
  /** User requests open at the call, and of them those on the surface. */
  readonly openRequests: number;
  readonly openKept: number;
  /** Whether the last user message before the call is on the surface; null when the session has none yet. */
  readonly instruction: boolean | null;
}

/**
 * The surface `replay` holds at call `position` (item count `k`), right after it compacted: of
 * the artifacts the calls position..position+lookahead−1 use that stood before k, those on it;
 * of the requests open at the call (not yet answered by a call that makes no tool call), those
 * on it (verbatim, or whole in the summary); and whether the last user message before k is.
 */
export function compactionPoint(
  replay: PolicyReplay,
  context: ReplayContext,
  k: number,
  position: number,
  lookahead: number,
): CompactionPoint {
  const ahead = new Set<string>();
  const end = Math.min(context.uses.length, position + lookahead);
  for (let use = position; use < end; use++)
    for (const artifact of context.uses[use] ?? []) if ((context.occurrences.get(artifact)?.[0] as number) < k) ahead.add(artifact);
  let aheadKept = 0;
  for (const artifact of ahead) if (replay.onSurface(artifact, k)) aheadKept++;
  const inSummary = summaryHolds(replay);
  const held = (request: { readonly index: number; readonly text: string }) =>
    request.index >= replay.firstVerbatim || (request.text !== '' && inSummary(request.text));
  const before = context.requests.filter((request) => request.index < k);
  const open = before.filter((request) => request.answeredAt >= position);
  const last = before[before.length - 1];
  return {
    aheadUsed: ahead.size,
    aheadKept,
    openRequests: open.length,
    openKept: open.filter(held).length,
    instruction: last === undefined ? null : held(last),
  };
}

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Whether the policy's summary holds a request (its text, whitespace made one space): one of the
 * summary's request lines is its text (a long one cut to parts joined at ' … '); a summary
 * without sections holds it when its text contains it whole.
 */
function summaryHolds(replay: PolicyReplay): (text: string) => boolean {
  const text = replay.summaryText;
  if (text === undefined) return () => false;
  const requests = replay.summarySections?.requests;
  if (requests === undefined) {
    const whole = flat(text);
    return (request) => whole.includes(request);
  }
  const lines = requests.map((line) => flat(line.text));
  return (request) => lines.some((line) => line === request || holdsCut(line, request));
}

/** Whether `line` is `request` cut: its parts, joined at ' … ', are the request's head, middle parts in order, and tail. */
function holdsCut(line: string, request: string): boolean {
  const parts = line.split(' … ');
  if (parts.length < 2) return false;
  const head = parts[0] as string;
  const tail = parts[parts.length - 1] as string;
  if (!request.startsWith(head) || !request.endsWith(tail) || head.length + tail.length > request.length) return false;
  let from = head.length;
  for (const part of parts.slice(1, -1)) {
    const at = request.indexOf(part, from);
    if (at < 0) return false;
    from = at + part.length;
  }
  return from <= request.length - tail.length;
}

/** The compaction points of a policy, summed: counts, and each share (null when there is nothing to divide). */
export interface AfterCompaction {
  /** N: how many calls from each compaction on count as "next". */
  readonly lookaheadCalls: number;
  /** Calls at which the policy compacted (or dropped turns). */
  readonly points: number;
  readonly aheadUsed: number;
  readonly aheadKept: number;
  /** aheadKept / aheadUsed. */
  readonly aheadShare: number | null;
  readonly openRequests: number;
  readonly openKept: number;
  /** openKept / openRequests. */
  readonly openShare: number | null;
  /** Points with a user message before them, and of them those at which the last one was on the surface. */
  readonly instructions: number;
  readonly instructionsKept: number;
  /** instructionsKept / instructions. */
  readonly instructionShare: number | null;
}

/** The sum of compaction points (or of earlier sums) as an AfterCompaction. */
export function afterCompactionOf(lookaheadCalls: number, parts: ReadonlyArray<CompactionPoint | AfterCompaction>): AfterCompaction {
  let points = 0;
  let aheadUsed = 0;
  let aheadKept = 0;
  let openRequests = 0;
  let openKept = 0;
  let instructions = 0;
  let instructionsKept = 0;
  for (const part of parts) {
    aheadUsed += part.aheadUsed;
    aheadKept += part.aheadKept;
    openRequests += part.openRequests;
    openKept += part.openKept;
    if ('points' in part) {
      points += part.points;
      instructions += part.instructions;
      instructionsKept += part.instructionsKept;
    } else {
      points++;
      if (part.instruction !== null) instructions++;
      if (part.instruction === true) instructionsKept++;
    }
  }
  const ratio = (kept: number, of: number) => (of === 0 ? null : kept / of);
  return {
    lookaheadCalls,
    points,
    aheadUsed,
    aheadKept,
    aheadShare: ratio(aheadKept, aheadUsed),
    openRequests,
    openKept,
    openShare: ratio(openKept, openRequests),
    instructions,
    instructionsKept,
    instructionShare: ratio(instructionsKept, instructions),
  };
}
