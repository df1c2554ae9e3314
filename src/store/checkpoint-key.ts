// The key that proves a fold checkpoint: its digest is an HMAC-SHA256 of the payload under a local
// key that is never stored in the store, so only a process holding the key can write one that a
// reader uses. Anyone who can write the store but not read the key (a shared or downloaded
// SQLite file, a PostgreSQL role with access to the tables) cannot forge one. Any check computed
// from the log alone an attacker could compute as well, and one that is not would cost a walk of
// the whole log, which is what a checkpoint saves.
//
// The key is 32 random bytes, kept as 64 hex digits in a file: the one SHADOWLOG_CHECKPOINT_KEY_FILE
// names, else $XDG_CONFIG_HOME/shadowlog/checkpoint-key (~/.config/… without it). A writer creates
// it on its first checkpoint (mode 0600, in a directory made 0700); a reader never creates it. A
// file others can read or replace, or that is not the user's, is refused (as ssh refuses a key).

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, linkSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../log/errors.js';
import { CheckpointKeyError } from './checkpoint-errors.js';
import { nodeHmacSha256Hex, nodeSha256HexOfBytes } from './node-sha256.js';

/** The environment variable that names the checkpoint key file (a key shared by a team, or a test's own). */
export const CHECKPOINT_KEY_FILE_VARIABLE = 'SHADOWLOG_CHECKPOINT_KEY_FILE';

/** The length of a checkpoint key, in bytes. */
export const CHECKPOINT_KEY_BYTES = 32;

/** A key checkpoints are written and proven with (SessionLogOptions.checkpointKey; by default, the key file's). */
export interface CheckpointKey {
  /** Names the key in the digests written under it: 16 lowercase hex digits, the start of the SHA-256 of the key. */
  readonly id: string;
  /** The HMAC-SHA256 of `text` (its UTF-8 bytes) under the key, as 64 lowercase hex digits. */
  mac(text: string): string;
}

/** A CheckpointKey of 32 secret bytes (e.g. from a secret store); ConfigError for another length. */
export function createCheckpointKey(secret: Uint8Array): CheckpointKey {
  if (!(secret instanceof Uint8Array) || secret.length !== CHECKPOINT_KEY_BYTES) {
    const found = secret instanceof Uint8Array ? `${secret.length} bytes` : typeof secret;
    throw new ConfigError('checkpointKey', `a checkpoint key is ${CHECKPOINT_KEY_BYTES} random bytes, found ${found}`);
  }
  const bytes = Buffer.from(secret);
  const id = nodeSha256HexOfBytes(bytes).slice(0, 16);
  return { id, mac: (text) => nodeHmacSha256Hex(bytes, text) };
}

const KEYED_DIGEST = /^hmac-sha256:([0-9a-f]{16}):([0-9a-f]{64})$/;
const UNKEYED_DIGEST = /^[0-9a-f]{64}$/;

/** The digest a checkpoint's payload is stored with: `hmac-sha256:<key id>:<MAC of the payload>`. */
export function checkpointDigest(key: CheckpointKey, payload: string): string {
  return `hmac-sha256:${key.id}:${key.mac(payload)}`;
}

/** Is `digest` one a checkpoint is stored with (checkpointDigest's form)? */
export function isCheckpointDigest(digest: unknown): digest is string {
  return typeof digest === 'string' && KEYED_DIGEST.test(digest);
}

/**
 * Why `key` does not prove `payload` under `digest`, or undefined when it does. `unproven`: the
 * digest is not a MAC under this key (written under another key, or unkeyed, before checkpoints
 * were keyed); `altered`: it is, and the payload does not match it.
 */
export function checkpointProof(
  key: CheckpointKey,
  digest: string,
  payload: string,
): { readonly kind: 'unproven' | 'altered'; readonly reason: string } | undefined {
  const keyed = KEYED_DIGEST.exec(digest);
  if (keyed === null) {
    const reason = UNKEYED_DIGEST.test(digest)
      ? 'it was written before checkpoints were keyed: its digest is an unkeyed SHA-256, which anyone who can write the store can compute'
      : 'its digest is not a keyed MAC of shadowlog (hmac-sha256:<key id>:<mac>)';
    return { kind: 'unproven', reason };
  }
  const [, keyId, mac] = keyed as unknown as [string, string, string];
  if (keyId !== key.id)
    return { kind: 'unproven', reason: `it was written under checkpoint key ${keyId}, not this process's key ${key.id}` };
  const expected = Buffer.from(key.mac(payload), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(mac, 'hex')))
    return { kind: 'altered', reason: `its payload does not match the MAC written with it under this process's key ${key.id}` };
  return undefined;
}

