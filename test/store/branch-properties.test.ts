// Properties of branches over random valid logs (SPEC §14): for any log and any valid fork
// point, the branch's surface at the fork is the parent's surface at that seq; appending to the
// branch never changes the parent; a refused fork point has no valid point between it and the
// nearest ones the error names; and the branch's log verifies as one chain.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ForkPointError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { forkPointProblem } from '../../src/log/fork-point.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { verifyLog } from '../../src/log/verify.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow } from '../support/events.js';
import { createTestRegistry } from '../support/log-drafts.js';
import { buildRandomLog } from '../support/random-log.js';

const RUNS = 60;
const seeds = fc.noShrink(fc.integer({ min: 0, max: 2 ** 31 - 1 }));

async function readAll(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

function surfaceOf(fold: SurfaceFold) {
  return fold.toArray().map((node) => ({ seq: node.seq, sourceEventSeqs: [...node.sourceEventSeqs], hash: node.event.hash }));
}

/** A parent session from a random log, appended batch by batch as the harness would; and the valid fork points. */
async function parentFrom(seed: number) {
  const registry = createTestRegistry();
  const store = new MemoryLogStore();
  const log = buildRandomLog(seed, { maxEvents: 80 });
  const [first, ...rest] = log.batches;
  const parent = await SessionLog.create(store, 'parent', { registry, checkpoints: false, now: fixedNow, harnessVersion: 'test' });
  await parent.append((first ?? []).slice(1));
  for (const batch of rest) await parent.append(batch);
  const fold = new SurfaceFold({ registry });
  const valid: boolean[] = [];
  const surfaces: ReturnType<typeof surfaceOf>[] = [];
  for (const event of await readAll(store, 'parent')) {
    fold.apply(event);
    valid.push(forkPointProblem(fold) === undefined);
    surfaces.push(surfaceOf(fold));
  }
  return { store, registry, valid, surfaces };
}

describe('branch properties', () => {
  it('a branch at any valid point has the parent surface there, and growing it leaves the parent as it was', async () => {
    await fc.assert(
      fc.asyncProperty(seeds, fc.nat(), async (seed, pick) => {
        const { store, registry, valid, surfaces } = await parentFrom(seed);
        const points = valid.flatMap((ok, seq) => (ok ? [seq] : []));
        const at = points[pick % points.length] as number;
        const before = await readAll(store, 'parent');
        const branch = await SessionLog.fork(store, 'parent', { registry, checkpoints: false, now: fixedNow, at, id: 'branch' });
        // The surface at the fork, with the session/fork applied (a log-only event: it changes no node).
        expect(surfaceOf(branch.fold)).toEqual(surfaces[at]);
        const reopened = await SessionLog.open(store, 'branch', { registry, checkpoints: false });
        expect(surfaceOf(reopened.fold)).toEqual(surfaces[at]);
        await branch.append([drafts.user('Only on the branch.')]);
        expect(await readAll(store, 'parent')).toEqual(before);
        const report = await verifyLog(store.read('branch'), { registry });
        expect(report).toMatchObject({ ok: true, events: at + 3 });
      }),
      { numRuns: RUNS },
    );
  });

  it('a refused fork point names the nearest valid seqs, with none valid between', async () => {
    await fc.assert(
      fc.asyncProperty(seeds, fc.nat(), async (seed, pick) => {
        const { store, registry, valid } = await parentFrom(seed);
        const refused = valid.flatMap((ok, seq) => (ok ? [] : [seq]));
        if (refused.length === 0) return;
        const at = refused[pick % refused.length] as number;
        const error = await SessionLog.fork(store, 'parent', { registry, checkpoints: false, at, id: 'branch' }).catch(
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(ForkPointError);
        const { before, after } = error as ForkPointError;
        const expectedBefore = valid.slice(0, at).lastIndexOf(true);
        const expectedAfter = valid.indexOf(true, at + 1);
        expect(before).toBe(expectedBefore === -1 ? undefined : expectedBefore);
        expect(after).toBe(expectedAfter === -1 ? undefined : expectedAfter);
        expect(await store.head('branch')).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });
});
