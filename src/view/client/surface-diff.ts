// What changed on the surface from one model call to a later one: nodes appended, nodes replaced
// (by a compaction's summary, a pruned or masked tool result, or a client's own rewrite) with the
// nodes of the earlier surface each stands for, and nodes gone without a replacement. The audit
// page's per-call panel and `shadowlog diff` both use it; it is a page module (the page's script
// can only use its own modules) that imports nothing, so Node code reads it too.
//
// Between two calls far apart a replacement may stand for an earlier one (a summary of a summary)
// and for nodes that came after the first call: its sources are followed through every
// replacement not on the earlier surface, down to the earlier surface's nodes.

/** What the diff reads of an event: its type and, for a replacement, the events it lists as sources. */
export interface DiffEvent {
  readonly type: string;
  readonly sourceEventSeqs?: unknown;
}

/** How a replacement came about: by the log-only event among its sources, or none (a client's rewrite the proxy recorded). */
export type ReplacementKind = 'compacted' | 'pruned' | 'masked' | 'replaced';

export interface SurfaceReplacement {
  /** The node on the later surface. */
  readonly seq: number;
  /** The nodes of the earlier surface it stands for, ascending. */
  readonly shadowed: number[];
  readonly kind: ReplacementKind;
  /** Nodes it stands for that came onto the surface after the earlier call, ascending. */
  readonly since: number[];
  /** Replacements it stands for that came and went between the two calls (a summary summarized again), ascending. */
  readonly via: number[];
}

/** What changed on the surface from one call to another. */
export interface SurfaceDiff {
  /** Nodes on the later surface only, standing for none of the earlier one's. */
  readonly appended: number[];
  /**
   * The appended nodes that are replacements all the same, of nodes that came after the earlier
   * call (a tool result pruned before it was first sent): what each stands for (`shadowed` empty).
   */
  readonly appendedReplacements: SurfaceReplacement[];
  readonly replaced: SurfaceReplacement[];
  /** Nodes of the earlier surface that no node of the later one stands for (never, in a log that verifies). */
  readonly removed: number[];
}

export const SURFACE_TYPES = new Set(['system/message', 'user/message', 'assistant/message', 'tool/result']);

const KINDS: Readonly<Record<string, ReplacementKind>> = {
  'compaction/summary': 'compacted',
  'compaction/prune': 'pruned',
  'compaction/mask': 'masked',
};

/** The sources an event lists: its sourceEventSeqs when it is a replacement, else none. */
export function sourcesOf(event: DiffEvent | undefined): readonly number[] {
  const sources = event?.sourceEventSeqs;
  return Array.isArray(sources) ? sources.filter((seq): seq is number => typeof seq === 'number') : [];
}

/** How the replacement `event` came about, read from the log-only events among its sources. */
export function replacementKind(event: DiffEvent | undefined, eventAt: (seq: number) => DiffEvent | undefined): ReplacementKind {
  for (const source of sourcesOf(event)) {
    const kind = KINDS[eventAt(source)?.type ?? ''];
    if (kind !== undefined) return kind;
  }
  return 'replaced';
}

/** The change from the surface `earlier` (seqs in order) to the later surface `later`. */
export function diffSurfaces(
  earlier: readonly number[],
  later: readonly number[],
  eventAt: (seq: number) => DiffEvent | undefined,
): SurfaceDiff {
  const before = new Set(earlier);
  const now = new Set(later);
  const gone = new Set(earlier.filter((seq) => !now.has(seq)));
  const diff: SurfaceDiff = { appended: [], appendedReplacements: [], replaced: [], removed: [] };
  const ascending = (a: number, b: number) => a - b;
  const covered = new Set<number>();
  for (const seq of later) {
    if (before.has(seq)) continue;
    const shadowed: number[] = [];
    const since: number[] = [];
    const via: number[] = [];
    const seen = new Set<number>();
    const stack = [...sourcesOf(eventAt(seq))];
    while (stack.length > 0) {
      const source = stack.pop() as number;
      const event = eventAt(source);
      if (seen.has(source) || event === undefined || !SURFACE_TYPES.has(event.type)) continue;
      seen.add(source);
      if (gone.has(source)) {
        shadowed.push(source);
      } else if (!before.has(source) && sourcesOf(event).length > 0) {
        via.push(source);
        stack.push(...sourcesOf(event));
      } else if (!before.has(source)) {
        since.push(source);
      }
    }
    for (const source of shadowed) covered.add(source);
    if (shadowed.length === 0) diff.appended.push(seq);
    if (shadowed.length === 0 && since.length === 0) continue;
    (shadowed.length === 0 ? diff.appendedReplacements : diff.replaced).push({
      seq,
      shadowed: shadowed.sort(ascending),
      kind: replacementKind(eventAt(seq), eventAt),
      since: since.sort(ascending),
      via: via.sort(ascending),
    });
  }
  diff.removed.push(...earlier.filter((seq) => gone.has(seq) && !covered.has(seq)));
  return diff;
}
