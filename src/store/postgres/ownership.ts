// Session ownership for the PostgreSQL store (SPEC §8): a session-level advisory lock, taken on
// a connection of its own that is held for as long as the ownership lives. The server releases
// the lock when that connection ends for any reason, so an owner killed with SIGKILL, or a
// machine that vanished, frees the session as soon as the server notices the connection is
// gone (at once for a closed socket; after about a minute of TCP keepalive for a silent
// network loss). The connection must reach the server itself, or a pooler in session mode:
// a transaction-mode pooler (PgBouncer's default) would hand the lock's session to others.
// The owner's appends to its session run on that same connection (owner-connection.ts), so
// an owner whose connection broke finds out at its next append at the latest, and is refused
// with OwnershipLostError instead of writing beside the next owner.
//
// The lock decides. The owners table only describes the holder (pid, host, since when) for the
// next claimant's SessionBusyError; a row left behind by a crash is overwritten by the next
// owner. Lock keys are 64-bit hashes (advisoryLockKey): two sessions that shared a key could
// never both be owned, so a collision can only make a claim busy, never grant one twice, and
// the busy message then names the other session.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Client, type Pool } from 'pg';
import { SessionBusyError } from '../../log/errors.js';
import type { Ownership } from '../log-store.js';
import { advisoryLockKey } from './advisory-lock.js';
import { type ConnectionTarget, connectionError, storeFailure } from './connection.js';
import { type LockBackend, OwnerConnection } from './owner-connection.js';
import { quoteSchema } from './schema.js';
import type { Statements } from './statements.js';

interface HolderRow {
  backend_pid: number;
  application_name: string | null;
  client_addr: string | null;
  session_id: string | null;
  pid: number | null;
  host: string | null;
  acquired_at: Date | null;
}

/** Who holds a session, as a SessionBusyError shows it. */
export function describeOwner(record: { pid: number; host: string; acquiredAt: string; backendPid: number }): string {
  return `pid ${record.pid} on host ${record.host} since ${record.acquiredAt} (PostgreSQL backend ${record.backendPid})`;
}

/** The ownerships taken through one store: each has its own connection. */
export class OwnershipLocks {
  private readonly held = new Set<() => Promise<void>>();
  /** The lock connection of each session owned through this store, which its appends run on. */
  private readonly connections = new Map<string, OwnerConnection>();
  private readonly schema: string;

  /** `pool` and `sql` serve an owner that lost its connection to find out whether its last append landed. */
  constructor(
    private readonly target: ConnectionTarget,
    private readonly pool: Pool,
    private readonly sql: Statements,
  ) {
    this.schema = quoteSchema(target.schema);
  }

  /** The lock connection of `sessionId` while this store owns it (lost or not), else undefined. */
  connectionFor(sessionId: string): OwnerConnection | undefined {
    return this.connections.get(sessionId);
  }

