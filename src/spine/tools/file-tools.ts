// Read-only file tools scoped to one directory: list, read, search. Paths that leave the
// directory (.., absolute paths, symbolic links pointing out) are refused.

import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { ShadowlogError } from '../../log/errors.js';
import { defineTool, type Tool } from '../tool.js';

const MAX_READ_BYTES = 512 * 1024;
const MAX_SEARCH_MATCHES = 200;
const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules', '.shadowlog', 'dist']);

class ScopeError extends ShadowlogError {
  constructor(message: string) {
    super('TOOL_SCOPE', message);
  }
}

async function inside(root: string, path: string): Promise<string> {
  if (isAbsolute(path)) throw new ScopeError(`give a path relative to the project, not ${path}`);
  const target = resolve(root, path);
  const real = await realpath(target).catch(() => {
    throw new ScopeError(`no such file or directory: ${path}`);
  });
  const rootReal = await realpath(root);
  if (real !== rootReal && !real.startsWith(rootReal + sep)) throw new ScopeError(`${path} is outside the project directory`);
  return real;
}

async function* walk(root: string, directory: string): AsyncGenerator<string> {
  const entries = await readdir(directory, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (SKIPPED_DIRECTORIES.has(entry.name)) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* walk(root, path);
    else if (entry.isFile()) yield relative(root, path);
  }
}

/** list_files, read_file and search_files over `root`. */
export function createFileTools(root: string): Tool[] {
  const listFiles = defineTool({
    name: 'list_files',
    description: 'List the files under a directory of the project, recursively (default: the whole project).',
    input: z.object({ path: z.string().default('.').describe('a directory relative to the project root') }),
    execute: async ({ path }) => {
      const directory = await inside(root, path);
      if (!(await stat(directory)).isDirectory()) throw new ScopeError(`${path} is not a directory`);
      const files: string[] = [];
      for await (const file of walk(root, directory)) files.push(file);
      return files.length === 0 ? '(no files)' : files.join('\n');
    },
  });
  const readFileTool = defineTool({
    name: 'read_file',
    description: 'Read a text file of the project.',
    input: z.object({ path: z.string().describe('a file path relative to the project root') }),
    execute: async ({ path }) => {
      const file = await inside(root, path);
      const info = await stat(file);
      if (!info.isFile()) throw new ScopeError(`${path} is not a file`);
      if (info.size > MAX_READ_BYTES)
        throw new ScopeError(`${path} is ${info.size} bytes; read_file reads files up to ${MAX_READ_BYTES} bytes`);
      return readFile(file, 'utf8');
    },
  });
  const searchFiles = defineTool({
    name: 'search_files',
    description: 'Search the project for lines containing a text (case-sensitive); answers path:line: text.',
    input: z.object({ text: z.string().min(1), path: z.string().default('.') }),
    execute: async ({ text, path }) => {
      const directory = await inside(root, path);
      const matches: string[] = [];
      for await (const file of walk(root, directory)) {
        const lines = (await readFile(join(root, file), 'utf8')).split('\n');
        lines.forEach((line, index) => {
          if (line.includes(text) && matches.length < MAX_SEARCH_MATCHES) matches.push(`${file}:${index + 1}: ${line.trim()}`);
        });
      }
      return matches.length === 0 ? `no line contains ${JSON.stringify(text)}` : matches.join('\n');
    },
  });
  return [listFiles, readFileTool, searchFiles];
}
