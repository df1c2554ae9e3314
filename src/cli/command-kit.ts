// What every command's registration shares: how it runs against the store, and the parsers of
// its arguments. Each command registers itself on the program from its own file
// (src/cli/commands/*.ts); src/cli/commands/index.ts lists them in the order help shows them.

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
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

export function readJsonFile(path: string, cwd: string): unknown {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new UsageError(`no file ${path}`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
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
