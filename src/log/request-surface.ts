// A model/request records the surface it rendered (SPEC §4): its surfaceSeqs must be exactly the
// surface at its position, or replay would rebuild a request from nodes other than the ones the
// record claims were sent.

import { InvalidEventError } from './errors.js';

export function checkRequestSurface(surface: Iterable<{ readonly seq: number }>, surfaceSeqs: readonly number[], seq: number): void {
  let position = 0;
  let difference: string | undefined;
  for (const node of surface) {
    if (difference === undefined && surfaceSeqs[position] !== node.seq) {
      const recorded = surfaceSeqs[position];
      difference = `position ${position}: recorded ${recorded === undefined ? 'nothing' : `#${recorded}`}, the surface has #${node.seq}`;
    }
    position++;
  }
  if (difference === undefined && surfaceSeqs.length > position) {
    difference = `position ${position}: recorded #${surfaceSeqs[position]}, the surface has nothing`;
  }
  if (difference !== undefined) {
    throw new InvalidEventError(
      'data.surfaceSeqs',
      'the seqs of the surface at its position, in order',
      `a list that differs first at ${difference} (${surfaceSeqs.length} recorded, ${position} on the surface)`,
      seq,
    );
  }
}
