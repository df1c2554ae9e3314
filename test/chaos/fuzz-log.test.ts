// Fuzzing the log (issue 6, item 3): random valid logs, then random next appends that are legal
// or break one chosen rule of SPEC §2–§3. Every refused one gets the right typed error and
// leaves the store and the fold exactly as they were; every accepted one keeps the SPEC §3
// properties. SHADOWLOG_FUZZ_CASES sets the number of appends tried (default 3,000);
// SHADOWLOG_FUZZ_SEED replays a run (fast-check prints the seed of a failing one).

import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ShadowlogError, SurfaceOpError } from '../../src/log/errors.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { fixedNow } from '../support/events.js';
import { createTestRegistry } from '../support/log-drafts.js';
import { buildRandomLog, seededRandom } from '../support/random-log.js';
import { recordFigures } from './support/figures.js';
import { checkInvariants, readAll, snapshotOf } from './support/log-model.js';
import { INVALID_KINDS, type Mutation, makeMutation, VALID_KINDS } from './support/mutations.js';

const CASES = Number(process.env.SHADOWLOG_FUZZ_CASES ?? 3000);
const SEED = Number(process.env.SHADOWLOG_FUZZ_SEED ?? 20_261_130);
const APPENDS_PER_LOG = 6;

const counts = {
  cases: 0,
  logs: 0,
  refused: 0,
  accepted: 0,
  byRule: {} as Record<string, number>,
  byKind: {} as Record<string, number>,
};

function errorName(expected: Mutation['expected']): string {
  if ('rule' in expected) return `SurfaceOpError(${expected.rule})`;
  if ('error' in expected) return expected.error.name;
  return 'accepted';
}

async function tryMutation(log: SessionLog, store: MemoryLogStore, mutation: Mutation): Promise<void> {
  const before = await snapshotOf(store, log.sessionId, log.fold);
  let thrown: unknown;
  try {
    await log.append(mutation.batch);
  } catch (error) {
    thrown = error;
  }
  const where = `${mutation.kind}: ${JSON.stringify(mutation.batch)}`;
  counts.cases++;
  counts.byKind[mutation.kind] = (counts.byKind[mutation.kind] ?? 0) + 1;
  if ('valid' in mutation.expected) {
    if (thrown !== undefined) throw new Error(`${where} was refused: ${String(thrown)}`);
    counts.accepted++;
    await checkInvariants(await readAll(store, log.sessionId), log.fold);
    return;
  }
  if (thrown === undefined) throw new Error(`${where} was accepted; expected ${errorName(mutation.expected)}`);
  if (!ShadowlogError.isInstance(thrown) || thrown.code === 'INTERNAL')
    throw new Error(`${where} threw an untyped error: ${String(thrown)}`);
  if ('rule' in mutation.expected) {
    if (!(thrown instanceof SurfaceOpError) || thrown.rule !== mutation.expected.rule)
      throw new Error(`${where}: expected SurfaceOpError(${mutation.expected.rule}), got ${thrown.name}: ${thrown.message}`);
  } else if (!(thrown instanceof mutation.expected.error)) {
    throw new Error(`${where}: expected ${mutation.expected.error.name}, got ${thrown.name}: ${thrown.message}`);
  }
  const rule = thrown instanceof SurfaceOpError ? thrown.rule : thrown.name;
  counts.byRule[rule] = (counts.byRule[rule] ?? 0) + 1;
  counts.refused++;
  const after = await snapshotOf(store, log.sessionId, log.fold);
  if (after !== before) expect(JSON.parse(after)).toEqual(JSON.parse(before));
}

describe(`log fuzzing (${CASES} appends, seed ${SEED})`, () => {
  afterAll(() => {
    recordFigures('fuzz', {
      seed: SEED,
      cases: counts.cases,
      logs: counts.logs,
      refused: counts.refused,
      accepted: counts.accepted,
      byRule: counts.byRule,
    });
  });

  it('refuses every invalid append with its typed error, changing nothing, and keeps the SPEC §3 properties on every valid one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.noShrink(fc.integer({ min: 0, max: 2 ** 31 - 1 })), async (logSeed) => {
        const random = seededRandom(logSeed);
        const generated = buildRandomLog(random, { maxEvents: 60 });
        const store = new MemoryLogStore();
        const [first, ...rest] = generated.batches;
        const log = await SessionLog.create(store, `fuzz-${logSeed}`, {
          now: fixedNow,
          registry: createTestRegistry(),
          harnessVersion: 'test',
        });
        expect(first).toHaveLength(1);
        for (const batch of rest) await log.append(batch);
        counts.logs++;
        await checkInvariants(await readAll(store, log.sessionId), log.fold);
        for (let round = 0; round < APPENDS_PER_LOG; round++) {
          const kinds = random.nextInt(0, 3) === 0 ? VALID_KINDS : INVALID_KINDS;
          // A kind the surface cannot offer (no system head, no tool pair) gives way to another.
          for (let attempt = 0; attempt < 10; attempt++) {
            const mutation = makeMutation(kinds[random.nextInt(0, kinds.length - 1)] as string, random, log.fold);
            if (mutation === undefined) continue;
            await tryMutation(log, store, mutation);
            break;
          }
        }
      }),
      { seed: SEED, numRuns: Math.max(1, Math.ceil(CASES / APPENDS_PER_LOG)), endOnFailure: true },
    );
    expect(counts.cases).toBeGreaterThanOrEqual(CASES * 0.9);
    // Every kind of bad append was tried, and both outcomes happened.
    for (const kind of [...INVALID_KINDS, ...VALID_KINDS]) expect(counts.byKind[kind] ?? 0, kind).toBeGreaterThan(0);
    console.log(`log fuzzing: ${JSON.stringify(counts)}`);
  }, 600_000);
});
