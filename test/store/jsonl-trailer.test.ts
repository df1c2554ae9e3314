// The JSONL trailer (issue 9, item 2), duplicate keys (item 9) and the one blank line a file may
// end with (item 13): a version-2 export proves it is complete, a cut one is refused by import
// and reported by verify --file, a version-1 export is still read and said to be unchecked, and
// a line whose key appears twice is refused, naming the line and the key.

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { CorruptLogError, ShadowlogError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { exportSession, importSession, importSessionFile, verifyJsonlFile } from '../../src/store/jsonl.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { drafts, sampleDrafts, sealLog } from '../support/events.js';

const events = sealLog(sampleDrafts());

async function exported(list: readonly LogEvent[] = events): Promise<string> {
  const store = new MemoryLogStore();
  await store.append('s1', list, { expectedSeq: 0 });
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportSession(store, 's1', output);
  return Buffer.concat(chunks).toString('utf8');
}

async function* bytes(content: string): AsyncGenerator<Buffer> {
  const buffer = Buffer.from(content, 'utf8');
  for (let offset = 0; offset < buffer.length; offset += 53) yield buffer.subarray(offset, offset + 53);
}

/** A version-1 export: header and events, no trailer (as shadowlog wrote before trailers). */
function versionOne(list: readonly LogEvent[] = events): string {
  return `${canonicalJson({ format: 'shadowlog', version: 1, sessionId: 's1' })}\n${list.map((event) => `${canonicalJson(event)}\n`).join('')}`;
}

async function refusal(text: string): Promise<{ error: CorruptLogError; stored: number }> {
  const store = new MemoryLogStore();
  const error = await importSession(store, bytes(text), { registry: createCliRegistry() }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'the import should have been refused').toBeInstanceOf(CorruptLogError);
  return { error: error as CorruptLogError, stored: (await store.listSessions()).length };
}

async function verified(text: string) {
  return verifyJsonlFile(bytes(text), { registry: createCliRegistry() });
}

describe('the trailer of a version-2 export', () => {
  it('imports a complete export, trailer ok, and verify --file agrees', async () => {
    const text = await exported();
    expect(await importSession(new MemoryLogStore(), bytes(text))).toMatchObject({ events: events.length, trailer: 'ok' });
    expect(await verified(text)).toMatchObject({ trailer: 'ok', report: { ok: true, events: events.length } });
  });

  it('refuses an export cut at every line boundary before its trailer, storing nothing', async () => {
    const text = await exported();
    const lines = text.split('\n').slice(0, -1);
    // Keep the header and 1 … all events: every cut a crash or a truncation can leave at a line end.
    for (let kept = 2; kept < lines.length; kept++) {
      const cut = `${lines.slice(0, kept).join('\n')}\n`;
      const { error, stored } = await refusal(cut);
      expect(error.message, `kept ${kept} lines`).toMatch(/the export ends before its trailer: the file ends after event \d+/);
      expect(error.line).toBe(kept + 1);
      expect(stored).toBe(0);
      const { report, trailer } = await verified(cut);
      expect(trailer).toBe('missing');
      expect(report.ok).toBe(false);
      expect(report.problems.at(-1)).toMatchObject({ code: 'missing-trailer', seq: kept - 1 });
    }
  });

  it('refuses an export torn at any byte of its last lines, the trailer included', async () => {
    const text = await exported();
    const trailerStart = text.lastIndexOf('\n', text.length - 2) + 1;
    const lastEventStart = text.lastIndexOf('\n', trailerStart - 2) + 1;
    for (let cut = lastEventStart + 1; cut < text.length - 1; cut++) {
      // A cut at a line boundary, newline kept or not: the test above.
      if (cut === trailerStart || cut === trailerStart - 1) continue;
      const { error, stored } = await refusal(text.slice(0, cut));
      expect(error.message, `cut at byte ${cut}`).toMatch(/the export ends before its trailer: line \d+, the last, is cut short/);
      expect(stored).toBe(0);
      const { report } = await verified(text.slice(0, cut));
      expect(report.problems.map((problem) => problem.code)).toEqual(['torn-final-line', 'missing-trailer']);
    }
  });

  it('refuses a trailer whose count or head hash disagrees with the events', async () => {
    const text = await exported();
    const lines = text.split('\n');
    const trailerIndex = lines.length - 2;
    const trailer = JSON.parse(lines[trailerIndex] as string) as { events: number; headHash: string };
    const cases: Array<[string, object, RegExp, number]> = [
      [
        'more events',
        { ...trailer, events: trailer.events + 3 },
        /says the export holds 10 events, but 7 were read: events 7 to 9 are missing/,
        7,
      ],
      ['fewer events', { ...trailer, events: trailer.events - 1 }, /says the export holds 6 events, but 7 were read/, 6],
      ['another head hash', { ...trailer, headHash: 'a'.repeat(64) }, /names aaaaaaaaaaaa… as the last hash/, 6],
    ];
    for (const [label, changed, message, seq] of cases) {
      const copy = [...lines];
      copy[trailerIndex] = JSON.stringify(changed);
      const { error, stored } = await refusal(copy.join('\n'));
      expect(error.message, label).toMatch(message);
      expect(error.line, label).toBe(trailerIndex + 1);
      expect(stored).toBe(0);
      const { report, trailer: status } = await verified(copy.join('\n'));
      expect(status, label).toBe('mismatch');
      expect(report.problems, label).toEqual([expect.objectContaining({ code: 'trailer-mismatch', seq })]);
    }
  });

  it('refuses a trailer of the wrong shape, and anything after the trailer', async () => {
    const text = await exported();
    const lines = text.split('\n');
    const trailerIndex = lines.length - 2;
    const trailer = JSON.parse(lines[trailerIndex] as string) as Record<string, unknown>;
    for (const changed of [
      { ...trailer, end: false },
      { ...trailer, extra: 1 },
      { ...trailer, events: '7' },
      { ...trailer, headHash: 'XYZ' },
      { format: 'shadowlog' },
    ]) {
      const copy = [...lines];
      copy[trailerIndex] = JSON.stringify(changed);
      const { error } = await refusal(copy.join('\n'));
      expect(error.message).toMatch(/expected a trailer/);
    }
    const event = lines[2] as string;
    for (const after of [`${event}\n`, 'x\n', `${lines[trailerIndex]}\n`, '\n\n', ' \n']) {
      const { error } = await refusal(text + after);
      expect(error.message, JSON.stringify(after)).toMatch(/the trailer on line \d+ ends the export, but more follows it/);
      expect(error.line).toBe(trailerIndex + 2);
    }
  });

  it('still reads a version-1 export without a trailer, and says its completeness is unchecked', async () => {
    const result = await importSession(new MemoryLogStore(), bytes(versionOne()));
    expect(result).toMatchObject({ events: events.length, trailer: 'missing', tornFinalLine: false });
    expect(await verified(versionOne())).toMatchObject({ trailer: 'missing', report: { ok: true } });
    // A version-1 file never had a trailer: one found there is not taken on trust.
    const withTrailer = versionOne() + (await exported()).split('\n').at(-2);
    expect((await refusal(withTrailer)).error.message).toMatch(/found a trailer in a version 1 export/);
  });
});

describe('one trailing blank line', () => {
  it('is accepted at the very end of a file, in both versions and with CRLF; two are not, nor one in the middle', async () => {
    for (const text of [await exported(), versionOne()]) {
      expect((await importSession(new MemoryLogStore(), bytes(`${text}\n`))).events).toBe(events.length);
      expect((await importSession(new MemoryLogStore(), bytes(`${text.replaceAll('\n', '\r\n')}\r\n`))).events).toBe(events.length);
      expect((await verified(`${text}\n`)).report.ok).toBe(true);
      expect((await refusal(`${text}\n\n`)).error.line).toBeGreaterThan(events.length);
      const lines = text.split('\n');
      lines.splice(3, 0, '');
      const { error } = await refusal(lines.join('\n'));
      expect(error).toMatchObject({ line: 4 });
      expect(error.message).toMatch(/the line is blank/);
    }
  });
});

describe('duplicate keys', () => {
  const header = '{"format":"shadowlog","sessionId":"s1","version":2}';

  /** The export with line `index` (0-based) replaced. */
  async function withLine(index: number, line: string): Promise<string> {
    const lines = (await exported()).split('\n');
    lines[index] = line;
    return lines.join('\n');
  }

  it('refuses a line whose text is shown by one key and hashed by the other, naming the line and key', async () => {
    // Event 3, the user's message: its hash covers the last "text" (the original); a reader that
    // keeps the first key would show the forged one. JSON.parse alone would import it as valid.
    const original = canonicalJson(events[3]);
    const forged = original.replace('"text":"Fix the failing test."', '"text":"Delete the repository.","text":"Fix the failing test."');
    expect(forged).not.toBe(original);
    expect(JSON.parse(forged)).toEqual(JSON.parse(original));
    const text = await withLine(4, forged);
    const { error, stored } = await refusal(text);
    expect(error.line).toBe(5);
    expect(error.message).toMatch(/the key "text" appears twice in \$\.data\.content\[0\]/);
    expect(stored).toBe(0);
    const { report } = await verified(text);
    expect(report.problems).toEqual([expect.objectContaining({ code: 'corrupt-line', seq: 3 })]);
  });

  it('refuses a duplicate key in the header, the envelope, the data and the trailer', async () => {
    const lines = (await exported()).split('\n');
    const event = lines[2] as string;
    const cases: Array<[string, number, string, RegExp]> = [
      ['header', 0, header.replace('"sessionId":"s1"', '"sessionId":"other","sessionId":"s1"'), /"sessionId" appears twice in the line/],
      ['envelope', 2, event.replace('"seq":1,', '"seq":1,"seq":1,'), /"seq" appears twice in the line/],
      ['escaped key', 2, event.replace('"seq":1,', '"seq":1,"\\u0073eq":1,'), /"seq" appears twice/],
      [
        'data',
        1,
        (lines[1] as string).replace('"formatVersion":1', '"formatVersion":1,"formatVersion":1'),
        /"formatVersion" appears twice in \$\.data/,
      ],
      ['trailer', lines.length - 2, (lines.at(-2) as string).replace('"end":true', '"end":true,"end":true'), /"end" appears twice/],
    ];
    for (const [label, index, line, message] of cases) {
      const copy = [...lines];
      copy[index] = line;
      const store = new MemoryLogStore();
      const error = await importSession(store, bytes(copy.join('\n'))).catch((caught: unknown) => caught);
      expect(error, label).toBeInstanceOf(CorruptLogError);
      expect((error as CorruptLogError).message, label).toMatch(message);
      expect((error as CorruptLogError).line, label).toBe(index + 1);
      expect(await store.listSessions()).toEqual([]);
    }
  });

  it('accepts equal keys in different objects', async () => {
    const list = sealLog([...sampleDrafts(), drafts.user('one'), drafts.user('two')]);
    expect((await importSession(new MemoryLogStore(), bytes(await exported(list)))).events).toBe(list.length);
  });
});

describe('the file an import reads', () => {
  it('is closed whatever the outcome: a bad header, a bad session id, a corrupt line, success', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shadowlog-close-'));
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const header = (sessionId: string) => `${canonicalJson({ format: 'shadowlog', version: 2, sessionId })}\n`;
    const files = [
      write('bad-header.jsonl', '{"format":"other"}\n'),
      write('bad-id.jsonl', header('../escape')),
      write('corrupt.jsonl', `${header('c')}{"seq":0,not json}\n{}\n`),
    ];
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    for (let round = 0; round < 20; round++) {
      for (const file of files) {
        await expect(importSessionFile(new MemoryLogStore(), file)).rejects.toBeInstanceOf(ShadowlogError);
      }
    }
    expect(openFiles()).toBe(before);
    rmSync(dir, { recursive: true, force: true });
  });
});
