// Which store a command uses: --store, else SHADOWLOG_STORE, else the embedded SQLite file
// .shadowlog/shadowlog.db in the working directory. A command that writes creates a new SQLite
// file only at its first write (create-on-write-store.ts), in a directory that exists; only the
// default store makes its own directory, .shadowlog.

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type LogStore, StoreNotFoundError } from '../store/index.js';
import { CreateOnWriteStore } from './create-on-write-store.js';
import { UsageError } from './usage-error.js';

export const DEFAULT_SQLITE_PATH = '.shadowlog/shadowlog.db';

export type StoreSpec =
  | {
      readonly kind: 'sqlite';
      readonly path: string;
      /** The default store (.shadowlog/shadowlog.db, named by neither --store nor SHADOWLOG_STORE), which makes its own directory. */
      readonly isDefault?: boolean;
    }
  | { readonly kind: 'postgres'; readonly url: string };

/** The store `value` names (for `option`, e.g. `--store` or `copy --to`); bad usage when it names none. */
export function parseStoreSpec(value: string | undefined, cwd = process.cwd(), option = '--store'): StoreSpec {
  const spec = value ?? process.env.SHADOWLOG_STORE;
  if (spec === undefined || spec === '') return { kind: 'sqlite', path: resolve(cwd, DEFAULT_SQLITE_PATH), isDefault: true };
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length);
    if (path === '') throw new UsageError(`${option} sqlite: needs a file path, e.g. ${option} sqlite:./sessions.db`);
    return { kind: 'sqlite', path: resolve(cwd, path) };
  }
  if (spec.startsWith('postgres://') || spec.startsWith('postgresql://')) {
    // Not shown: it may hold a password.
    if (!URL.canParse(spec)) throw new UsageError(`${option} is not a valid URL; expected postgres://user:password@host:5432/database`);
    return { kind: 'postgres', url: spec };
  }
  throw new UsageError(`${option} must be sqlite:PATH or postgres://…, found ${JSON.stringify(spec)}`);
}

/** What a command does with its store: `read` never creates or changes one. */
export type StoreAccess = 'read' | 'write';

/**
 * Opens the store a command was pointed at. A reader (`access: 'read'`) never creates or
 * changes one: a store that does not exist is STORE_NOT_FOUND. A writer waiting for another
 * process's lock says so through `notice`, once it has waited long, and goes on waiting.
 */
export async function openStore(spec: StoreSpec, access: StoreAccess, notice: (message: string) => void = () => {}): Promise<LogStore> {
  const readOnly = access === 'read';
  // Each backend is loaded only when asked for: SQLite users never load pg, PostgreSQL users
  // never load the native SQLite module.
  if (spec.kind === 'sqlite') {
    const { openSqliteStore } = await import('../store/sqlite/index.js');
    const open = () => openSqliteStore(spec.path, readOnly ? { readOnly } : { onLockWait: (wait) => notice(wait.message) });
    // A store that exists, or a reader (which creates nothing): opened now.
    if (readOnly || existsSync(spec.path)) return open();
    // A path the user named is created in a directory that exists: a typo must not create
    // directories (the library would make one level); the default store makes its .shadowlog.
    if (spec.isDefault !== true && !existsSync(dirname(spec.path))) {
      throw new StoreNotFoundError(
        `sqlite:${spec.path}`,
        `there is no directory ${dirname(spec.path)} to create the store in`,
        'a new store is created as a file in a directory that exists: create the directory first, or check the path',
      );
    }
    return new CreateOnWriteStore(spec.path, `sqlite:${spec.path}`, open);
  }
  const { openPostgresStore } = await import('../store/postgres/index.js');
  return openPostgresStore(spec.url, { readOnly });
}
