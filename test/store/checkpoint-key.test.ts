// The checkpoint key (store/checkpoint-key.ts): where its file is, created on the first
// checkpoint with mode 0600 in a 0700 directory, one key when processes race to create it,
// never created by a reader, and refused (a typed error) when others can read or replace it, when
// it is not the user's, or when it holds no key. A key that cannot be made fails the checkpoint
// write the way any failed checkpoint write does: the append lands, the error is kept.

import { createHash, createHmac } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/log/errors.js';
import { CheckpointKeyError } from '../../src/store/checkpoint-errors.js';
import {
  CHECKPOINT_KEY_FILE_VARIABLE,
  checkpointDigest,
  checkpointKeyPath,
  createCheckpointKey,
  findCheckpointKey,
  loadCheckpointKeyFile,
  readCheckpointKeyFile,
} from '../../src/store/checkpoint-key.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';

const HEX = 'ab'.repeat(32);

describe('the checkpoint key', () => {
  let directory: string;
  const children: Child[] = [];
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'shadowlog-key-'));
  });
  afterEach(async () => {
    await killChildren(children);
    rmSync(directory, { recursive: true, force: true });
  });

  it('lives where SHADOWLOG_CHECKPOINT_KEY_FILE says, else under XDG_CONFIG_HOME, else under ~/.config', () => {
    expect(checkpointKeyPath({ [CHECKPOINT_KEY_FILE_VARIABLE]: '/keys/team-key', HOME: '/home/a' })).toBe('/keys/team-key');
    expect(checkpointKeyPath({ XDG_CONFIG_HOME: '/conf', HOME: '/home/a' })).toBe('/conf/shadowlog/checkpoint-key');
    expect(checkpointKeyPath({ HOME: '/home/a' })).toBe('/home/a/.config/shadowlog/checkpoint-key');
    // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says; an empty variable names nothing.
    expect(checkpointKeyPath({ XDG_CONFIG_HOME: 'conf', HOME: '/home/a', [CHECKPOINT_KEY_FILE_VARIABLE]: '' })).toBe(
      '/home/a/.config/shadowlog/checkpoint-key',
    );
  });

  it('is created on first use: 32 random bytes as hex, mode 0600, in a directory made 0700; read back the same', () => {
    const path = join(directory, 'config', 'shadowlog', 'checkpoint-key');
    expect(readCheckpointKeyFile(path)).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    const key = loadCheckpointKeyFile(path);
    const text = readFileSync(path, 'latin1');
    expect(text).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(directory, 'config', 'shadowlog')).mode & 0o777).toBe(0o700);
    const secret = Buffer.from(text.trim(), 'hex');
    expect(key.id).toBe(createHash('sha256').update(secret).digest('hex').slice(0, 16));
    expect(key.mac('payload')).toBe(createHmac('sha256', secret).update('payload').digest('hex'));
    expect(checkpointDigest(key, 'payload')).toBe(`hmac-sha256:${key.id}:${key.mac('payload')}`);
    expect(loadCheckpointKeyFile(path).id).toBe(key.id);
    expect(readCheckpointKeyFile(path)?.id).toBe(key.id);
    expect(findCheckpointKey(path)).toMatchObject({ key: { id: key.id } });
  });

  it('is one key when several processes create it at once', async () => {
    const path = join(directory, 'raced', 'checkpoint-key');
    for (let index = 0; index < 3; index++) children.push(startChild('test/store/fixtures/load-checkpoint-key.ts', [path], 20_000));
    const results = await Promise.all(children.map((child) => child.exited.then(() => child.output())));
    const ids = results.map((result) => result.stdout.trim());
    expect(
      ids.every((id) => /^[0-9a-f]{16}$/.test(id)),
      JSON.stringify(results),
    ).toBe(true);
    expect(new Set(ids).size).toBe(1);
    expect(readCheckpointKeyFile(path)?.id).toBe(ids[0]);
  });

  it('is refused, with a typed error, when others may read or write it, when it is not a file, or when it holds no key', () => {
    const path = join(directory, 'checkpoint-key');
    writeFileSync(path, `${HEX}\n`, { mode: 0o600 });
    expect(readCheckpointKeyFile(path)?.id).toMatch(/^[0-9a-f]{16}$/);
    for (const mode of [0o640, 0o604, 0o620, 0o602]) {
      chmodSync(path, mode);
      const error = (() => {
        try {
          return readCheckpointKeyFile(path);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(CheckpointKeyError);
      expect(error).toMatchObject({ code: 'CHECKPOINT_KEY', path });
      expect((error as Error).message).toBe(
        `the checkpoint key file ${path} can be read or written by its group or others (mode 0${mode.toString(8)}); it is refused: run chmod 600 ${path}`,
      );
      // A reader is told why nothing is proven, and a writer does not use it.
      expect(findCheckpointKey(path)).toEqual({ missing: `${(error as Error).message} (no checkpoint is proven without a usable key)` });
      expect(() => loadCheckpointKeyFile(path)).toThrow(CheckpointKeyError);
    }
    chmodSync(path, 0o600);
    for (const content of ['', 'short', `${HEX.toUpperCase()}\n`, `${HEX}\n\n`, `${HEX}00`, 'x'.repeat(10_000)]) {
      writeFileSync(path, content);
      expect(() => readCheckpointKeyFile(path), JSON.stringify(content.slice(0, 20))).toThrow(
        /does not hold a checkpoint key: expected 64 lowercase hex digits/,
      );
    }
    const folder = join(directory, 'folder');
    mkdirSync(folder, { mode: 0o700 });
    expect(() => readCheckpointKeyFile(folder)).toThrow(/is not a regular file/);
  });

  it.runIf(process.getuid?.() === 0)('is refused when it belongs to another user (as root, who can give it away)', () => {
    const path = join(directory, 'checkpoint-key');
    writeFileSync(path, `${HEX}\n`, { mode: 0o600 });
    chownSync(path, 65_534, 65_534);
    expect(() => readCheckpointKeyFile(path)).toThrow(/belongs to uid 65534, not to this user \(uid 0\)/);
  });

  it('cannot be made under a file: the checkpoint write fails as any does, and the append lands', async () => {
    const blocker = join(directory, 'not-a-directory');
    writeFileSync(blocker, 'x');
    const path = join(blocker, 'shadowlog', 'checkpoint-key');
    expect(() => loadCheckpointKeyFile(path)).toThrow(CheckpointKeyError);
    expect(() => loadCheckpointKeyFile(path)).toThrow(
      /could not be created \(.*\); set SHADOWLOG_CHECKPOINT_KEY_FILE to a file this user can create$/,
    );
    const saved = process.env[CHECKPOINT_KEY_FILE_VARIABLE];
    process.env[CHECKPOINT_KEY_FILE_VARIABLE] = path;
    try {
      const store = new MemoryLogStore();
      const told: unknown[] = [];
      const log = await SessionLog.create(store, 's1', { checkpointEvery: 2, onCheckpointWriteError: (error) => told.push(error) });
      await log.append([{ type: 'user/message', data: { content: [{ type: 'text', text: 'x' }] }, surfaceOp: 'append' }]);
      expect(log.nextSeq).toBe(2);
      expect(log.checkpointWriteError).toBeInstanceOf(CheckpointKeyError);
      expect(told).toHaveLength(1);
      expect(await store.listCheckpoints('s1')).toEqual([]);
      await expect(log.writeCheckpoint()).rejects.toMatchObject({ code: 'CHECKPOINT_KEY' });
      // A reader without a key reads the whole log, and makes none.
      const opened = await SessionLog.open(store, 's1');
      expect(opened.checkpointReport).toEqual({ restoredFrom: undefined, ignored: [] });
    } finally {
      process.env[CHECKPOINT_KEY_FILE_VARIABLE] = saved;
    }
  });

  it('can be given by the program instead: 32 bytes, and nothing else', async () => {
    expect(() => createCheckpointKey(new Uint8Array(16))).toThrow(ConfigError);
    const key = createCheckpointKey(new Uint8Array(32).fill(7));
    const store = new MemoryLogStore();
    const log = await SessionLog.create(store, 's1', { checkpointKey: key });
    const entry = await log.writeCheckpoint();
    expect(entry.digest).toMatch(new RegExp(`^hmac-sha256:${key.id}:[0-9a-f]{64}$`));
    // Under the process's own key (the test file's) it is unproven; under the program's, it is used.
    expect((await SessionLog.open(store, 's1')).checkpointReport.ignored.map((finding) => finding.status)).toEqual(['unproven']);
    expect((await SessionLog.open(store, 's1', { checkpointKey: key })).checkpointReport).toEqual({ restoredFrom: 1, ignored: [] });
  });
});
