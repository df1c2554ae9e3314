// Kill points for the crash-injection suite, drawn from a recorded seed: between any two
// appends (right before one, or right after it returned) and inside each step of the
// compaction transaction.

export const TRANSACTION_POINTS = ['before-start', 'after-start', 'summarizing', 'before-summary', 'after-summary', 'after-end'] as const;
export type TransactionPoint = (typeof TRANSACTION_POINTS)[number];

/** Points at which a compaction/start is left without its compaction/end. */
export const ORPHANING_POINTS: ReadonlySet<string> = new Set(['after-start', 'summarizing', 'before-summary', 'after-summary']);

export type KillPoint =
  | { readonly kind: 'append'; readonly when: 'before' | 'after'; readonly index: number }
  | { readonly kind: 'step'; readonly name: TransactionPoint; readonly compaction: number };

export function killArgument(point: KillPoint): string {
  return point.kind === 'append' ? `${point.when}-append:${point.index}` : `step:${point.name}:${point.compaction}`;
}

/** mulberry32: a small, seedable generator; the same seed gives the same points. */
export function createRandom(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return Math.floor((((value ^ (value >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/**
 * `count` points for a run that makes `appends` appends and `compactions` compactions: every
 * transaction point and both append variants first, then a random mix, half of each kind.
 */
export function chooseKillPoints(seed: number, count: number, appends: number, compactions: number): KillPoint[] {
  const random = createRandom(seed);
  const append = (when: 'before' | 'after'): KillPoint => ({ kind: 'append', when, index: random(appends) });
  const step = (name: TransactionPoint): KillPoint => ({ kind: 'step', name, compaction: 1 + random(compactions) });
  const fixed: KillPoint[] = [...TRANSACTION_POINTS.map(step), append('before'), append('after')];
  const points: KillPoint[] = [];
  for (let index = 0; index < count; index++) {
    const next = fixed[index];
    if (next !== undefined) points.push(next);
    else if (random(2) === 0) points.push(append(random(2) === 0 ? 'before' : 'after'));
    else points.push(step(TRANSACTION_POINTS[random(TRANSACTION_POINTS.length)] as TransactionPoint));
  }
  return points;
}
