// Schema version 3 of the PostgreSQL store: the check that keeps seqs dense runs once per
// statement instead of once per row.
//
// Versions 1 and 2 checked each inserted row in a BEFORE INSERT row trigger that looked up the
// session's last seq: a 1,000-event batch ran 1,000 PL/pgSQL calls and 1,000 index lookups, and
// took about twice as long as the same insert into a table without the trigger. Version 3
// checks the whole statement at its end, from the rows it inserted (a transition table, which
// the notifying trigger of version 2 captures already): for each session they belong to, the
// seqs must be consecutive (the primary key makes them distinct, so a count equal to the span
// means no hole), the first must follow the session's last event stored before them (or be 0),
// and nothing may stand after the last. As before, the database itself refuses a gap, from any
// writer and any statement (INSERT, INSERT ... SELECT, COPY), with SQLSTATE SL001; two writers
// racing for the same seq are still told apart by the primary key.
//
// What a row trigger refused and a statement trigger cannot see: INSERT ... ON CONFLICT DO
// NOTHING over an existing event. It inserts nothing and changes nothing, so nothing is left
// to refuse (ON CONFLICT DO UPDATE is refused by events_no_update, as before).
//
// Citus: on a shard the trigger fires on events_<shard id>, which holds the whole session, and
// reads that table (TG_TABLE_NAME), as the row trigger did; not run against Citus here.

/** SQLSTATE raised when an insert does not take its session's next seq (by the row trigger of versions 1–2, the statement trigger since 3). */
export const NOT_NEXT_SEQ_STATE = 'SL001';

/** The SQL of version 3 on the quoted schema `s`: the row trigger replaced by a statement trigger. */
export function version3(s: string): string {
  return `
  DROP TRIGGER events_next_seq ON ${s}.events;
  DROP FUNCTION ${s}.events_next_seq();

  ${checkSeqsFunction(s, 'CREATE', '0')}

  -- Once per statement, after its rows are in (so its own rows are visible to the lookups).
  CREATE TRIGGER events_check_seqs AFTER INSERT ON ${s}.events REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.events_check_seqs();
`;
}

/**
 * The function of the statement trigger: `create` is CREATE or CREATE OR REPLACE, and
 * `firstSeq` the SQL of the seq a session with no events stored before the statement starts at
 * (0; from version 8, a branch's fork seq + 1).
 */
export function checkSeqsFunction(s: string, create: string, firstSeq: string): string {
  return `${create} FUNCTION ${s}.events_check_seqs() RETURNS trigger LANGUAGE plpgsql AS $body$
  DECLARE
    batch record;
    before_first bigint;
    last_stored bigint;
    expected bigint;
    found bigint;
  BEGIN
    FOR batch IN SELECT session_id, min(seq) AS first_seq, max(seq) AS last_seq, count(*) AS rows
                 FROM inserted GROUP BY session_id LOOP
      IF TG_TABLE_NAME = 'events' THEN
        SELECT seq INTO before_first FROM ${s}.events
          WHERE session_id = batch.session_id AND seq < batch.first_seq ORDER BY seq DESC LIMIT 1;
        SELECT seq INTO last_stored FROM ${s}.events WHERE session_id = batch.session_id ORDER BY seq DESC LIMIT 1;
      ELSE
        EXECUTE format('SELECT seq FROM %I.%I WHERE session_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT 1', TG_TABLE_SCHEMA, TG_TABLE_NAME)
          INTO before_first USING batch.session_id, batch.first_seq;
        EXECUTE format('SELECT seq FROM %I.%I WHERE session_id = $1 ORDER BY seq DESC LIMIT 1', TG_TABLE_SCHEMA, TG_TABLE_NAME)
          INTO last_stored USING batch.session_id;
      END IF;
      expected := coalesce(before_first + 1, ${firstSeq});
      IF batch.first_seq <> expected OR batch.rows <> batch.last_seq - batch.first_seq + 1 OR last_stored <> batch.last_seq THEN
        IF batch.first_seq <> expected THEN
          found := batch.first_seq;
        ELSIF last_stored <> batch.last_seq THEN
          -- Only a session whose seqs were not dense already: the next seq is past its last event.
          expected := last_stored + 1;
          found := batch.first_seq;
        ELSE
          -- A hole inside the statement's own rows: the first seq missing, and the one given in its place.
          SELECT i.seq + 1 INTO expected FROM inserted i
            WHERE i.session_id = batch.session_id
              AND NOT EXISTS (SELECT 1 FROM inserted j WHERE j.session_id = i.session_id AND j.seq = i.seq + 1)
            ORDER BY i.seq LIMIT 1;
          SELECT min(i.seq) INTO found FROM inserted i WHERE i.session_id = batch.session_id AND i.seq > expected;
        END IF;
        RAISE EXCEPTION USING ERRCODE = '${NOT_NEXT_SEQ_STATE}',
          MESSAGE = 'shadowlog: an event must take the next seq of its session',
          DETAIL = format('session %s: expected seq %s, found %s', batch.session_id, expected, found);
      END IF;
    END LOOP;
    RETURN NULL;
  END
  $body$;`;
}
