// copySessions: sessions from one store to another with every event and hash as it was; a
// session the target holds identically is skipped, a different one refused before anything is
// written; a damaged source session is refused whole.

import { describe, expect, it } from 'vitest';
import { CorruptLogError, SessionNotFoundError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { type CopyProgress, copySessions, SessionConflictError } from '../../src/store/copy-sessions.js';
import type { LogStore, ReadRange } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { drafts, sampleDrafts, sealLog } from '../support/events.js';

const first = sealLog(sampleDrafts());
const second = sealLog([...sampleDrafts(), drafts.user('One more thing.'), drafts.assistant('Done.')]);
const third = sealLog([drafts.start(), drafts.user('Hello.')]);

async function storeWith(sessions: Record<string, readonly LogEvent[]>): Promise<MemoryLogStore> {
  const store = new MemoryLogStore();
  for (const [id, events] of Object.entries(sessions)) await store.append(id, events, { expectedSeq: 0 });
  return store;
}

async function readAll(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

describe('copySessions', () => {
  it('copies every session of the source, event for event, reporting progress up to the total', async () => {
    const source = await storeWith({ a: first, b: second, c: third });
    const target = new MemoryLogStore();
    const progress: CopyProgress[] = [];
    const result = await copySessions(source, target, { pageSize: 3, onProgress: (step) => progress.push(step) });
    expect(result).toEqual({
      sessions: [
        { sessionId: 'a', events: first.length, status: 'copied' },
        { sessionId: 'b', events: second.length, status: 'copied' },
        { sessionId: 'c', events: third.length, status: 'copied' },
      ],
      copied: 3,
      skipped: 0,
      events: first.length + second.length + third.length,
    });
    for (const [id, events] of [
      ['a', first],
      ['b', second],
      ['c', third],
    ] as const) {
      expect(await readAll(target, id)).toEqual(events);
    }
    const totals = progress.map((step) => step.events);
    expect(totals).toEqual([...totals].sort((x, y) => x - y));
    expect(progress.at(-1)).toMatchObject({ sessionId: 'c', session: 3, sessions: 3, events: result.events, totalEvents: result.events });
  });

  it('copies only the sessions named, and refuses one the source does not have before writing', async () => {
    const source = await storeWith({ a: first, b: second });
    const target = new MemoryLogStore();
    expect((await copySessions(source, target, { sessionIds: ['b'] })).copied).toBe(1);
    expect((await target.listSessions()).map((session) => session.id)).toEqual(['b']);
    await expect(copySessions(source, target, { sessionIds: ['a', 'nobody'] })).rejects.toBeInstanceOf(SessionNotFoundError);
    expect((await target.listSessions()).map((session) => session.id)).toEqual(['b']);
  });

  it('skips a session the target already holds identically, so that a copy can be run again', async () => {
    const source = await storeWith({ a: first, b: second });
    const target = await storeWith({ a: first });
    const result = await copySessions(source, target);
    expect(result).toMatchObject({ copied: 1, skipped: 1, events: second.length });
    expect(result.sessions[0]).toEqual({ sessionId: 'a', events: first.length, status: 'skipped' });
    expect(await copySessions(source, target)).toMatchObject({ copied: 0, skipped: 2, events: 0 });
  });

  it('refuses, before writing anything, sessions the target holds with other events, naming each', async () => {
    const source = await storeWith({ a: first, b: second, c: third });
    const target = await storeWith({ b: first, c: sealLog([drafts.start(), drafts.user('Something else.')]) });
    const error = await copySessions(source, target).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionConflictError);
    expect(error).toMatchObject({
      code: 'SESSION_CONFLICT',
      target: 'memory:',
      conflicts: [
        { sessionId: 'b', sourceEvents: second.length, targetEvents: first.length },
        { sessionId: 'c', sourceEvents: 2, targetEvents: 2 },
      ],
    });
    expect((error as Error).message).toMatch(
      /^memory: already holds 2 sessions .*: b \(\d+ events there, \d+ here\), c .*nothing was copied/,
    );
    expect((await target.listSessions()).map((session) => session.id)).toEqual(['b', 'c']);
    expect(await readAll(target, 'b')).toEqual(first);
  });

  it('refuses a source session whose chain is broken, writing nothing of it, and keeps the sessions copied before it', async () => {
    const source = await storeWith({ a: first, b: second });
    const tampered: LogStore = Object.assign(Object.create(source) as LogStore, {
      async *read(sessionId: string, range?: ReadRange) {
        for await (const page of source.read(sessionId, range)) {
          yield sessionId === 'b' ? page.map((event) => (event.seq === 4 ? { ...event, time: '2030-01-01T00:00:00.000Z' } : event)) : page;
        }
      },
    });
    const target = new MemoryLogStore();
    const error = await copySessions(tampered, target, { pageSize: 2 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CorruptLogError);
    expect(error).toMatchObject({ seq: 4 });
    expect((error as Error).message).toMatch(/^session b \(in memory:\): event 4: the hash chain is broken .*nothing of it was copied/);
    expect((await target.listSessions()).map((session) => session.id)).toEqual(['a']);
  });
});
