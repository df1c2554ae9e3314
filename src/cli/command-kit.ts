// What every command's registration shares: how it runs against the store, and the parsers of
// its arguments. Each command registers itself on the program from its own file
// (src/cli/commands/*.ts); src/cli/commands/index.ts lists them in the order help shows them.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { findDuplicateKey } from '../log/index.js';
import { readInputFileSync } from '../store/index.js';
import type { CommandContext } from './context.js';
import type { StoreAccess } from './store-option.js';
import { UsageError } from './usage-error.js';

/**
 * Wraps a command's body into an action: the body gets a context over the store the global
 * options name. A command that only reads never creates or changes a store (`access: 'read'`).
 */
export type RunCommand = (access: StoreAccess, command: (context: CommandContext) => Promise<number>) => () => Promise<void>;

/** Adds one command (or a few that share a file) to the program. */
export type RegisterCommand = (program: Command, run: RunCommand) => void;

/** The most a JSON file named on the command line (a policy, prices, a tune report) may hold: 64 MiB. */
const MAX_JSON_FILE_BYTES = 64 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a JSON file named on the command line (--compaction-config, --prices, --tune): a regular
 * file (a directory or a device such as /dev/zero is a typed error, never read), of at most
 * 64 MiB, valid UTF-8 and JSON, with no key twice in one object (JSON.parse would keep the last
 * without a word, so the file would not say what it seems to).
 */
export function readJsonFile(path: string, cwd: string, expected = 'a JSON file'): unknown {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new UsageError(`no file ${path}`);
  const bytes = readInputFileSync(file, { shown: path, expected, maxBytes: MAX_JSON_FILE_BYTES });
  let text: string;
  let value: unknown;
  try {
    text = utf8.decode(bytes);
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) {
    throw new UsageError(
      `${path}: the key ${JSON.stringify(duplicate.key)} appears twice in ${duplicate.path === '$' ? 'the top-level object' : duplicate.path}; JSON keeps only the last, so the file does not say what it seems to. Remove one of them`,
    );
  }
  return value;
}

export function integerArgument(value: string, what: string, minimum = 0): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < minimum) {
    throw new InvalidArgumentError(`expected ${what} (a whole number from ${minimum}), found ${JSON.stringify(value)}`);
  }
  return Number(value);
}

export function seqArgument(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new InvalidArgumentError(`expected a seq (0, 1, 2, …), found ${JSON.stringify(value)}`);
  return Number(value);
}
