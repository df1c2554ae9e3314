// SessionLog on a store whose appendAll overlaps writing with reading the source (PostgreSQL):
// a long append is sealed in parts and streamed, one transaction still. The events are those a
// plain append makes; a refused draft in a later part, or a store that fails after parts were
// sent, stores nothing and leaves the fold (and the events held back by `hold`) as the plain
// path does. On a memory store that says it overlaps, to see the parts, and on a real
// PostgreSQL server when SHADOWLOG_TEST_POSTGRES_URL is set.

import { afterAll, describe, expect, it } from 'vitest';
import { SurfaceOpError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import type { AppendOptions } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow } from '../support/events.js';
import { findPostgres } from '../support/postgres.js';

/** A memory store that streams like PostgreSQL's, recording the batch sizes of each appendAll. */
class StreamingMemoryStore extends MemoryLogStore {
  readonly overlapsAppendAll = true;
  readonly streams: number[][] = [];
  appends = 0;
  /** Fails the appendAll once it has read this many batches. */
  failAfterBatches: number | undefined;
  /** Stops reading the source after this many batches and reports success: a broken store. */
  stopAfterBatches: number | undefined;

  override async append(sessionId: string, events: readonly LogEvent[], options: AppendOptions): Promise<void> {
    this.appends++;
    return super.append(sessionId, events, options);
  }

  override appendAll(sessionId: string, batches: AsyncIterable<readonly LogEvent[]>, options: AppendOptions): Promise<number> {
    const seen: number[] = [];
    this.streams.push(seen);
    const failAfter = this.failAfterBatches;
    const stopAfter = this.stopAfterBatches;
    async function* recorded() {
      for await (const batch of batches) {
        seen.push(batch.length);
        if (seen.length === failAfter) throw new Error('the disk is full');
        yield batch;
        if (seen.length === stopAfter) return;
      }
    }
    return super.appendAll(sessionId, recorded(), options);
  }
}

function messages(count: number, from = 0): EventDraft[] {
  return Array.from({ length: count }, (_, index) => drafts.user(`message ${from + index}`));
}

/** A draft the fold refuses: the result of a tool call nobody made. */
const REFUSED: EventDraft = drafts.toolResult('no-such-call', 'orphan');

async function startedLog(store: MemoryLogStore): Promise<SessionLog> {
  const log = await SessionLog.create(store, 's1', { now: fixedNow, harnessVersion: 'test' });
  await log.append([drafts.system()]);
  return log;
}

