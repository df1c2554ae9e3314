// Watching a session on the PostgreSQL store (LogStore.watch): a connection of its own LISTENs
// on the store's channel and registers as a follower of the session, so that appends to it
// NOTIFY (notify-schema.ts). Each notification for the session wakes the watcher, which then
// reads the events through the store as usual: the payload is a hint, never data. A heartbeat
// finds a connection that died without a word (a vanished network), which would otherwise
// leave the follower waiting forever.
//
// A store opened readOnly follows the same way: its follower row (added, removed when it stops,
// and the rows of dead followers cleared) is the one write a reader makes, because appends
// notify only sessions that have followers. Where the server refuses that write (a role without
// INSERT on followers, a standby, default_transaction_read_only) the watch fails, and
// followSession polls instead.

import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type ConnectionTarget, connectionError, storeFailure } from './connection.js';
import { PostgresConnectionError } from './errors.js';
import { type FollowerRow, NOTIFY_CHANNEL, parseNotification, registerFollower, unregisterFollower } from './notify-schema.js';
import { quoteSchema } from './schema.js';

/** How long the watch waits without a notification before it checks that its connection still answers. */
export const WATCH_HEARTBEAT_MS = 15_000;

export interface WatchOptions {
  /** How to end each watch open right now (unregister, then close its connection); the store ends those left when it closes. */
  readonly open: Set<() => Promise<void>>;
  readonly heartbeatMs?: number;
}

/**
 * Yields once when the watch is in place (LISTEN and registration committed), then once per
 * wake-up: after one or more appends to the session. Returns when `signal` aborts; throws a
 * PostgresConnectionError when its connection is lost or stops answering.
 */
export async function* watchSession(
  target: ConnectionTarget,
  sessionId: string,
  signal: AbortSignal,
  options: WatchOptions,
): AsyncGenerator<void> {
  if (signal.aborted) return;
  const heartbeatMs = options.heartbeatMs ?? WATCH_HEARTBEAT_MS;
  const follower: FollowerRow = { schema: target.schema, quoted: quoteSchema(target.schema), sessionId, token: randomUUID() };
  const applicationName = `${String(target.clientConfig.application_name ?? 'shadowlog')} (follower)`.slice(0, 63);
  const client = new Client({ ...target.clientConfig, application_name: applicationName });
  let pending = false;
  let failure: unknown;
  let wake: ((woken: boolean) => void) | undefined;
  const wakeUp = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.(true);
  };
  client.on('notification', (message) => {
    if (message.channel !== NOTIFY_CHANNEL) return;
    const notification = parseNotification(message.payload);
    if (notification?.schema !== target.schema || notification.sessionId !== sessionId) return;
    pending = true;
    wakeUp();
  });
  client.on('error', (error) => {
    failure ??= error;
    wakeUp();
  });
  client.on('end', () => {
    failure ??= new Error('Connection terminated');
    wakeUp();
  });
  signal.addEventListener('abort', wakeUp);
  let ending: Promise<void> | undefined;
  const end = () => {
    ending ??= (async () => {
      options.open.delete(end);
      if (failure === undefined) await unregisterFollower(client, follower);
      await client.end().catch(() => {});
    })();
    return ending;
  };
  options.open.add(end);
  try {
    await connect(client, target);
    await client.query(`LISTEN ${NOTIFY_CHANNEL}`).catch((error: unknown) => {
      throw storeFailure(target, `following session ${sessionId}`, error);
    });
    await registerFollower(client, follower).catch((error: unknown) => {
      throw storeFailure(target, `following session ${sessionId}`, error);
    });
    yield;
    for (;;) {
      if (signal.aborted) return;
      if (failure !== undefined) throw lost(target, sessionId, failure);
      if (pending) {
        pending = false;
        yield;
        continue;
      }
      const woken = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          wake = undefined;
          resolve(false);
        }, heartbeatMs);
        wake = (value) => {
          clearTimeout(timer);
          resolve(value);
        };
      });
      if (!woken && !signal.aborted && failure === undefined) await heartbeat(client, target, sessionId, heartbeatMs);
    }
  } finally {
    signal.removeEventListener('abort', wakeUp);
    await end();
  }
}

async function connect(client: Client, target: ConnectionTarget): Promise<void> {
  const started = Date.now();
  try {
    await client.connect();
  } catch (error) {
    throw connectionError(target, { connect: true, elapsedMs: Date.now() - started }, error) ?? storeFailure(target, 'connecting', error);
  }
}

/** Checks that the connection still answers within `timeoutMs`. */
async function heartbeat(client: Client, target: ConnectionTarget, sessionId: string, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<'silent'>((resolve) => {
    timer = setTimeout(() => resolve('silent'), timeoutMs);
  });
  try {
    const answer = await Promise.race([client.query('SELECT 1').then(() => 'answered' as const), silent]);
    if (answer === 'silent') {
      throw new PostgresConnectionError(
        target.server,
        'lost',
        `the connection following session ${sessionId} on PostgreSQL at ${target.server} stopped answering for ${timeoutMs / 1000} s; follow again, or poll`,
      );
    }
  } catch (error) {
    throw lost(target, sessionId, error);
  } finally {
    clearTimeout(timer);
  }
}

function lost(target: ConnectionTarget, sessionId: string, error: unknown): unknown {
  if (error instanceof PostgresConnectionError) return error;
  return (
    connectionError(target, { connect: false, action: `following session ${sessionId}` }, error) ?? storeFailure(target, 'following', error)
  );
}
