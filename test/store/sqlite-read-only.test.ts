// The SQLite store opened for reading only (issue 9, item 7): it never creates a store, it refuses
// to write, and it reads and verifies a store that the process cannot write to: a read-only file
// or directory, in WAL mode with no -wal or -shm file beside it.

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { openSqliteStore, type SqliteLogStore, StoreNotFoundError, StoreReadOnlyError } from '../../src/store/sqlite/index.js';
import { drafts, sampleDrafts, sealLog } from '../support/events.js';
import { nodeScriptArgs } from '../support/node-script.js';

const READER = 'test/store/fixtures/sqlite-read-only-reader.ts';
// chmod does not stop root. As root, the reader runs as the unprivileged user nobody, whom the
// kernel does hold to the modes; as anyone else it runs as that user, whom chmod holds already.
const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65_534;

describe('SqliteLogStore opened read-only', () => {
  const events = sealLog(sampleDrafts());
  const stores: SqliteLogStore[] = [];
  let directory: string;
  let path: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-readonly-'));
    path = join(directory, 'log.db');
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    chmodSync(directory, 0o700);
    await rm(directory, { recursive: true, force: true });
  });

  async function open(at: string, options = { readOnly: true }): Promise<SqliteLogStore> {
    const store = await openSqliteStore(at, options);
    stores.push(store);
    return store;
  }

  async function writeStore(at: string): Promise<void> {
    const store = await openSqliteStore(at);
    await store.append('s1', events, { expectedSeq: 0 });
    await store.append('s2', events.slice(0, 3), { expectedSeq: 0 });
    await store.close();
  }

  it('refuses a path with no file as STORE_NOT_FOUND, naming it, and creates neither the file nor its directory', async () => {
    const missing = join(directory, '.shadowlog', 'typo.db');
    const error = await openSqliteStore(missing, { readOnly: true }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreNotFoundError);
    expect(error).toMatchObject({ code: 'STORE_NOT_FOUND', location: `sqlite:${missing}` });
    expect((error as Error).message).toContain(`there is no file ${missing}`);
    expect(readdirSync(directory)).toEqual([]);
    // The write path still creates both.
    await (await openSqliteStore(missing)).close();
    expect(existsSync(missing)).toBe(true);
  });

  it('refuses an empty file as holding no store yet, and leaves it empty', async () => {
    writeFileSync(path, '');
    await expect(openSqliteStore(path, { readOnly: true })).rejects.toMatchObject({
      code: 'STORE_NOT_FOUND',
      message: expect.stringContaining('holds no shadowlog store yet'),
    });
    expect(readFileSync(path)).toHaveLength(0);
    expect(readdirSync(directory)).toEqual(['log.db']);
  });

  it('refuses a directory as not a database file', async () => {
    await expect(openSqliteStore(directory, { readOnly: true })).rejects.toMatchObject({
      code: 'STORE_FAILURE',
      message: expect.stringContaining(`${directory} is a directory; expected a shadowlog database file`),
    });
  });

  it('refuses every write with StoreReadOnlyError, writing nothing and reading none of a stream', async () => {
    await writeStore(path);
    const store = await open(path);
    const more = sealLog([...sampleDrafts(), drafts.user('more')]).slice(events.length);
    let pulled = 0;
    async function* stream() {
      pulled++;
      yield events;
    }
    const attempts = [
      () => store.append('s1', more, { expectedSeq: events.length }),
      () => store.append('s3', events, { expectedSeq: 0 }),
      () => store.appendAll('s3', stream(), { expectedSeq: 0 }),
      () => store.acquireOwnership('s1'),
    ];
    for (const attempt of attempts) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreReadOnlyError);
      expect(error).toMatchObject({ code: 'STORE_READ_ONLY', location: store.location });
      expect((error as Error).message).toMatch(/was opened read-only, so .* is refused and nothing was written/);
    }
    expect(pulled).toBe(0);
    expect(store.readOnly).toBe(true);
    expect((await store.listSessions()).map((session) => [session.id, session.events])).toEqual([
      ['s1', events.length],
      ['s2', 3],
    ]);
  });

  it('sees what a writer commits after it was opened', async () => {
    await writeStore(path);
    const reader = await open(path);
    const writer = await open(path, { readOnly: false });
    await writer.append('s3', events, { expectedSeq: 0 });
    expect((await reader.head('s3'))?.nextSeq).toBe(events.length);
    const read: LogEvent[] = [];
    for await (const page of reader.read('s3')) read.push(...page);
    expect(read).toEqual(events);
  });

  it('refuses an option it does not know, such as better-sqlite3\'s spelling "readonly"', async () => {
    await writeStore(path);
    const error = await openSqliteStore(path, { readonly: true } as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/unknown option readonly .*the options are readOnly, lockTimeoutMs, lockNoticeMs, onLockWait/);
  });

  describe.each([
    { what: 'a read-only file in a directory it may write', fileMode: 0o444, directoryMode: 0o777 },
    { what: 'a read-only directory', fileMode: 0o644, directoryMode: 0o555 },
    { what: 'a read-only file in a read-only directory', fileMode: 0o444, directoryMode: 0o555 },
  ])('in $what, as a process that cannot write it', ({ fileMode, directoryMode }) => {
    it('lists, reads and verifies every session, in WAL mode with no -wal or -shm, and changes nothing', async () => {
      const storeDirectory = join(directory, 'store');
      await mkdir(storeDirectory);
      const file = join(storeDirectory, 'log.db');
      await writeStore(file);
      const before = readFileSync(file);
      // WAL mode is in the header (bytes 18 and 19 are 2); the last writer to close checkpointed
      // the log and removed the -wal and the -shm.
      expect([before[18], before[19]]).toEqual([2, 2]);
      expect(readdirSync(storeDirectory)).toEqual(['log.db']);
      chmodSync(directory, 0o755);
      chmodSync(file, fileMode);
      chmodSync(storeDirectory, directoryMode);
      try {
        const child = spawnSync(process.execPath, [...nodeScriptArgs(READER), file], {
          encoding: 'utf8',
          timeout: 20_000,
          ...(IS_ROOT ? { uid: NOBODY, gid: NOBODY } : {}),
        });
        expect(child.stderr).toBe('');
        expect(child.status).toBe(0);
        const result = JSON.parse(child.stdout);
        // What the setup is for: the reader really could not write the file (and, where so, the directory).
        expect(result.uid).not.toBe(0);
        expect(result.canWriteFile).toBe(false);
        expect(result.canWriteDirectory).toBe(directoryMode === 0o777);
        expect(result.sessions).toEqual({ s1: { events: events.length, verified: true }, s2: { events: 3, verified: true } });
        expect(result).toMatchObject({ writeError: 'STORE_READ_ONLY', claimError: 'STORE_READ_ONLY' });
      } finally {
        chmodSync(storeDirectory, 0o755);
        chmodSync(file, 0o644);
      }
      expect(readFileSync(file).equals(before)).toBe(true);
      // Where the directory is read-only nothing can appear in it; where it is not, SQLite's
      // read-only connection leaves the (empty) -wal and -shm it made to read a WAL file.
      if (directoryMode === 0o555) expect(readdirSync(storeDirectory)).toEqual(['log.db']);
      else expect(readFileSync(`${file}-wal`)).toHaveLength(0);
    });
  });
});
