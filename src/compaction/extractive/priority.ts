// Priorities are a tier, then a score within the tier: what a summary must keep (errors, files,
// decisions) always outranks what merely scores well (a salient but plain sentence).

export const TIER = { plain: 0, supporting: 1, key: 2, essential: 3 } as const;
export type Tier = (typeof TIER)[keyof typeof TIER];

/** The tier plus the score squeezed into [0, 1), so that no score lifts an item into the next tier. */
export function priorityOf(tier: Tier, score: number): number {
  const positive = Math.max(0, score);
  return tier + positive / (positive + 1);
}

/** Later messages weigh a little more: they are closer to where the work continues. */
export function recencyOf(messageIndex: number, lastMessageIndex: number): number {
  return 0.75 + (0.5 * messageIndex) / Math.max(1, lastMessageIndex);
}
