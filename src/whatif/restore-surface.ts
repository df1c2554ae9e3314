// The surface of a recorded call with replacements undone (SPEC §15, --restore): each chosen
// replacement node gives way to the nodes it shadowed, in the order they stood, and so on down
// through nested summaries. A replacement is named by its compaction's id (or the id's first
// characters), or by the seq of its node or of its metering event (a prune has no id).

import { COMPACTION_MASK, COMPACTION_PRUNE, COMPACTION_SUMMARY } from '../compaction/event-types.js';
import { isSurfaceType, type LogEvent } from '../log/event.js';
import { isReplaceOp } from '../log/surface-op.js';
import type { AuditedCall, AuditedSession } from './audited-session.js';
import { RestoreTargetError, WhatIfInputError } from './whatif-errors.js';

export type ReplacementKind = 'summary' | 'prune' | 'mask' | 'rewrite';

/** A replacement node of the audited session. */
export interface Replacement {
  readonly seq: number;
  readonly kind: ReplacementKind;
  /** The compaction it belongs to; null for a prune or a client's rewrite. */
  readonly compactionId: string | null;
  /** Its metering event (compaction/summary, prune or mask); null when it has none. */
  readonly meteringSeq: number | null;
  /** The nodes it shadowed, in the order they stood. */
  readonly shadowed: readonly number[];
}

/** `all`, or the replacements to undo, as named on the command line. */
export type RestoreChoice = 'all' | readonly string[];

export interface RestoredSurface {
  /** The audited events the counterfactual surface copies, in order. */
  readonly events: readonly LogEvent[];
  /** The replacements undone, outermost first. */
  readonly restored: readonly Replacement[];
  /** The names of the choice as the log spells them: `all`, or each compaction's whole id (a seq as given). */
  readonly names: 'all' | readonly string[];
}

const KINDS: Readonly<Record<string, ReplacementKind>> = {
  [COMPACTION_SUMMARY]: 'summary',
  [COMPACTION_PRUNE]: 'prune',
  [COMPACTION_MASK]: 'mask',
};

/** The replacement whose node is `seq`; undefined when that event is no replacement. */
export function replacementAt(audit: AuditedSession, seq: number): Replacement | undefined {
  const event = audit.events.get(seq);
  const shadowed = audit.shadowed.get(seq);
  if (event === undefined || shadowed === undefined || !isReplaceOp(event.surfaceOp)) return undefined;
  const metering = (event.sourceEventSeqs ?? [])
    .map((source) => audit.events.get(source))
    .find((source) => source !== undefined && !isSurfaceType(source.type));
  const id = metering?.data.compactionId;
  return {
    seq,
    kind: (metering === undefined ? undefined : KINDS[metering.type]) ?? 'rewrite',
    compactionId: typeof id === 'string' ? id : null,
    meteringSeq: metering?.seq ?? null,
    shadowed,
  };
}

export function describeReplacement(replacement: Replacement): string {
  const { seq, kind, compactionId, shadowed } = replacement;
  switch (kind) {
    case 'summary':
      return `compaction ${compactionId} (summary #${seq} of ${shadowed.length} node${shadowed.length === 1 ? '' : 's'})`;
    case 'mask':
      return `compaction ${compactionId} (masked tool result #${seq}, original #${shadowed[0]})`;
    case 'prune':
      return `prune #${seq} (tool result #${shadowed[0]})`;
    default:
      return `replacement #${seq} (of ${shadowed.length} node${shadowed.length === 1 ? '' : 's'})`;
  }
}

/** The replacements on the call's surface, and those nested in them, depth-first in surface order. */
export function replacementsOn(
  audit: AuditedSession,
  call: AuditedCall,
): Array<{ readonly replacement: Replacement; readonly depth: number }> {
  const out: Array<{ replacement: Replacement; depth: number }> = [];
  const visit = (seq: number, depth: number) => {
    const replacement = replacementAt(audit, seq);
    if (replacement === undefined) return;
    out.push({ replacement, depth });
    for (const shadowed of replacement.shadowed) visit(shadowed, depth + 1);
  };
  for (const node of call.nodes) visit(node.seq, 0);
  return out;
}

