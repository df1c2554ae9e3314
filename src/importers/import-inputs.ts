// The files an import reads: each path given, and every .jsonl file under each directory given
// (Claude Code keeps subagents in <session>/subagents/, Codex its rollouts in YYYY/MM/DD/), read
// whole and told apart by content.

import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FileError, inputFileError } from '../store/file-errors.js';

export interface ImportInput {
  /** The path as the user gave it or as the walk found it ('-' for standard input). */
  readonly path: string;
  readonly bytes: Buffer;
}

/** The files under `paths`, in the order given and, within a directory, sorted by path; each read once. */
export async function readImportInputs(paths: readonly string[], cwd: string): Promise<ImportInput[]> {
  const files: string[] = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    const info = await stat(absolute).catch((error: unknown) => {
      throw inputFileError(error, path) ?? error;
    });
    if (!info.isDirectory()) {
      files.push(absolute);
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
    files.push(...found);
  }
  const inputs: ImportInput[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file)) continue;
    seen.add(file);
    const bytes = await readFile(file).catch((error: unknown) => {
      throw inputFileError(error, file) ?? error;
    });
    inputs.push({ path: file, bytes });
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
