// The files an import reads: each path given, and every .jsonl file under each directory given
// (Claude Code keeps subagents in <session>/subagents/, Codex its rollouts in YYYY/MM/DD/), read
// whole and told apart by content. Only regular files are read (a device or a FIFO is refused
// before a byte is read), and a line over the limit is refused as it is read (store/input-file.ts).

import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { FileError, inputFileError } from '../store/file-errors.js';
import { readInputBytes } from '../store/input-file.js';

export interface ImportInput {
  /** The path as the user gave it, or under a directory they gave ('-' for standard input). */
  readonly path: string;
  readonly bytes: Buffer;
  /** Found under a directory given: a file there that is no session is skipped, a damaged one reported while the rest import. */
  readonly fromDirectory?: boolean;
  /** When the file was last modified (ms since the epoch): a file that changed within the settle time may still be written to. */
  readonly modifiedMs?: number;
}

export interface ReadImportOptions {
  /** The longest line, in bytes (default 256 MiB): a longer one is a LineTooLongError naming the file and line. */
  readonly maxLineBytes?: number;
  /** The largest file, in bytes (default 2 GiB): an import holds its files in memory. */
  readonly maxBytes?: number;
}

const EXPECTED = 'a session file (a shadowlog export, or a Claude Code, Codex or pi session), or a directory of them';

/** The files under `paths`, in the order given and, within a directory, sorted by path; each read once. */
export async function readImportInputs(paths: readonly string[], cwd: string, options: ReadImportOptions = {}): Promise<ImportInput[]> {
  const files: Array<{ shown: string; absolute: string; fromDirectory: boolean }> = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    const info = await stat(absolute).catch((error: unknown) => {
      throw inputFileError(error, path, EXPECTED) ?? error;
    });
    if (!info.isDirectory()) {
      files.push({ shown: path, absolute, fromDirectory: false });
      continue;
    }
    const found = await jsonlFilesUnder(absolute);
    if (found.length === 0) {
      throw new FileError(
        'not-a-file',
        path,
        `${path} is a directory with no .jsonl files in it; give session files, or a directory that holds some`,
      );
    }
    files.push(...found.map((file) => ({ shown: join(path, relative(absolute, file)), absolute: file, fromDirectory: true })));
  }
  const inputs: ImportInput[] = [];
  const seen = new Set<string>();
  for (const { shown, absolute, fromDirectory } of files) {
    if (seen.has(absolute)) continue;
    seen.add(absolute);
    // The time is taken before the bytes: a write in between makes the file look newer, never older.
    const modifiedMs = (await stat(absolute)).mtimeMs;
    const bytes = await readInputBytes(absolute, { ...options, shown, expected: EXPECTED });
    inputs.push({ path: shown, bytes, modifiedMs, ...(fromDirectory ? { fromDirectory } : {}) });
  }
  return inputs;
}

/** Regular .jsonl files under `directory`, at any depth (symbolic links are not followed). */
async function jsonlFilesUnder(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) found.push(...(await jsonlFilesUnder(path)));
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) found.push(path);
  }
  return found.sort();
}
