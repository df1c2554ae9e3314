// The store a recorder names by a string, opened as the CLI opens one (`sqlite:PATH`, a path,
// `postgres://…`); one that cannot be opened is a StoreUnavailableError, before any model call.

import { messageOf, ShadowlogError } from '../log/errors.js';
import type { LogStore } from '../store/log-store.js';

export class StoreUnavailableError extends ShadowlogError {
  readonly store: string;
  constructor(store: string, cause: unknown) {
    super(
      'AI_SDK_STORE_UNAVAILABLE',
      `the recorder could not open ${store} (${messageOf(cause)}); check the path or URL and that the store is reachable and writable. Nothing was recorded, and no model call was made`,
      { cause },
    );
    this.store = store;
  }
}

export async function openNamedStore(name: string): Promise<LogStore> {
  try {
    if (/^postgres(ql)?:\/\//.test(name)) {
      const { openPostgresStore } = await import('../store/postgres/index.js');
      return await openPostgresStore(name);
    }
    const { openSqliteStore } = await import('../store/sqlite/index.js');
    return await openSqliteStore(name.replace(/^sqlite:/, ''));
  } catch (error) {
    throw new StoreUnavailableError(name.replace(/\/\/[^@/]*@/, '//…@'), error);
  }
}
