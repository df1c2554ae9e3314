// The files an import reads: each path given, and every .jsonl file under each directory given
// (Claude Code keeps subagents in <session>/subagents/, Codex its rollouts in YYYY/MM/DD/), read
// whole and told apart by content.

import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { FileError, inputFileError } from '../store/file-errors.js';

export interface ImportInput {
  /** The path as the user gave it, or under a directory they gave ('-' for standard input). */
  readonly path: string;
  readonly bytes: Buffer;
}

/** The files under `paths`, in the order given and, within a directory, sorted by path; each read once. */
export async function readImportInputs(paths: readonly string[], cwd: string): Promise<ImportInput[]> {
  const files: Array<{ shown: string; absolute: string }> = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    const info = await stat(absolute).catch((error: unknown) => {
      throw inputFileError(error, path) ?? error;
    });
    if (!info.isDirectory()) {
      files.push({ shown: path, absolute });
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
    files.push(...found.map((file) => ({ shown: join(path, relative(absolute, file)), absolute: file })));
  }
  const inputs: ImportInput[] = [];
  const seen = new Set<string>();
  for (const { shown, absolute } of files) {
    if (seen.has(absolute)) continue;
    seen.add(absolute);
    const bytes = await readFile(absolute).catch((error: unknown) => {
      throw inputFileError(error, shown) ?? error;
    });
    inputs.push({ path: shown, bytes });
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
