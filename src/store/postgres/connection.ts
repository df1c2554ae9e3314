// Where the PostgreSQL store connects, and what a connection failure is called: a URL is
// checked before any socket opens, and a refused, unknown, unauthorised or dropped connection
// becomes one PostgresConnectionError whose message is a single line naming the fix.

import { type ClientConfig, DatabaseError } from 'pg';
import { ConfigError, ShadowlogError } from '../../log/errors.js';
import { describeValue } from '../../log/seq.js';
import { type ConnectionProblem, PostgresConnectionError, PostgresStoreError } from './errors.js';
import { assertSchemaName, DEFAULT_SCHEMA } from './schema.js';

export interface PostgresStoreOptions {
  /**
   * The schema that holds shadowlog's tables (default `shadowlog`, or the URL's `?schema=`);
   * created and migrated on open. A plain lower-case identifier.
   */
  readonly schema?: string;
  /** The most pooled connections the store opens (default 4). Each held ownership has one more of its own. */
  readonly maxConnections?: number;
  /** The application_name the connections show in pg_stat_activity (default `shadowlog pid <pid>`). */
  readonly applicationName?: string;
  /** How long to wait for the server to accept a connection, in milliseconds (default 10,000). */
  readonly connectTimeoutMs?: number;
  /**
   * Open for reading only, as commands that only read do: a schema without shadowlog's tables
   * is a StoreNotFoundError instead of being created, an older schema is read as it is instead
   * of being migrated, and appends and ownership are refused (StoreReadOnlyError). Following
   * still registers the follower (see watch.ts), the one write a reader makes.
   */
  readonly readOnly?: boolean;
}

export const DEFAULT_MAX_CONNECTIONS = 4;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface ConnectionTarget {
  /** Settings for every connection the store makes, pooled or dedicated. */
  readonly clientConfig: ClientConfig;
  readonly maxConnections: number;
  /** `host:port`, for messages. */
  readonly server: string;
  /** The URL without its password, with `?schema=`: the store's `location`. */
  readonly location: string;
  readonly schema: string;
  readonly readOnly: boolean;
}

const EXAMPLE_URL = 'postgres://user:password@host:5432/database';
const UNREACHABLE = 'check the host and port in the URL, and that no firewall is in the way';

/** Checks `url` and the options, and works out how to connect. Opens nothing. */
export function resolveTarget(url: string, options: PostgresStoreOptions = {}): ConnectionTarget {
  const parsed = parseUrl(url);
  const fromUrl = parsed.searchParams.get('schema');
  if (fromUrl !== null && options.schema !== undefined && fromUrl !== options.schema) {
    throw new ConfigError(
      'schema',
      `the URL names schema ${JSON.stringify(fromUrl)} and the options ${JSON.stringify(options.schema)}; name one`,
    );
  }
  const schema = assertSchemaName(options.schema ?? fromUrl ?? DEFAULT_SCHEMA);
  // Only shadowlog reads `schema`; the rest of the URL goes to pg untouched.
  if (fromUrl !== null) parsed.searchParams.delete('schema');
  const maxConnections = positiveInteger('maxConnections', options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  const connectTimeoutMs = positiveInteger('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  const host = decode(parsed.hostname) || parsed.searchParams.get('host') || process.env.PGHOST || 'localhost';
  const port = parsed.port || parsed.searchParams.get('port') || process.env.PGPORT || '5432';
  const user = parsed.username === '' ? '' : `${parsed.username}@`;
  return {
    clientConfig: {
      connectionString: fromUrl === null ? url : parsed.toString(),
      // PostgreSQL keeps the first 63 bytes.
      application_name: (options.applicationName ?? `shadowlog pid ${process.pid}`).slice(0, 63),
      connectionTimeoutMillis: connectTimeoutMs,
    },
    maxConnections,
    server: `${host}:${port}`,
    location: `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}?schema=${schema}`,
    schema,
    readOnly: readOnlyOption(options.readOnly),
  };
}

function parseUrl(url: string): URL {
  // A JavaScript caller can pass anything; only a string can be a URL (and have a password to hide).
  if (typeof url !== 'string') {
    throw new PostgresConnectionError(
      'unknown',
      'bad-url',
      `expected a PostgreSQL URL like ${EXAMPLE_URL}, found ${describeValue(url)}; fix the URL`,
    );
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')) {
    throw new PostgresConnectionError(
      'unknown',
      'bad-url',
      `expected a PostgreSQL URL like ${EXAMPLE_URL}, found ${JSON.stringify(hidePassword(url))}; fix the URL`,
    );
  }
  return parsed;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The URL with any password replaced by `***`, for messages. */
export function hidePassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL: hide whatever sits between `user:` and the last `@` before the path.
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):.*@/i, '$1:***@');
  }
}