/** Where the process's checkpoint key file is: SHADOWLOG_CHECKPOINT_KEY_FILE, else the per-user default. */
export function checkpointKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const named = env[CHECKPOINT_KEY_FILE_VARIABLE];
  if (named !== undefined && named !== '') return resolve(named);
  const config = env.XDG_CONFIG_HOME;
  const base = config !== undefined && isAbsolute(config) ? config : join(env.HOME || homedir(), '.config');
  return join(base, 'shadowlog', 'checkpoint-key');
}

/** The process's key for proving checkpoints, or why it has none: a reader never creates one. */
export type CheckpointKeyLookup = { readonly key: CheckpointKey } | { readonly key?: undefined; readonly missing: string };

/** The key in the key file (checkpointKeyPath), or why there is none or it cannot be used. */
export function findCheckpointKey(path: string = checkpointKeyPath()): CheckpointKeyLookup {
  try {
    const key = readCheckpointKeyFile(path);
    if (key !== undefined) return { key };
    return { missing: `this process has no checkpoint key (no file ${path}), so no checkpoint is proven` };
  } catch (error) {
    if (!CheckpointKeyError.isInstance(error)) throw error;
    return { missing: `${error.message} (no checkpoint is proven without a usable key)` };
  }
}

/** The longest key file read: a key and a line break, with room to say what else a file holds. */
const MOST_READ = 256;

/**
 * The key in the file at `path`, or undefined when there is no file. Throws CheckpointKeyError for
 * a file others can read or write, or that is not the user's, or not a key.
 */
export function readCheckpointKeyFile(path: string): CheckpointKey | undefined {
  let fd: number;
  try {
    // Non-blocking, so that a FIFO at the path cannot hang the open.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    // No file there (or a file where a directory of the path should be): no key yet.
    if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return undefined;
    throw new CheckpointKeyError(path, `the checkpoint key file ${path} cannot be read (${describe(error)})`, { cause: error });
  }
  const buffer = Buffer.alloc(MOST_READ + 1);
  let length = 0;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new CheckpointKeyError(path, `the checkpoint key file ${path} is not a regular file`);
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) {
      throw new CheckpointKeyError(
        path,
        `the checkpoint key file ${path} belongs to uid ${stats.uid}, not to this user (uid ${uid}); it is refused, as another user could have written it`,
      );
    }
    if (uid !== undefined && (stats.mode & 0o077) !== 0) {
      const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
      throw new CheckpointKeyError(
        path,
        `the checkpoint key file ${path} can be read or written by its group or others (mode ${mode}); it is refused: run chmod 600 ${path}`,
      );
    }
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
  } catch (error) {
    if (CheckpointKeyError.isInstance(error)) throw error;
    throw new CheckpointKeyError(path, `the checkpoint key file ${path} cannot be read (${describe(error)})`, { cause: error });
  } finally {
    closeSync(fd);
  }
  const text = buffer.subarray(0, length).toString('latin1');
  const match = /^([0-9a-f]{64})\n?$/.exec(text);
  if (match === null) {
    throw new CheckpointKeyError(
      path,
      `the checkpoint key file ${path} does not hold a checkpoint key: expected ${2 * CHECKPOINT_KEY_BYTES} lowercase hex digits (${CHECKPOINT_KEY_BYTES} random bytes) and at most a line break, found ${length > MOST_READ ? `more than ${MOST_READ}` : length} bytes of another kind`,
    );
  }
  return createCheckpointKey(Buffer.from(match[1] as string, 'hex'));
}

/**
 * The key in the file at `path`, created when there is none: 32 random bytes, mode 0600, its
 * directory made with mode 0700. Two processes creating it at once agree on one key: each writes a
 * file of its own and links it to `path`, which only the first link creates. Throws
 * CheckpointKeyError when the file cannot be used or created.
 */
export function loadCheckpointKeyFile(path: string): CheckpointKey {
  const existing = readCheckpointKeyFile(path);
  if (existing !== undefined) return existing;
  const directory = dirname(path);
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const temporary = join(directory, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, `${randomBytes(CHECKPOINT_KEY_BYTES).toString('hex')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temporary, path);
    } catch (error) {
      // Another process made the key first: its key is the one.
      if (codeOf(error) !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temporary);
    }
  } catch (error) {
    throw new CheckpointKeyError(
      path,
      `the checkpoint key file ${path} could not be created (${describe(error)}); set ${CHECKPOINT_KEY_FILE_VARIABLE} to a file this user can create`,
      { cause: error },
    );
  }
  const created = readCheckpointKeyFile(path);
  if (created === undefined) throw new CheckpointKeyError(path, `the checkpoint key file ${path} was removed as soon as it was created`);
  return created;
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function describe(error: unknown): string {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined || message.startsWith(code) ? message : `${code}: ${message}`;
}
