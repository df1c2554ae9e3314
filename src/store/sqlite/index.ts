// The SQLite backend, published as the `shadowlog/store/sqlite` subpath so that programs that
// never use it do not load the native module.

export {
  type ForeignDatabase,
  NotShadowlogDatabaseError,
  SchemaVersionError,
  StoreClosedError,
  StoreError,
  StoreLockTimeoutError,
  StoreNotFoundError,
  StoreReadOnlyError,
} from './errors.js';
export { APPLICATION_ID } from './identity.js';
export { DEFAULT_LOCK_NOTICE_MS, DEFAULT_LOCK_TIMEOUT_MS, type LockWait, type LockWaitOptions } from './lock-wait.js';
export { MIGRATIONS, type Migration, migrate, readSchemaVersion, SCHEMA_VERSION } from './schema.js';
export { openSqliteStore, SqliteLogStore, type SqliteStoreOptions } from './sqlite-store.js';