/** The call's surface with `choice` undone; throws RestoreTargetError for a name that is no replacement on it. */
export function restoreSurface(audit: AuditedSession, call: AuditedCall, choice: RestoreChoice): RestoredSurface {
  const on = replacementsOn(audit, call);
  if (on.length === 0 && choice !== 'all' && choice[0] !== undefined) {
    throw new RestoreTargetError(
      choice[0],
      `${JSON.stringify(choice[0])} is not on the surface of turn ${call.turn} step ${call.step} (event #${call.seq}): nothing on it was compacted or pruned, so the call was sent its messages as they were written`,
    );
  }
  if (on.length === 0) {
    throw new WhatIfInputError(
      `turn ${call.turn} step ${call.step} (event #${call.seq}) was sent its messages as they were written: nothing on its surface was compacted or pruned, so there is nothing to restore`,
    );
  }
  const chosen = choice === 'all' ? undefined : resolveTargets(choice, on);
  const events: LogEvent[] = [];
  const restored: Replacement[] = [];
  const expand = (seq: number) => {
    const event = audit.events.get(seq);
    if (event === undefined) throw new WhatIfInputError(`event #${seq} of the surface was not read; this is a bug in shadowlog`);
    const replacement = replacementAt(audit, seq);
    if (replacement !== undefined && (chosen === undefined || chosen.seqs.has(seq))) {
      restored.push(replacement);
      for (const shadowed of replacement.shadowed) expand(shadowed);
      return;
    }
    events.push(event);
  };
  for (const node of call.nodes) expand(node.seq);
  if (chosen !== undefined) checkReached(chosen, restored, on, call);
  return { events, restored, names: chosen === undefined ? 'all' : chosen.names };
}

interface Targets {
  readonly seqs: ReadonlySet<number>;
  readonly byName: ReadonlyMap<string, readonly number[]>;
  /** Each name, a compaction's first characters spelled out whole. */
  readonly names: readonly string[];
}

function resolveTargets(
  names: readonly string[],
  on: ReadonlyArray<{ readonly replacement: Replacement; readonly depth: number }>,
): Targets {
  if (names.length === 0) throw new WhatIfInputError('--restore takes all, or compaction ids and seqs of replacements');
  const seqs = new Set<number>();
  const byName = new Map<string, number[]>();
  const spelled: string[] = [];
  for (const name of names) {
    const matches = /^\d+$/.test(name)
      ? on.filter(({ replacement }) => replacement.seq === Number(name) || replacement.meteringSeq === Number(name))
      : on.filter(({ replacement }) => replacement.compactionId?.startsWith(name) === true);
    const ids = new Set(matches.map(({ replacement }) => replacement.compactionId));
    if (matches.length === 0)
      throw new RestoreTargetError(
        name,
        `${JSON.stringify(name)} is not a compaction or replacement on this call's surface; ${listing(on)}`,
      );
    if (ids.size > 1)
      throw new RestoreTargetError(
        name,
        `${JSON.stringify(name)} names ${ids.size} compactions (${[...ids].join(', ')}); give more of the id`,
      );
    for (const { replacement } of matches) seqs.add(replacement.seq);
    byName.set(
      name,
      matches.map(({ replacement }) => replacement.seq),
    );
    spelled.push(/^\d+$/.test(name) ? name : (matches[0]?.replacement.compactionId ?? name));
  }
  return { seqs, byName, names: spelled };
}

/** Each name must have undone something: one nested in a replacement left in place is not on the surface. */
function checkReached(
  targets: Targets,
  restored: readonly Replacement[],
  on: ReadonlyArray<{ readonly replacement: Replacement; readonly depth: number }>,
  call: AuditedCall,
): void {
  const undone = new Set(restored.map((replacement) => replacement.seq));
  for (const [name, seqs] of targets.byName) {
    if (seqs.some((seq) => undone.has(seq))) continue;
    const target = on.find(({ replacement }) => replacement.seq === seqs[0]) as { replacement: Replacement; depth: number };
    const outer = enclosing(on, target, undone);
    const outerName = outer === undefined ? undefined : (outer.compactionId ?? String(outer.seq));
    throw new RestoreTargetError(
      name,
      `${describeReplacement(target.replacement)} is not on the surface of turn ${call.turn} step ${call.step}: ${outer === undefined ? 'a later replacement stands for it' : `${describeReplacement(outer)} stands for it there`}; restore that too (--restore ${outerName ?? '…'} ${name}), or --restore all`,
    );
  }
}

/** The nearest replacement the nested `target` stands inside that was left in place (depth-first order lists its ancestors before it). */
function enclosing(
  on: ReadonlyArray<{ readonly replacement: Replacement; readonly depth: number }>,
  target: { readonly replacement: Replacement; readonly depth: number },
  undone: ReadonlySet<number>,
): Replacement | undefined {
  let depth = target.depth;
  for (let position = on.indexOf(target) - 1; position >= 0 && depth > 0; position--) {
    const candidate = on[position] as { replacement: Replacement; depth: number };
    if (candidate.depth >= depth) continue;
    depth = candidate.depth;
    if (!undone.has(candidate.replacement.seq)) return candidate.replacement;
  }
  return undefined;
}

function listing(on: ReadonlyArray<{ readonly replacement: Replacement; readonly depth: number }>): string {
  const top = on.filter(({ depth }) => depth === 0).map(({ replacement }) => describeReplacement(replacement));
  const nested = on.length - top.length;
  return `its surface holds ${top.join(', ')}${nested === 0 ? '' : ` (and ${nested} nested in them)`}`;
}
