// The SQLite backend, published as the `shadowlog/store/sqlite` subpath so that programs that
// never use it do not load the native module.

export { SchemaVersionError, StoreClosedError, StoreError } from './errors.js';
export { BUSY_TIMEOUT_MS, MIGRATIONS, type Migration, migrate, readSchemaVersion, SCHEMA_VERSION } from './schema.js';
export { openSqliteStore, SqliteLogStore } from './sqlite-store.js';
