// The server the PostgreSQL benchmark runs against: its URL from the environment, a check that
// it answers (a benchmark may skip, unlike a test), and a schema of the run's own
// (shadowlog_bench_<pid>_<random>) that is dropped at the end, on failure, or on Ctrl-C.

import { randomBytes } from 'node:crypto';
import { Client, type ClientConfig, Pool } from 'pg';
import { hidePassword } from '../src/store/postgres/index.js';

const URL_VARIABLES = ['SHADOWLOG_BENCH_POSTGRES_URL', 'SHADOWLOG_TEST_POSTGRES_URL'] as const;
const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';
const PROBE_TIMEOUT_MS = 3000;
/** Server settings that decide what an append costs; printed with the figures. */
const SETTINGS = ['server_version', 'fsync', 'synchronous_commit', 'wal_sync_method', 'commit_delay', 'shared_buffers', 'max_connections'];

export interface BenchServerUrl {
  readonly url: string;
  /** Where the URL came from: a variable's name, or `default`. */
  readonly from: string;
}

export function benchServerUrl(): BenchServerUrl {
  for (const name of URL_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined && value !== '') return { url: value, from: name };
  }
  return { url: DEFAULT_URL, from: 'default' };
}

/** One line saying why the benchmark is skipped, or undefined when the server answers. */
export async function probeServer(server: BenchServerUrl): Promise<string | undefined> {
  const client = new Client({ connectionString: server.url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim() || 'no reason given';
    const where = server.from === 'default' ? 'the default URL' : server.from;
    return `postgres benchmark skipped: ${hidePassword(server.url)} (${where}) could not connect (${reason}); start the server or set ${URL_VARIABLES[0]}`;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface BenchSchema {
  readonly url: string;
  readonly schema: string;
  /** Raw SQL: the bare loops' table, settings, sizes. */
  readonly admin: Pool;
  readonly settings: Readonly<Record<string, string>>;
  /** Drops the schema and closes the admin pool; safe to call twice. */
  drop(): Promise<void>;
}

/** Creates the run's schema; it is dropped by drop(), or when the process is interrupted. */
export async function createBenchSchema(url: string): Promise<BenchSchema> {
  const schema = `shadowlog_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  const config: ClientConfig = { connectionString: url, application_name: 'shadowlog bench (admin)' };
  const admin = new Pool({ ...config, max: 2 });
  admin.on('error', () => {});
  await admin.query(`CREATE SCHEMA "${schema}"`);
  let dropped: Promise<void> | undefined;
  const dropSchema = () => {
    dropped ??= (async () => {
      // A fresh connection, so that a pool still busy with an interrupted run cannot hold it up.
      const client = new Client(config);
      client.on('error', () => {});
      try {
        await client.connect();
        await client.query("SET lock_timeout = '20s'");
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end().catch(() => {});
      }
    })();
    return dropped;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n  … postgres: ${signal}, dropping schema ${schema}\n`);
    dropSchema().then(
      () => process.exit(130),
      (error: unknown) => {
        process.stderr.write(`  … postgres: could not drop schema ${schema}: ${String(error)}; drop it by hand\n`);
        process.exit(130);
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const rows = await admin.query<{ name: string; setting: string; unit: string | null }>(
      'SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)',
      [SETTINGS],
    );
    const settings: Record<string, string> = {};
    for (const row of rows.rows) settings[row.name] = row.unit === '8kB' ? `${(Number(row.setting) * 8) / 1024} MiB` : row.setting;
    return {
      url,
      schema,
      admin,
      settings,
      drop: async () => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        try {
          await dropSchema();
        } finally {
          await admin.end().catch(() => {});
        }
      },
    };
  } catch (error) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await dropSchema().catch(() => {});
    await admin.end().catch(() => {});
    throw error;
  }
}
