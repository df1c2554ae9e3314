import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { CorruptLogError, SessionExistsError, SurfaceOpError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { computeEventHash, GENESIS_HASH } from '../../src/log/hash.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { exportSession, importSession } from '../../src/store/jsonl.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { drafts, fixedNow, sampleDrafts, sealLog } from '../support/events.js';
import { createTestRegistry } from '../support/log-drafts.js';
import { buildRandomLog } from '../support/random-log.js';

async function exportText(store: MemoryLogStore, sessionId: string): Promise<string> {
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportSession(store, sessionId, output);
  output.end();
  return Buffer.concat(chunks).toString('utf8');
}

async function* bytes(content: string | Buffer): AsyncGenerator<Buffer> {
  const buffer = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  // Odd-sized chunks, so that lines straddle chunk boundaries.
  for (let offset = 0; offset < buffer.length; offset += 37) yield buffer.subarray(offset, offset + 37);
}

async function storedEvents(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

/** Re-seals events after a change, so the hash chain is intact and only the change is wrong. */
function rechain(events: LogEvent[]): LogEvent[] {
  let prevHash = GENESIS_HASH;
  return events.map((event) => {
    const { hash: _old, ...rest } = event;
    const hash = computeEventHash(prevHash, rest);
    prevHash = hash;
    return { ...rest, hash };
  });
}

function jsonl(sessionId: string, events: readonly LogEvent[]): string {
  return `${canonicalJson({ format: 'shadowlog', version: 1, sessionId })}\n${events.map((event) => `${canonicalJson(event)}\n`).join('')}`;
}

describe('JSONL export and import', () => {
  const events = sealLog(sampleDrafts());

  it('exports a header and one canonical event per line, and imports it back with the same hashes', async () => {
    const source = new MemoryLogStore();
    await source.append('s1', events, { expectedSeq: 0 });
    const text = await exportText(source, 's1');
    const lines = text.split('\n');
    expect(lines[0]).toBe('{"format":"shadowlog","sessionId":"s1","version":2}');
    expect(lines).toHaveLength(events.length + 3);
    expect(lines.at(-2)).toBe(`{"format":"shadowlog","end":true,"events":${events.length},"headHash":"${events.at(-1)?.hash}"}`);
    expect(lines.at(-1)).toBe('');

    const target = new MemoryLogStore();
    const result = await importSession(target, bytes(text));
    expect(result).toEqual({
      sessionId: 's1',
      events: events.length,
      tornFinalLine: false,
      tornLine: null,
      alreadyPresent: false,
      trailer: 'ok',
    });
    expect(await storedEvents(target, 's1')).toEqual(events);
    expect(await exportText(target, 's1')).toBe(text);
  });

  it('reports and skips a final line torn at any byte, keeping everything before it', async () => {
    const text = jsonl('s1', events);
    const lastLineStart = text.lastIndexOf('\n', text.length - 2) + 1;
    for (let cut = lastLineStart + 1; cut < text.length - 1; cut++) {
      const store = new MemoryLogStore();
      const result = await importSession(store, bytes(text.slice(0, cut)));
      expect(result.tornFinalLine).toBe(true);
      expect(result.tornLine).toEqual({ line: events.length + 1, bytes: cut - lastLineStart });
      expect(result.events).toBe(events.length - 1);
      expect(await storedEvents(store, 's1')).toEqual(events.slice(0, -1));
    }
  });

  it('accepts a complete final line without its newline', async () => {
    const result = await importSession(new MemoryLogStore(), bytes(jsonl('s1', events).slice(0, -1)));
    expect(result).toMatchObject({ events: events.length, tornFinalLine: false });
  });

  it('refuses damage in the middle with the line number, and stores nothing', async () => {
    const lines = jsonl('s1', events).split('\n');
    const cases: Array<[string, (lines: string[]) => void]> = [
      ['a cut line', (l) => (l[3] = (l[3] as string).slice(0, 20))],
      ['a blank line', (l) => (l[3] = '')],
      ['a changed byte', (l) => (l[3] = (l[3] as string).replace('"turn":1', '"turn":2'))],
      ['a missing event', (l) => l.splice(3, 1)],
    ];
    for (const [name, damage] of cases) {
      const copy = [...lines];
      damage(copy);
      const store = new MemoryLogStore();
      const error = await importSession(store, bytes(copy.join('\n'))).catch((caught: unknown) => caught);
      expect(error, name).toBeInstanceOf(CorruptLogError);
      expect((error as CorruptLogError).line, name).toBe(4);
      expect(await store.listSessions(), name).toEqual([]);
    }
  });

  it('refuses bytes that are not UTF-8, naming the line', async () => {
    const text = Buffer.from(jsonl('s1', events), 'utf8');
    const secondLineStart = text.indexOf(10) + 1;
    const damaged = Buffer.concat([text.subarray(0, secondLineStart + 5), Buffer.from([0xff, 0xfe]), text.subarray(secondLineStart + 5)]);
    await expect(importSession(new MemoryLogStore(), bytes(damaged))).rejects.toMatchObject({ code: 'CORRUPT_LOG', line: 2 });
  });

  it('refuses a bad header: missing, another format, a newer version, an unsafe session id', async () => {
    const body = events.map((event) => `${canonicalJson(event)}\n`).join('');
    const headers = [
      '',
      '{"format":"other","version":1,"sessionId":"s1"}\n',
      '{"format":"shadowlog","version":3,"sessionId":"s1"}\n',
      '{"format":"shadowlog","version":1,"sessionId":"../etc"}\n',
    ];
    for (const header of headers) {
      await expect(importSession(new MemoryLogStore(), bytes(header + body))).rejects.toMatchObject({ code: 'CORRUPT_LOG', line: 1 });
    }
    await expect(importSession(new MemoryLogStore(), bytes(''))).rejects.toBeInstanceOf(CorruptLogError);
  });

  it('refuses a file whose hash chain is intact but whose replacement breaks SPEC §3', async () => {
    const valid = sealLog([...sampleDrafts(), drafts.summary('summary', 3, 5, [3, 4, 5])]);
    // Drop the tool result from the sources: the chain is re-sealed, so only the rule is broken.
    const last = valid[valid.length - 1] as LogEvent;
    const broken = rechain([...valid.slice(0, -1), { ...last, sourceEventSeqs: [3, 4] } as unknown as LogEvent]);
    const store = new MemoryLogStore();
    const error = (await importSession(store, bytes(jsonl('s1', broken))).catch((caught: unknown) => caught)) as CorruptLogError;
    expect(error).toBeInstanceOf(CorruptLogError);
    expect(error.line).toBe(broken.length + 1);
    expect(error.cause).toBeInstanceOf(SurfaceOpError);
    expect(await store.listSessions()).toEqual([]);
  });

  it('imports the same file twice without writing, and refuses a different session under the same id', async () => {
    const store = new MemoryLogStore();
    const text = jsonl('s1', events);
    await importSession(store, bytes(text));
    expect(await importSession(store, bytes(text))).toMatchObject({ alreadyPresent: true, events: events.length });
    const other = sealLog([...sampleDrafts(), drafts.user('one more')]);
    await expect(importSession(store, bytes(jsonl('s1', other)))).rejects.toBeInstanceOf(SessionExistsError);
    expect(await importSession(store, bytes(jsonl('s1', other)), { sessionId: 's2' })).toMatchObject({
      sessionId: 's2',
      events: other.length,
    });
    expect(await storedEvents(store, 's1')).toEqual(events);
  });

  it('export then import is the identity on random logs with nested replacements: same events, same hashes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const registry = createTestRegistry();
        const source = new MemoryLogStore();
        const { batches } = buildRandomLog(seed, { maxEvents: 150 });
        const fold = new SurfaceFold({ registry });
        for (const batch of batches) {
          const expectedSeq = fold.nextSeq;
          await source.append('random', prepareAppend(fold, batch, fixedNow).events, { expectedSeq });
        }
        const text = await exportText(source, 'random');
        const target = new MemoryLogStore();
        const result = await importSession(target, bytes(text), { registry });
        expect(result.events).toBe(fold.nextSeq);
        expect(await storedEvents(target, 'random')).toEqual(await storedEvents(source, 'random'));
        expect((await target.head('random'))?.lastHash).toBe(fold.lastHash);
        expect(await exportText(target, 'random')).toBe(text);
      }),
      { numRuns: 100 },
    );
  });
});
