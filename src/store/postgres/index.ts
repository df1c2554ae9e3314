// The PostgreSQL backend, published as the `shadowlog/store/postgres` subpath so that programs
// that never use it do not load pg.

export { advisoryLockKey } from './advisory-lock.js';
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  hidePassword,
  type PostgresStoreOptions,
} from './connection.js';
export {
  type ConnectionProblem,
  type LostAppendOutcome,
  OwnershipLostError,
  PostgresConnectionError,
  PostgresEncodingError,
  PostgresSchemaVersionError,
  PostgresStoreClosedError,
  PostgresStoreError,
  StoreNotFoundError,
  StoreReadOnlyError,
} from './errors.js';
export { type EventsNotification, NOTIFY_CHANNEL, NOTIFY_SCHEMA_VERSION } from './notify-schema.js';
export { LOST_BACKEND_WAIT_MS } from './owner-connection.js';
export { openPostgresStore, PostgresLogStore } from './postgres-store.js';
export {
  APPEND_ONLY_STATE,
  DEFAULT_SCHEMA,
  MIGRATIONS,
  type Migration,
  migrate,
  NOT_NEXT_SEQ_STATE,
  readSchemaVersion,
  SCHEMA_VERSION,
} from './schema.js';
export { WATCH_HEARTBEAT_MS } from './watch.js';
