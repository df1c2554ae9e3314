// The branch cases of the LogStore contract (SPEC §14), run by every backend's spec file beside
// describeLogStoreContract: a branch keeps only its own events, reads its parent's prefix through
// the store, names its parent in listSessions and readForkLink, and never changes its parent.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConcurrencyError, ForkPointError, SessionExistsError, SessionNotFoundError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { verifyLog } from '../../src/log/verify.js';
import { ForkParentError } from '../../src/store/branch-link.js';
import type { LogStore } from '../../src/store/log-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow, sampleDrafts } from '../support/events.js';
import type { ContractFeatures, StoreHarness } from './log-store-contract.js';

async function readAll(store: LogStore, sessionId: string, range = {}): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId, range)) out.push(...page);
  return out;
}

const LOG_OPTIONS = { checkpoints: false, now: fixedNow } as const;

/** The parent: sampleDrafts (7 events, a tool call at 4 answered at 5) and a second turn. */
async function createParent(store: LogStore, id = 'parent'): Promise<SessionLog> {
  const log = await SessionLog.create(store, id, { ...LOG_OPTIONS, harnessVersion: 'test' });
  await log.append(sampleDrafts().slice(1));
  await log.append([drafts.turnStart(2), drafts.user('And the other test?'), drafts.assistant('It passes.')]);
  return log;
}