describe('SessionLog on a store that overlaps appendAll', () => {
  it('streams an append of at least two parts as parts of 250 in one appendAll; the events equal a plain append’s', async () => {
    const streaming = new StreamingMemoryStore();
    const plain = new MemoryLogStore();
    const streamed = await startedLog(streaming);
    const reference = await startedLog(plain);
    const before = streaming.appends;
    const events = await streamed.append(messages(620));
    expect(streaming.streams).toEqual([[250, 250, 120]]);
    expect(streaming.appends).toBe(before);
    expect(events).toEqual(await reference.append(messages(620)));
    const stored: LogEvent[] = [];
    for await (const page of streaming.read('s1')) stored.push(...page);
    expect(stored.slice(2)).toEqual(events);
    // Shorter than two parts: one plain append.
    await streamed.append(messages(499, 620));
    expect(streaming.streams).toHaveLength(1);
    expect(streaming.appends).toBe(before + 1);
  });

  it('stores nothing when a draft in a later part is refused, and keeps the held events held for the next append', async () => {
    const store = new StreamingMemoryStore();
    const log = await startedLog(store);
    const held = await log.hold([drafts.user('held back')]);
    const nextSeq = log.fold.nextSeq;
    const batch = [...messages(600), REFUSED, ...messages(10, 600)];
    const error = await log.append(batch).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SurfaceOpError);
    expect(error).toMatchObject({ rule: 'tool-call-unknown', seq: 603 });
    expect((error as Error).message).toMatch(/no-such-call/);
    // The held batch and two parts were sent before the refusal; none of it was stored.
    expect(store.streams).toEqual([[1, 250, 250]]);
    expect((await store.head('s1'))?.nextSeq).toBe(2);
    expect(log.fold.nextSeq).toBe(nextSeq);
    expect(log.heldEvents).toBe(1);
    const written = await log.append(messages(600));
    expect(written[0]?.seq).toBe((held[0] as LogEvent).seq + 1);
    const stored: LogEvent[] = [];
    for await (const page of store.read('s1')) stored.push(...page);
    expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: 603 }, (_, index) => index));
    expect(stored[2]).toEqual(held[0]);
  });

  it('takes every part and the held events back out of the fold when the store fails after parts were sent', async () => {
    const store = new StreamingMemoryStore();
    const log = await startedLog(store);
    await log.hold([drafts.user('held back')]);
    const nextSeq = log.fold.nextSeq - 1;
    store.failAfterBatches = 3;
    await expect(log.append(messages(700))).rejects.toThrow(/the disk is full/);
    expect((await store.head('s1'))?.nextSeq).toBe(2);
    expect(log.fold.nextSeq).toBe(nextSeq);
    expect(log.heldEvents).toBe(0);
    store.failAfterBatches = undefined;
    const written = await log.append(messages(700));
    expect(written[0]?.seq).toBe(nextSeq);
    expect((await store.head('s1'))?.nextSeq).toBe(nextSeq + 700);
  });

  it('says so, instead of dropping drafts without a word, when the store stops reading the stream early', async () => {
    const store = new StreamingMemoryStore();
    const observed: number[] = [];
    const log = await SessionLog.create(store, 's1', {
      now: fixedNow,
      harnessVersion: 'test',
      observe: (event) => observed.push(event.seq),
    });
    await log.append([drafts.system()]);
    store.stopAfterBatches = 2;
    await expect(log.append(messages(700))).rejects.toMatchObject({
      code: 'CORRUPT_LOG',
      message: expect.stringMatching(/appended 500 events .* from a stream of 700 .*200 drafts were not appended/),
    });
    // What the store took is what the fold holds.
    expect((await store.head('s1'))?.nextSeq).toBe(502);
    expect(log.fold.nextSeq).toBe(502);
    expect(observed).toEqual(Array.from({ length: 502 }, (_, seq) => seq));
  });
});

const server = await findPostgres({ announce: false });

describe.skipIf(server === undefined)('SessionLog on the PostgreSQL store, which overlaps appendAll', () => {
  const pg = server as NonNullable<typeof server>;
  afterAll(async () => {
    await pg.close();
  });

  it('streams a long append: a refusal in a later part stores nothing, and the next append lands whole', async () => {
    const store = await openPostgresStore(pg.url, { schema: pg.freshSchema() });
    try {
      expect(store.overlapsAppendAll).toBe(true);
      const log = await SessionLog.create(store, 's1', { now: fixedNow, harnessVersion: 'test' });
      await log.append([drafts.system()]);
      const refusal = await log.append([...messages(800), REFUSED]).catch((caught: unknown) => caught);
      // The fold's own error, not one the store wrapped it in.
      expect(refusal).toBeInstanceOf(SurfaceOpError);
      expect(refusal).toMatchObject({ code: 'INVALID_SURFACE_OP', rule: 'tool-call-unknown', seq: 802 });
      expect((await store.head('s1'))?.nextSeq).toBe(2);
      const written = await log.append(messages(1100));
      const stored: LogEvent[] = [];
      for await (const page of store.read('s1')) stored.push(...page);
      expect(stored.slice(2)).toEqual(written);
      const reopened = await SessionLog.open(store, 's1', { checkpoints: false });
      expect(reopened.fold.nextSeq).toBe(1102);
      expect(reopened.fold.lastHash).toBe(log.fold.lastHash);
    } finally {
      await store.close();
    }
  });
});
