// Export to a file (issue 9, items 2 and 12): the file appears whole or not at all. A failure
// of the disk at any step (open, a write, the flush, the naming) leaves no file and no
// temporary file behind and is one typed FileError; an existing file is never overwritten.
// The failures are injected through the export's file system; test/store/export-full-disk.test.ts
// fills a real (tiny) file system.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionNotFoundError } from '../../src/log/errors.js';
import { type ExportFileSystem, exportSessionToFile } from '../../src/store/export-file.js';
import { FileError } from '../../src/store/file-errors.js';
import { exportSession } from '../../src/store/jsonl.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow, sampleDrafts } from '../support/events.js';

let directory: string;
let store: MemoryLogStore;

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'shadowlog-export-'));
  store = new MemoryLogStore();
  const log = await SessionLog.create(store, 's1', { now: fixedNow });
  await log.append(sampleDrafts().slice(1));
  // Enough pages and bytes that a failure can land in the middle.
  for (let index = 0; index < 40; index++) await log.append([drafts.user(`message ${index} ${'x'.repeat(2_000)}`)]);
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function streamed(): Promise<string> {
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportSession(store, 's1', output);
  return Buffer.concat(chunks).toString('utf8');
}

function systemError(code: string, syscall: string): Error {
  return Object.assign(new Error(`${code}: injected, ${syscall}`), { code, syscall, errno: -28 });
}

/** The real file system, with one step made to fail. */
function failing(step: 'open' | 'write' | 'sync' | 'close' | 'link', code = 'ENOSPC', afterBytes = 10_000): ExportFileSystem {
  return {
    lstat: (path) => fs.lstat(path),
    rename: (from, to) => fs.rename(from, to),
    unlink: (path) => fs.unlink(path),
    link: async (from, to) => {
      if (step === 'link') throw systemError(code, 'link');
      await fs.link(from, to);
    },
    open: async (path, flags) => {
      if (step === 'open') throw systemError(code, 'open');
      const handle = await fs.open(path, flags);
      let written = 0;
      return {
        write: async (buffer, offset, length) => {
          // A disk that fills part-way: the bytes up to the limit land, then ENOSPC.
          if (step === 'write' && written + length > afterBytes) {
            if (afterBytes > written) await handle.write(buffer, offset, afterBytes - written);
            written = afterBytes;
            throw systemError(code, 'write');
          }
          written += length;
          return handle.write(buffer, offset, length);
        },
        sync: async () => {
          if (step === 'sync') throw systemError(code, 'fsync');
          await handle.sync();
        },
        close: async () => {
          await handle.close();
          if (step === 'close') throw systemError(code, 'close');
        },
      };
    },
  };
}

describe('exportSessionToFile', () => {
  it('writes exactly what the streamed export writes, and leaves nothing else', async () => {
    const path = join(directory, 'out.jsonl');
    const result = await exportSessionToFile(store, 's1', path);
    expect(result).toMatchObject({ events: 47, path });
    expect(readFileSync(path, 'utf8')).toBe(await streamed());
    expect(readdirSync(directory)).toEqual(['out.jsonl']);
  });

  it.each([
    ['open', 'ENOSPC', 'NO_SPACE'],
    ['write', 'ENOSPC', 'NO_SPACE'],
    ['write', 'EDQUOT', 'NO_SPACE'],
    ['sync', 'ENOSPC', 'NO_SPACE'],
    ['close', 'ENOSPC', 'NO_SPACE'],
    ['link', 'ENOSPC', 'NO_SPACE'],
    ['write', 'EIO', 'FILE_ERROR'],
  ] as const)('a failing %s (%s) leaves no file, and is one typed %s error', async (step, code, expected) => {
    const path = join(directory, 'out.jsonl');
    const error = await exportSessionToFile(store, 's1', path, { fileSystem: failing(step, code) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FileError);
    expect(error).toMatchObject({ code: expected, systemCode: code, path });
    expect((error as Error).message).toMatch(/nothing was left behind$/);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('refuses an existing file, an existing directory and a missing directory, touching nothing', async () => {
    writeFileSync(join(directory, 'taken.jsonl'), 'mine');
    const taken = await exportSessionToFile(store, 's1', join(directory, 'taken.jsonl')).catch((caught: unknown) => caught);
    expect(taken).toMatchObject({ code: 'FILE_EXISTS', systemCode: 'EEXIST' });
    expect((taken as Error).message).toMatch(
      /already exists, and shadowlog replaces a file only when told to; .*add --force to replace it$/,
    );
    expect(readFileSync(join(directory, 'taken.jsonl'), 'utf8')).toBe('mine');
    expect(await exportSessionToFile(store, 's1', directory).catch((caught: unknown) => caught)).toMatchObject({ code: 'NOT_A_FILE' });
    const missing = await exportSessionToFile(store, 's1', join(directory, 'no', 'such', 'f.jsonl')).catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ code: 'FILE_NOT_FOUND', systemCode: 'ENOENT' });
    expect((missing as Error).message).toMatch(/the directory .*no\/such does not exist/);
    expect(readdirSync(directory)).toEqual(['taken.jsonl']);
  });

  it('does not replace a file that appears at the target while the export is written', async () => {
    const path = join(directory, 'out.jsonl');
    const racing = failing('link', 'none');
    const fileSystem: ExportFileSystem = {
      ...racing,
      link: async (from, to) => {
        writeFileSync(path, 'written meanwhile by someone else');
        await fs.link(from, to);
      },
    };
    const error = await exportSessionToFile(store, 's1', path, { fileSystem }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'FILE_EXISTS' });
    expect(readFileSync(path, 'utf8')).toBe('written meanwhile by someone else');
    expect(readdirSync(directory)).toEqual(['out.jsonl']);
  });

  it('on a file system without hard links, renames the finished file instead', async () => {
    const path = join(directory, 'out.jsonl');
    const result = await exportSessionToFile(store, 's1', path, { fileSystem: failing('link', 'EPERM') });
    expect(result.events).toBe(47);
    expect(readFileSync(path, 'utf8')).toBe(await streamed());
    expect(readdirSync(directory)).toEqual(['out.jsonl']);
  });

  it('names a temporary file it could not remove, keeping the first error', async () => {
    const path = join(directory, 'out.jsonl');
    const fileSystem: ExportFileSystem = {
      ...failing('write'),
      unlink: async () => {
        throw systemError('EACCES', 'unlink');
      },
    };
    const error = (await exportSessionToFile(store, 's1', path, { fileSystem }).catch((caught: unknown) => caught)) as FileError;
    expect(error).toMatchObject({ code: 'NO_SPACE', systemCode: 'ENOSPC' });
    expect(error.message).toMatch(
      /the temporary file .*\.out\.jsonl\.\d+-[0-9a-f]+\.partial could not be cleaned up \(removing it: EACCES/,
    );
    expect(error.message).toMatch(/remove it by hand$/);
  });

  it('refuses a session that does not exist before creating anything', async () => {
    await expect(exportSessionToFile(store, 'nope', join(directory, 'x.jsonl'))).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(readdirSync(directory)).toEqual([]);
  });
});
