// tune on a store with branches counts a shared prefix once (SPEC §14): a branch tuned with its
// parent is counted from its fork point on, and what it leaves out is exactly what the parent
// counts for the same calls; a branch tuned alone counts its whole history.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { tuneSessions } from '../../src/tune/index.js';
import { buildSession, prose, type TurnSpec } from './support/hand-built.js';

const turnsOf = (sizes: readonly number[], seed: number): TurnSpec[] =>
  sizes.map((size, index) => ({
    user: `question ${index + 1}: ${prose(size, seed + index)}`,
    steps: [{ answer: `answer ${index + 1}: ${prose(Math.round(size / 2), seed + index + 7)}` }],
  }));

/** The drafts of plain turns appended to a branch whose surface so far is `surface`. */
function ownTurns(turns: readonly TurnSpec[], firstTurn: number, surface: number[], nextSeq: number): EventDraft[] {
  const drafts: EventDraft[] = [];
  let seq = nextSeq;
  const add = (draft: EventDraft) => {
    drafts.push(draft);
    if (draft.surfaceOp === 'append') surface.push(seq);
    seq++;
  };
  turns.forEach((turn, index) => {
    const number = firstTurn + index;
    add({ type: 'turn/start', data: { turn: number } });
    add({ type: 'user/message', data: { content: [{ type: 'text', text: turn.user }] }, surfaceOp: 'append' });
    for (const [stepIndex, step] of turn.steps.entries()) {
      add({
        type: 'model/request',
        data: {
          turn: number,
          step: stepIndex + 1,
          provider: 'scripted',
          model: 'scripted',
          params: {},
          surfaceSeqs: [...surface],
          requestDigest: 'a'.repeat(64),
          estimatedTokens: 0,
          rendererVersion: '1',
        },
      });
      add({
        type: 'assistant/message',
        data: { content: [{ type: 'text', text: step.answer }], toolCalls: [], model: 'scripted' },
        surfaceOp: 'append',
      });
    }
    add({ type: 'turn/end', data: { turn: number, reason: 'completed' } });
  });
  return drafts;
}

async function parentAndBranch(parentSizes: number[], forkTurn: number, branchSizes: number[]) {
  const store = new MemoryLogStore();
  const parent: LogEvent[] = buildSession(turnsOf(parentSizes, 1));
  await store.append('p', parent, { expectedSeq: 0 });
  const forkSeq = (parent.find((event) => event.type === 'turn/end' && (event.data as { turn: number }).turn === forkTurn) as LogEvent).seq;
  const branch = await SessionLog.fork(store, 'p', { at: forkSeq, id: 'b' });
  const surface = parent.filter((event) => event.seq <= forkSeq && event.surfaceOp === 'append').map((event) => event.seq);
  if (branchSizes.length > 0) await branch.append(ownTurns(turnsOf(branchSizes, 50), forkTurn + 1, surface, forkSeq + 2));
  return { store, forkSeq };
}

describe('tune on a store with branches', () => {
  it('counts the prefix once: with the parent, a branch leaves out exactly what the parent counts for those calls', async () => {
    let compactedInPrefix = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 100, max: 2_400 }), { minLength: 2, maxLength: 7 }),
        fc.array(fc.integer({ min: 100, max: 2_400 }), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        async (parentSizes, branchSizes, pick) => {
          const forkTurn = 1 + (pick % (parentSizes.length - 1));
          const { store } = await parentAndBranch(parentSizes, forkTurn, branchSizes);
          const options = { window: 2_500, harnessSettings: false };
          const both = await tuneSessions(
            [
              { store, sessionId: 'p' },
              { store, sessionId: 'b' },
            ],
            options,
          );
          const parentAlone = await tuneSessions([{ store, sessionId: 'p' }], options);
          const branchAlone = await tuneSessions([{ store, sessionId: 'b' }], options);
          const [parent, branch] = both.sessions;
          if (parent?.policies.some((policy) => policy.compactionCalls.some((call) => call <= forkTurn))) compactedInPrefix++;
          expect(parent).toEqual(parentAlone.sessions[0]);
          expect(branch?.calls).toBe(branchSizes.length);
          expect(branch?.sharedPrefix).toEqual({ countedIn: 'p', forkSeq: expect.any(Number), calls: forkTurn });
          expect(branchAlone.sessions[0]?.calls).toBe(forkTurn + branchSizes.length);
          expect(branchAlone.sessions[0]?.sharedPrefix).toBeUndefined();
          for (const [index, alone] of (branchAlone.sessions[0]?.policies ?? []).entries()) {
            const own = branch?.policies[index];
            const prefix = parent?.policies[index]?.tokensPerCall.slice(0, forkTurn) ?? [];
            // The branch replays its prefix as the parent did: what it leaves out is what the parent sent for those calls.
            expect(alone.tokensPerCall).toEqual([...prefix, ...(own?.tokensPerCall ?? [])]);
            const sum = (values: ReadonlyArray<number | null>) => values.reduce<number>((total, value) => total + (value ?? 0), 0);
            expect(own?.tokensSent).toBe(sum(own?.tokensPerCall ?? []));
            expect(alone.tokensSent).toBe(sum(prefix) + (own?.tokensSent ?? 0));
          }
        },
      ),
      // The first example compacts inside its prefix under every policy that compacts.
      { numRuns: 12, examples: [[[2_400, 2_400, 2_400, 2_400, 2_400, 2_400], [800, 1_600], 4]] },
    );
    // The property is about compaction state carried through a prefix: some runs must compact in it.
    expect(compactedInPrefix).toBeGreaterThan(0);
  }, 120_000);

  it('leaves out a branch with no call of its own, naming it', async () => {
    const { store } = await parentAndBranch([300, 400, 500], 2, []);
    const report = await tuneSessions(
      [
        { store, sessionId: 'p' },
        { store, sessionId: 'b' },
      ],
      { window: 4_000, harnessSettings: false },
    );
    expect(report.sessions.map((session) => session.sessionId)).toEqual(['p']);
    expect(report.prefixOnlyBranches).toEqual(['b']);
  });
});

describe('tune counts a prefix once in drops and failed compactions too', () => {
  it('a branch forked at its parent end, tuned with it, adds only the drops of its own calls', async () => {
    const parentSizes = [2_400, 2_400, 2_400, 2_400, 2_400];
    const { store } = await parentAndBranch(parentSizes, parentSizes.length, [800, 1_600]);
    const options = { window: 2_500, harnessSettings: false };
    const both = await tuneSessions(
      [
        { store, sessionId: 'p' },
        { store, sessionId: 'b' },
      ],
      options,
    );
    const alone = await tuneSessions([{ store, sessionId: 'b' }], options);
    const [parent, branch] = both.sessions;
    let dropsInPrefix = 0;
    for (const [index, whole] of (alone.sessions[0]?.policies ?? []).entries()) {
      const before = parent?.policies[index];
      const own = branch?.policies[index];
      dropsInPrefix += before?.drops ?? 0;
      // The prefix is the whole parent: the branch alone is the parent's figures plus the branch's own.
      expect(whole.drops).toBe((before?.drops ?? 0) + (own?.drops ?? 0));
      expect(whole.failedCompactions).toBe((before?.failedCompactions ?? 0) + (own?.failedCompactions ?? 0));
    }
    expect(dropsInPrefix).toBeGreaterThan(0);
  }, 60_000);
});