function readOnlyOption(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new ConfigError('readOnly', `readOnly must be true or false, found ${JSON.stringify(value)}`);
  return value;
}

function positiveInteger(key: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError(key, `${key} must be a whole number of at least 1, found ${String(value)}`);
  }
  return value;
}

/** Node socket errors that mean the server could not be reached or the connection broke. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
]);
/** pg's own messages for a connection that timed out, broke or was closed under it. */
const CLIENT_MESSAGES =
  /^(Connection terminated|timeout expired|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|SASL: |Password must be a string|The server does not support SSL connections)/i;

/** Whether `error` is about the connection rather than the statement that ran on it. */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error) || ShadowlogError.isInstance(error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code)) return true;
    // 57P01–57P05: the server ended the session (shutdown, crash, starting up, database dropped, idle timeout).
    if (/^(08|28|57P0[1-5])/.test(code) || ['3D000', '53300'].includes(code)) return true;
  }
  return CLIENT_MESSAGES.test(error.message);
}

/** What an append was doing when its connection failed, so that the error can say whether it landed. */
export interface AppendInFlight {
  readonly sessionId: string;
  readonly expectedSeq: number;
  readonly events: number;
  /** True once the statement that commits (the insert itself, or COMMIT) has been sent. */
  readonly committing: boolean;
}

/**
 * The PostgresConnectionError for a connection failure met while `phase` was `connect`
 * (opening a connection) or `use` (running `action` on one), or undefined when `error` is not
 * a connection failure. `elapsedMs` is how long the connect took, to tell a timeout.
 */
export function connectionError(
  target: Pick<ConnectionTarget, 'server' | 'clientConfig'>,
  phase: { readonly connect: true; readonly elapsedMs: number } | { readonly connect: false; readonly action: string },
  error: unknown,
  append?: AppendInFlight,
): PostgresConnectionError | undefined {
  const unreadable = phase.connect ? unreadableSslFile(error) : undefined;
  if (unreadable !== undefined) {
    return new PostgresConnectionError(target.server, 'ssl', `cannot connect to PostgreSQL at ${target.server}: ${unreadable}`, {
      cause: error,
    });
  }
  if (!isConnectionFailure(error)) return undefined;
  const timeoutMs = target.clientConfig.connectionTimeoutMillis ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const timedOut = phase.connect && phase.elapsedMs >= timeoutMs * 0.9;
  const found = classify(target, timeoutMs, timedOut, error as Error & { code?: string });
  const { problem, what } =
    phase.connect && found.problem === 'lost'
      ? { problem: 'other' as const, what: `the server closed the connection before it was ready (${found.what}); ${UNREACHABLE}` }
      : found;
  if (phase.connect || problem !== 'lost') {
    const options = append === undefined ? { cause: error } : { cause: error, appendOutcome: 'not-written' as const };
    return new PostgresConnectionError(target.server, problem, `cannot connect to PostgreSQL at ${target.server}: ${what}`, options);
  }
  const message = `lost the connection to PostgreSQL at ${target.server} while ${phase.action}: ${what}`;
  if (append === undefined) return new PostgresConnectionError(target.server, problem, `${message}; try again`, { cause: error });
  if (!append.committing) {
    return new PostgresConnectionError(target.server, problem, `${message}; the transaction had not committed, so nothing was stored`, {
      cause: error,
      appendOutcome: 'not-written',
    });
  }
  const { sessionId, expectedSeq, events } = append;
  const outcome =
    `; the events may or may not have been stored: read the head of session ${sessionId}` +
    ` (nextSeq ${expectedSeq} means they were not, ${expectedSeq + events} that they were)`;
  return new PostgresConnectionError(target.server, problem, message + outcome, { cause: error, appendOutcome: 'unknown' });
}

