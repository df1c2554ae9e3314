// Copying, exporting and importing branches (SPEC §14): an export carries the ancestors' prefix
// and names the link; an import into a store that holds the parent rebuilds the link (own events
// stored only), and one into a store without it stores the whole log, saying which parent is
// missing; copy takes a branch's ancestors along, each before its branches, linked.

import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { copySessions } from '../../src/store/copy-sessions.js';
import { exportSession, importSession } from '../../src/store/jsonl.js';
import type { LogStore } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow, sampleDrafts } from '../support/events.js';

const OPTIONS = { checkpoints: false, now: fixedNow } as const;

async function readAll(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

/** parent (7 events), child forking it after 3 (and 2 own), grandchild forking child after 5 (and 2 own). */
async function family(): Promise<MemoryLogStore> {
  const store = new MemoryLogStore();
  const parent = await SessionLog.create(store, 'parent', { ...OPTIONS, harnessVersion: 'test' });
  await parent.append(sampleDrafts().slice(1));
  const child = await SessionLog.fork(store, 'parent', { ...OPTIONS, at: 3, id: 'child' });
  await child.append([drafts.assistant('Child answer.')]);
  const grandchild = await SessionLog.fork(store, 'child', { ...OPTIONS, at: 5, id: 'grandchild' });
  await grandchild.append([drafts.user('Grandchild question.')]);
  return store;
}

async function exported(store: LogStore, sessionId: string): Promise<Buffer> {
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportSession(store, sessionId, output);
  return Buffer.concat(chunks);
}

describe('branches across stores', () => {
  it('exports a branch with its ancestors’ prefix and its link; an import without the parent stores it whole and says so', async () => {
    const source = await family();
    const file = await exported(source, 'grandchild');
    const [header] = file.toString('utf8').split('\n');
    expect(JSON.parse(header as string)).toMatchObject({ sessionId: 'grandchild', fork: { parentSessionId: 'child', forkSeq: 5 } });
    const target = new MemoryLogStore();
    const result = await importSession(target, Readable.from([file]));
    expect(result).toMatchObject({
      sessionId: 'grandchild',
      events: 8,
      fork: { parentSessionId: 'child', forkSeq: 5, stored: 'standalone', reason: expect.stringMatching(/no session child/) },
    });
    expect(await readAll(target, 'grandchild')).toEqual(await readAll(source, 'grandchild'));
    expect(await target.readForkLink('grandchild')).toBeUndefined();
    expect((await verifyLog(target.read('grandchild'))).ok).toBe(true);
  });

  it('rebuilds the link on import into a store that holds the parent, storing the branch’s own events only', async () => {
    const source = await family();
    const target = new MemoryLogStore();
    await importSession(target, Readable.from([await exported(source, 'parent')]));
    const child = await importSession(target, Readable.from([await exported(source, 'child')]));
    expect(child).toMatchObject({ events: 6, fork: { parentSessionId: 'parent', forkSeq: 3, stored: 'linked' } });
    const grandchild = await importSession(target, Readable.from([await exported(source, 'grandchild')]));
    expect(grandchild.fork?.stored).toBe('linked');
    expect(await target.readForkLink('grandchild')).toEqual(await source.readForkLink('grandchild'));
    expect(await readAll(target, 'grandchild')).toEqual(await readAll(source, 'grandchild'));
    // The same file again is already there.
    expect((await importSession(target, Readable.from([await exported(source, 'grandchild')]))).alreadyPresent).toBe(true);
    // A parent of another history under the same id: the branch is stored whole, not linked to it.
    const other = new MemoryLogStore();
    const impostor = await SessionLog.create(other, 'parent', { ...OPTIONS, harnessVersion: 'other' });
    await impostor.append(sampleDrafts().slice(1));
    const standalone = await importSession(other, Readable.from([await exported(source, 'child')]));
    expect(standalone.fork).toMatchObject({ stored: 'standalone', reason: expect.stringMatching(/another history/) });
    expect(await other.readForkLink('child')).toBeUndefined();
  });

  it('copies a branch with its ancestors, each before its branches, linked, and skips what the target holds', async () => {
    const source = await family();
    const target = new MemoryLogStore();
    const result = await copySessions(source, target, { sessionIds: ['grandchild'] });
    expect(result.sessions.map(({ sessionId, events, status }) => [sessionId, events, status])).toEqual([
      ['parent', 7, 'copied'],
      ['child', 2, 'copied'],
      ['grandchild', 2, 'copied'],
    ]);
    for (const id of ['parent', 'child', 'grandchild']) {
      expect(await readAll(target, id)).toEqual(await readAll(source, id));
      expect(await target.readForkLink(id)).toEqual(await source.readForkLink(id));
    }
    const again = await copySessions(source, target);
    expect(again.copied).toBe(0);
  });
});