  /** Claims the session on a new connection. Throws SessionBusyError while another connection holds it. */
  async claim(sessionId: string): Promise<Ownership> {
    const key = advisoryLockKey('owner', this.target.schema, sessionId);
    const client = await this.connect();
    try {
      const granted = await client.query<{ granted: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS granted', [key]);
      if (granted.rows[0]?.granted !== true) throw new SessionBusyError(sessionId, await this.describeHolder(client, sessionId, key));
      const token = randomUUID();
      const recorded = await client.query<{ backend_pid: number; acquired_at: Date; backend_start: string }>(
        `INSERT INTO ${this.schema}.owners (session_id, lock_key, token, backend_pid, pid, host, acquired_at)
         VALUES ($1, $2, $3, pg_backend_pid(), $4, $5, now())
         ON CONFLICT (session_id) DO UPDATE SET lock_key = EXCLUDED.lock_key, token = EXCLUDED.token,
           backend_pid = EXCLUDED.backend_pid, pid = EXCLUDED.pid, host = EXCLUDED.host, acquired_at = EXCLUDED.acquired_at
         RETURNING backend_pid, acquired_at,
           (SELECT (extract(epoch FROM backend_start) * 1000000)::bigint::text FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS backend_start`,
        [sessionId, key, token, process.pid, hostname()],
      );
      const row = recorded.rows[0] as { backend_pid: number; acquired_at: Date; backend_start: string };
      const owner = describeOwner({
        pid: process.pid,
        host: hostname(),
        acquiredAt: row.acquired_at.toISOString(),
        backendPid: row.backend_pid,
      });
      const backend: LockBackend = { pid: row.backend_pid, startMicros: row.backend_start };
      const connection = new OwnerConnection(this.target, this.pool, this.sql, sessionId, client, backend);
      const release = async () => {
        if (!this.held.delete(release)) return;
        // A claim made after this ownership was lost has a connection of its own.
        if (this.connections.get(sessionId) === connection) this.connections.delete(sessionId);
        // Ending the connection is what frees the lock; the row only describes the holder, so a
        // failure to delete it (the connection may already be gone) changes nothing.
        await connection.release((lockClient) =>
          lockClient.query(`DELETE FROM ${this.schema}.owners WHERE session_id = $1 AND token = $2`, [sessionId, token]),
        );
      };
      this.held.add(release);
      this.connections.set(sessionId, connection);
      return { sessionId, owner, release };
    } catch (error) {
      await client.end().catch(() => {});
      throw this.failure('claiming the session', error);
    }
  }

  /** Releases every ownership still held. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held].map((release) => release()));
  }

  private async connect(): Promise<Client> {
    const client = new Client(this.target.clientConfig);
    // A held connection that breaks emits 'error' while no query runs; without a listener
    // that would end the process. The lock is gone with the connection either way.
    client.on('error', () => {});
    const started = Date.now();
    try {
      await client.connect();
      // The server notices a closed socket at once, but a machine that vanished from the
      // network only through TCP keepalive, which by default waits two hours before its first
      // probe. These settings make it about a minute (30 s idle, then 3 probes 10 s apart);
      // the server ignores them on a Unix socket, and a server that refuses them keeps its own.
      await client.query('SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3').catch(() => {});
      // The lock connection is idle whenever its owner is (waiting for its user, or a model):
      // a server or role default of idle_session_timeout (PostgreSQL 14+) must not end the
      // ownership for that. Older servers do not know the setting, and keep their own.
      await client.query('SET idle_session_timeout = 0').catch(() => {});
      return client;
    } catch (error) {
      await client.end().catch(() => {});
      throw connectionError(this.target, { connect: true, elapsedMs: Date.now() - started }, error) ?? this.failure('connecting', error);
    }
  }

  /** Names who holds the lock: the owners row of the holding backend, else what pg_stat_activity shows. */
  private async describeHolder(client: Client, sessionId: string, key: string): Promise<string> {
    const result = await client.query<HolderRow>(
      `SELECT l.pid AS backend_pid, a.application_name, host(a.client_addr) AS client_addr,
              o.session_id, o.pid, o.host, o.acquired_at
       FROM pg_locks l
       LEFT JOIN pg_stat_activity a ON a.pid = l.pid
       LEFT JOIN ${this.schema}.owners o ON o.lock_key = $1::bigint AND o.backend_pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.classid::bigint = ($1::bigint >> 32) & 4294967295 AND l.objid::bigint = $1::bigint & 4294967295
       ORDER BY o.acquired_at DESC NULLS LAST
       LIMIT 1`,
      [key],
    );
    const row = result.rows[0];
    if (row === undefined) return 'another connection, which has just let it go; try again';
    if (row.pid === null || row.host === null || row.acquired_at === null) {
      const application = row.application_name ? `, application ${JSON.stringify(row.application_name)}` : '';
      const from = row.client_addr ? `, client ${row.client_addr}` : '';
      return `PostgreSQL backend ${row.backend_pid}${application}${from}`;
    }
    const holder = describeOwner({ pid: row.pid, host: row.host, acquiredAt: row.acquired_at.toISOString(), backendPid: row.backend_pid });
    return row.session_id === sessionId
      ? holder
      : `${holder}, the owner of session ${row.session_id}, whose lock key is the same as this one's`;
  }

  private failure(action: string, error: unknown): unknown {
    return storeFailure(this.target, action, error);
  }
}