function classify(
  target: Pick<ConnectionTarget, 'server' | 'clientConfig'>,
  timeoutMs: number,
  timedOut: boolean,
  error: Error & { code?: string },
): { problem: ConnectionProblem; what: string } {
  const said = oneLine(error.message);
  const host = target.server.slice(0, target.server.lastIndexOf(':'));
  switch (error.code) {
    case 'ECONNREFUSED':
      return { problem: 'refused', what: 'connection refused; is the server running?' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { problem: 'host-not-found', what: `host ${host} not found; check the host name in the URL` };
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { problem: 'timeout', what: `${said}; ${UNREACHABLE}` };
    case '28P01':
      return { problem: 'authentication', what: `${said}; check the user name and password in the URL` };
    case '3D000':
      return { problem: 'database-missing', what: `${said}; create it or name another database in the URL` };
    case '53300':
      return {
        problem: 'too-many-connections',
        what: `${said}; lower maxConnections, close idle clients, or raise max_connections on the server`,
      };
    case '57P03':
      return { problem: 'server-unavailable', what: `${said}; try again in a moment` };
  }
  if (error.code?.startsWith('28')) {
    return { problem: 'authentication', what: `${said}; check the user name in the URL and the server's pg_hba.conf` };
  }
  if (/^The server does not support SSL connections/i.test(said)) {
    return {
      problem: 'ssl',
      what:
        `the server does not accept SSL connections, and the connection asks for SSL (${sslAskedBy(target.clientConfig)}); ` +
        'turn SSL on in the server, or connect without it (sslmode=disable) where the network can be trusted',
    };
  }
  if (/^(SASL: |Password must be a string)/i.test(said)) {
    return {
      problem: 'authentication',
      what: `the server asks for a password and none was given; put it in the URL (${EXAMPLE_URL}) or set PGPASSWORD`,
    };
  }
  if (/^timeout exceeded when trying to connect/i.test(said)) {
    return {
      problem: 'timeout',
      what: `every pooled connection stayed busy for ${timeoutMs / 1000} s; raise maxConnections, or finish long appendAll calls sooner`,
    };
  }
  if (timedOut || /timeout/i.test(said)) return { problem: 'timeout', what: `no answer within ${timeoutMs / 1000} s; ${UNREACHABLE}` };
  return { problem: 'lost', what: said };
}

const FILE_PROBLEMS: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'a directory' };

/**
 * pg reads the files of the URL's sslrootcert, sslcert and sslkey as it makes a connection, and
 * lets a failure to read one escape as it is: what to say of it, or undefined for another error.
 */
function unreadableSslFile(error: unknown): string | undefined {
  const { code, syscall, path } = (error ?? {}) as { code?: unknown; syscall?: unknown; path?: unknown };
  if (typeof code !== 'string' || syscall !== 'open' || typeof path !== 'string') return undefined;
  const problem = FILE_PROBLEMS[code] ?? code;
  return `cannot read ${JSON.stringify(path)}, an SSL file the URL names (${problem}); fix its path in sslrootcert, sslcert or sslkey`;
}

/** Where the SSL that the server refused was asked for: the URL's sslmode or ssl, else PGSSLMODE. */
function sslAskedBy(config: ClientConfig): string {
  let parameters: URLSearchParams | undefined;
  try {
    parameters = new URL(config.connectionString ?? '').searchParams;
  } catch {
    parameters = undefined;
  }
  const mode = parameters?.get('sslmode');
  if (mode !== null && mode !== undefined) return `sslmode=${mode} in the URL`;
  const ssl = parameters?.get('ssl');
  if (ssl !== null && ssl !== undefined) return `ssl=${ssl} in the URL`;
  const variable = process.env.PGSSLMODE;
  return variable === undefined ? 'the ssl setting' : `PGSSLMODE=${variable}`;
}

/** A server or socket message as one line without a final period. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
}

/** Advice for the SQLSTATEs a caller can do something about. */
const ADVICE: Record<string, string> = {
  '42501': "grant the connecting role the privileges shadowlog needs on the store's schema and tables",
  '42P01': "the store's tables are missing; open the store again to create them",
  '3F000': "the store's schema is missing; open the store again to create it",
  '25006': 'the server is read-only (a standby?); connect to the primary to write',
};

/**
 * What the store throws for `error`, met while doing `action`: shadowlog's own errors and
 * anything that did not come from PostgreSQL (e.g. the source of an import) unchanged, a
 * connection failure as PostgresConnectionError, any other server error as PostgresStoreError.
 */
export function storeFailure(
  target: Pick<ConnectionTarget, 'server' | 'clientConfig' | 'location'>,
  action: string,
  error: unknown,
  append?: AppendInFlight,
): unknown {
  if (ShadowlogError.isInstance(error)) return error;
  const lost = connectionError(target, { connect: false, action }, error, append);
  if (lost !== undefined) return lost;
  if (!(error instanceof DatabaseError)) return error;
  const state = error.code ?? 'unknown';
  const advice = ADVICE[state] ?? 'see the PostgreSQL server log for more';
  return new PostgresStoreError(target.location, `${action} failed: ${oneLine(error.message)} (SQLSTATE ${state}); ${advice}`, {
    cause: error,
    sqlState: state,
  });
}