export function describeBranchContract(name: string, createHarness: () => Promise<StoreHarness>, features: ContractFeatures = {}): void {
  describe(`LogStore contract, branches: ${name}`, () => {
    let harness: StoreHarness;
    let store: LogStore;

    beforeEach(async () => {
      harness = await createHarness();
      store = harness.store;
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it('reads a branch as its parent prefix followed by its own events, by range and a page at a time', async () => {
      await createParent(store);
      const parentEvents = await readAll(store, 'parent');
      const branch = await SessionLog.fork(store, 'parent', { ...LOG_OPTIONS, at: 6, id: 'branch' });
      await branch.append([drafts.turnStart(2), drafts.user('Now the docs.')]);
      const all = await readAll(store, 'branch');
      expect(all.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(all.slice(0, 7)).toEqual(parentEvents.slice(0, 7));
      expect(all[7]).toMatchObject({
        type: 'session/fork',
        data: { parentSessionId: 'parent', forkSeq: 6, parentHash: parentEvents[6]?.hash },
      });
      expect(await store.head('branch')).toEqual({ nextSeq: 10, lastHash: all[9]?.hash });
      const pages: number[][] = [];
      for await (const page of store.read('branch', { fromSeq: 5, toSeq: 10, pageSize: 2 })) pages.push(page.map((event) => event.seq));
      expect(pages.flat()).toEqual([5, 6, 7, 8, 9]);
      expect(pages.every((page) => page.length <= 2)).toBe(true);
      expect(await readAll(store, 'branch', { fromSeq: 8 })).toEqual(all.slice(8));
      expect(await readAll(store, 'branch', { toSeq: 3 })).toEqual(all.slice(0, 3));
      expect(await store.readEvent('branch', 2)).toEqual(parentEvents[2]);
      expect(await store.readEvent('branch', 8)).toEqual(all[8]);
      expect(await store.readForkLink?.('branch')).toEqual({ parentSessionId: 'parent', forkSeq: 6, parentHash: parentEvents[6]?.hash });
      expect(await store.readForkLink?.('parent')).toBeUndefined();
      await expect(store.readForkLink?.('nobody')).rejects.toBeInstanceOf(SessionNotFoundError);
      const listed = await store.listSessions();
      expect(listed.find((session) => session.id === 'branch')).toMatchObject({ events: 10, parent: { sessionId: 'parent', forkSeq: 6 } });
      expect(listed.find((session) => session.id === 'parent')).toMatchObject({ events: 10 });
      expect(listed.find((session) => session.id === 'parent')?.parent).toBeUndefined();
      // The branch verifies as one chain through its parent's prefix.
      expect(await verifyLog(store.read('branch'))).toMatchObject({ ok: true, events: 10 });
    });

    it('never changes the parent when the branch grows, nor the branch when the parent does', async () => {
      const parent = await createParent(store);
      const before = await readAll(store, 'parent');
      const branch = await SessionLog.fork(store, 'parent', { ...LOG_OPTIONS, at: 3, id: 'branch' });
      await branch.append([drafts.assistant('A different answer.')]);
      expect(await readAll(store, 'parent')).toEqual(before);
      const branchBefore = await readAll(store, 'branch');
      await parent.append([drafts.user('More on the parent.')]);
      expect(await readAll(store, 'branch')).toEqual(branchBefore);
      expect((await store.head('branch'))?.nextSeq).toBe(6);
    });

    it('nests: a branch of a branch reads its ancestors in turn', async () => {
      await createParent(store);
      const child = await SessionLog.fork(store, 'parent', { ...LOG_OPTIONS, at: 6, id: 'child' });
      await child.append([drafts.turnStart(2), drafts.user('Child turn.'), drafts.assistant('Child answer.')]);
      const grandchild = await SessionLog.fork(store, 'child', { ...LOG_OPTIONS, at: 9, id: 'grandchild' });
      await grandchild.append([drafts.user('Grandchild.')]);
      const childEvents = await readAll(store, 'child');
      const all = await readAll(store, 'grandchild');
      expect(all.slice(0, 10)).toEqual(childEvents.slice(0, 10));
      expect(all.map((event) => event.type).slice(7)).toEqual([
        'session/fork',
        'turn/start',
        'user/message',
        'session/fork',
        'user/message',
      ]);
      for await (const page of store.read('grandchild', { fromSeq: 1, pageSize: 3 })) expect(page.length).toBeLessThanOrEqual(3);
      expect(await store.readEvent('grandchild', 1)).toEqual(childEvents[1]);
      expect(await verifyLog(store.read('grandchild'))).toMatchObject({ ok: true, events: 12 });
      expect(await store.readForkLink?.('grandchild')).toMatchObject({ parentSessionId: 'child', forkSeq: 9 });
      const reopened = await SessionLog.open(store, 'grandchild', LOG_OPTIONS);
      expect(reopened.nextSeq).toBe(12);
    });

    it('refuses a fork point inside a tool call, naming the nearest valid seqs, and writes nothing', async () => {
      await createParent(store);
      const error = await SessionLog.fork(store, 'parent', { ...LOG_OPTIONS, at: 4, id: 'branch' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ForkPointError);
      expect(error).toMatchObject({ code: 'INVALID_FORK_POINT', seq: 4, before: 3, after: 5 });
      expect((error as Error).message).toMatch(/call-1/);
      expect(await store.head('branch')).toBeUndefined();
      await expect(SessionLog.fork(store, 'parent', { ...LOG_OPTIONS, at: 99, id: 'branch' })).rejects.toMatchObject({
        code: 'SEQ_OUT_OF_RANGE',
      });
      await expect(SessionLog.fork(store, 'nobody', { ...LOG_OPTIONS, at: 1, id: 'branch' })).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(SessionLog.fork(store, 'parent', { ...LOG_OPTIONS, at: 1, id: 'parent' })).rejects.toBeInstanceOf(SessionExistsError);
    });

    it('refuses a branch whose parent is missing or does not hold the hash it names, writing nothing', async () => {
      await createParent(store);
      const parentEvents = await readAll(store, 'parent');
      const sealBranch = (parentSessionId: string, parentHash: string): LogEvent[] => {
        const fold = new SurfaceFold();
        for (const event of parentEvents.slice(0, 4)) fold.apply(event);
        // The fold seals the fork on the hash it holds; the store is then told another parent.
        const draft: EventDraft = { type: 'session/fork', data: { parentSessionId, forkSeq: 3, parentHash } };
        return [...prepareAppend(fold, [draft], fixedNow).events];
      };
      const good = sealBranch('parent', parentEvents[3]?.hash as string);
      await expect(
        store.append('branch', sealBranch('nobody', parentEvents[3]?.hash as string), { expectedSeq: 4 }),
      ).rejects.toBeInstanceOf(ForkParentError);
      const wrongHash = good.map((event) => ({ ...event, data: { ...event.data, parentHash: 'f'.repeat(64) } }));
      await expect(store.append('branch', wrongHash, { expectedSeq: 4 })).rejects.toBeInstanceOf(ForkParentError);
      // A batch at a seq other than 0 that does not open a branch: somebody else's session.
      await expect(store.append('branch', parentEvents.slice(4, 6), { expectedSeq: 4 })).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(store.append('branch', good, { expectedSeq: 3 })).rejects.toMatchObject({ code: 'CORRUPT_LOG' });
      expect(await store.head('branch')).toBeUndefined();
      expect((await store.listSessions()).map((session) => session.id)).toEqual(['parent']);
      await store.append('branch', good, { expectedSeq: 4 });
      expect((await store.head('branch'))?.nextSeq).toBe(5);
      await expect(store.append('branch', good, { expectedSeq: 4 })).rejects.toBeInstanceOf(ConcurrencyError);
    });

    it('lets only one of two racing forks to the same id land', async () => {
      await createParent(store);
      const second = await harness.openSecond();
      const results = await Promise.allSettled([
        SessionLog.fork(store, 'parent', { ...LOG_OPTIONS, at: 3, id: 'branch' }),
        SessionLog.fork(second, 'parent', { ...LOG_OPTIONS, at: 6, id: 'branch' }),
      ]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
      expect(['CONCURRENCY', 'SESSION_EXISTS']).toContain((refused.reason as { code?: string }).code);
      expect(await verifyLog(store.read('branch'))).toMatchObject({ ok: true });
    });

    it.runIf(features.storedForm === true)(
      'stores only the branch’s own events, and verify finds a parent changed after the fork',
      async () => {
        await createParent(store);
        const branch = await SessionLog.fork(store, 'parent', { ...LOG_OPTIONS, at: 6, id: 'branch' });
        await branch.append([drafts.user('Own.')]);
        const rows = await (harness.storedRows as NonNullable<StoreHarness['storedRows']>)('branch');
        expect(rows.map((row) => row.seq)).toEqual([7, 8]);
        const parentRow = (await (harness.storedRows as NonNullable<StoreHarness['storedRows']>)('parent'))[3];
        const changed = JSON.parse(parentRow?.body as string) as LogEvent;
        await (harness.damageBody as NonNullable<StoreHarness['damageBody']>)(
          'parent',
          3,
          JSON.stringify({ ...changed, data: { content: [{ type: 'text', text: 'Changed after the fork.' }] } }),
        );
        const report = await verifyLog(store.read('branch'));
        expect(report.ok).toBe(false);
        expect(report.firstBadSeq).toBe(3);
      },
    );
  });
}
