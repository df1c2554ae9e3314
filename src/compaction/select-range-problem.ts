// Whether a selected range still stands on the surface: the check the transaction makes before
// the lock and again before it appends the replacement.

import type { SurfaceFold, SurfaceNode } from '../log/surface-fold.js';
import type { Selection } from './select-range.js';

/** Why `selection` is not (or no longer) a run of consecutive current surface nodes, if it is not. */
export function rangeProblem(fold: SurfaceFold, selection: Selection): string | undefined {
  let expected: SurfaceNode | undefined = fold.node(selection.startSeq);
  for (const seq of selection.seqs) {
    if (expected === undefined || expected.seq !== seq) return `node #${seq} is no longer where it was on the surface`;
    expected = fold.nodeAfter(seq);
  }
  return undefined;
}
