// Schema version 2 of the PostgreSQL store: appends NOTIFY the followers of their session
// (LISTEN/NOTIFY, for followSession and `show --follow`), and only while it has followers.
//
// A NOTIFY is not free: PostgreSQL serializes the commits of every transaction that notified,
// WAL flush included, so notifying on every append cut 16 concurrent writers to about a third
// of their events per second in our measurements. So a follower registers in `followers`, and
// the trigger notifies only for a session that has a row there; writers of sessions nobody
// follows pay one index probe and one shared advisory lock per statement.
//
// The lock closes the gap between a writer's check and a follower's registration: writers take
// it shared (until they commit), a registering follower exclusively. A writer whose check came
// before a registration has therefore committed before the follower reads the head; one whose
// check came after sees the row and notifies. Lock keys come from hashtext() on the server, on
// both sides, so they always agree; two sessions that share a key only wait for each other.
//
// The payload (`{"schema", "sessionId", "nextSeq"}`) is a hint to read, never data. Citus: the
// trigger would run on the worker that holds the shard, whose notifications reach no follower
// connected to the coordinator; followers there must poll (see schema.ts). A follower's role
// needs INSERT and DELETE on `followers` besides SELECT on `events`.

import type { ClientBase } from 'pg';

/** The schema version that brought notifications: a reader of an older schema polls. */
export const NOTIFY_SCHEMA_VERSION = 2;

/** The channel every shadowlog store notifies on; the payload names the schema and the session. */
export const NOTIFY_CHANNEL = 'shadowlog_events';

/** A NOTIFY payload, as the trigger writes it. */
export interface EventsNotification {
  readonly schema: string;
  readonly sessionId: string;
  /** The session's next seq after the statement that notified. */
  readonly nextSeq: number;
}

/** The SQL of the follow lock (shared for writers, exclusive for a registering follower), for `schema` and `session`. */
function followLockKey(schema: string, session: string): string {
  return `hashtext('shadowlog follow ' || ${schema}), hashtext(${session})`;
}

/** Schema version 2: the followers table and the notifying trigger. `s` is the quoted schema name. */
export function version2(s: string): string {
  return `
  -- Not the log: who follows which session right now. A follower removes its row when it stops;
  -- rows of followers that died are removed by the next follower to register.
  CREATE TABLE ${s}.followers (
    session_id text COLLATE "C" NOT NULL,
    token text NOT NULL,
    backend_pid integer NOT NULL,
    since timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, token)
  );

  CREATE FUNCTION ${s}.events_notify() RETURNS trigger LANGUAGE plpgsql AS $body$
  DECLARE
    changed record;
  BEGIN
    FOR changed IN SELECT session_id, max(seq) + 1 AS next_seq FROM inserted GROUP BY session_id LOOP
      PERFORM pg_advisory_xact_lock_shared(${followLockKey('TG_TABLE_SCHEMA', 'changed.session_id')});
      IF EXISTS (SELECT 1 FROM ${s}.followers WHERE session_id = changed.session_id) THEN
        PERFORM pg_notify('${NOTIFY_CHANNEL}',
          json_build_object('schema', TG_TABLE_SCHEMA, 'sessionId', changed.session_id, 'nextSeq', changed.next_seq)::text);
      END IF;
    END LOOP;
    RETURN NULL;
  END
  $body$;

  -- Once per statement: a batch of any size notifies once. The notification is sent when the
  -- transaction commits, and never if it rolls back.
  CREATE TRIGGER events_notify AFTER INSERT ON ${s}.events REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.events_notify();
`;
}

/** One follower: the session it follows, in which schema (its name and its quoted name), and its own token. */
export interface FollowerRow {
  readonly schema: string;
  readonly quoted: string;
  readonly sessionId: string;
  readonly token: string;
}

/**
 * Registers a follower on `client`, which must already LISTEN on NOTIFY_CHANNEL: from the
 * commit on, every append to the session notifies, and every append that did not has committed
 * already. Also removes the rows of followers whose connection is gone.
 */
export async function registerFollower(client: ClientBase, follower: FollowerRow): Promise<void> {
  const { schema, quoted, sessionId, token } = follower;
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${followLockKey('$1::text', '$2::text')})`, [schema, sessionId]);
    await client.query(`DELETE FROM ${quoted}.followers WHERE backend_pid NOT IN (SELECT pid FROM pg_stat_activity)`);
    await client.query(`INSERT INTO ${quoted}.followers (session_id, token, backend_pid) VALUES ($1, $2, pg_backend_pid())`, [
      sessionId,
      token,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      // The error that got us here is the one to report; a broken connection rolls back anyway.
    });
    throw error;
  }
}

/** Removes a follower's row; a failure changes nothing that matters (the next registration cleans up). */
export async function unregisterFollower(client: ClientBase, follower: FollowerRow): Promise<void> {
  await client
    .query(`DELETE FROM ${follower.quoted}.followers WHERE session_id = $1 AND token = $2`, [follower.sessionId, follower.token])
    .catch(() => {});
}

/** The payload of a notification, or undefined when it is not one the trigger wrote. */
export function parseNotification(payload: string | undefined): EventsNotification | undefined {
  if (payload === undefined) return undefined;
  try {
    const value = JSON.parse(payload) as Partial<EventsNotification>;
    if (typeof value.schema !== 'string' || typeof value.sessionId !== 'string' || typeof value.nextSeq !== 'number') return undefined;
    return { schema: value.schema, sessionId: value.sessionId, nextSeq: value.nextSeq };
  } catch {
    return undefined;
  }
}
