// Schema version 8 of the PostgreSQL store: branches (SPEC §14). A branch keeps only its own
// events, from its session/fork at fork_seq + 1; its seqs 0 … fork_seq are its parent's, read
// from the parent. session_forks links each branch to its parent, written in the transaction
// that writes the branch's first events, before them: the seq check then lets a branch's first
// statement start at fork_seq + 1. A link is refused unless the parent holds the event it forks
// after, with that hash, and the branch holds no event yet; links are append-only.
//
// Citus: session_forks is keyed by the branch's id and could be colocated with events; the
// checks that read the parent's events cross shards, and have not been run against Citus.

import { checkSeqsFunction } from './seq-check-schema.js';

/** SQLSTATE raised when a branch link names an event its parent does not hold, or comes after the branch's first event. */
export const FORK_LINK_STATE = 'SL004';

/** The first schema version with branch links; a reader of an older schema finds no branches. */
export const FORKS_SCHEMA_VERSION = 8;

/** The SQL of version 8 on the quoted schema `s`. */
export function version8(s: string): string {
  return `
  CREATE TABLE ${s}.session_forks (
    session_id text COLLATE "C" PRIMARY KEY,
    parent_id text COLLATE "C" NOT NULL,
    fork_seq bigint NOT NULL CHECK (fork_seq >= 0),
    parent_hash text NOT NULL
  );
  CREATE INDEX session_forks_parent ON ${s}.session_forks (parent_id, fork_seq);

  CREATE FUNCTION ${s}.session_forks_check() RETURNS trigger LANGUAGE plpgsql AS $body$
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM ${s}.events WHERE session_id = NEW.parent_id AND seq = NEW.fork_seq AND hash = NEW.parent_hash)
       OR EXISTS (SELECT 1 FROM ${s}.events WHERE session_id = NEW.session_id) THEN
      RAISE EXCEPTION USING ERRCODE = '${FORK_LINK_STATE}',
        MESSAGE = 'shadowlog: a branch links to an event its parent holds, before its own first event',
        DETAIL = format('branch %s: parent %s, fork seq %s', NEW.session_id, NEW.parent_id, NEW.fork_seq);
    END IF;
    RETURN NEW;
  END
  $body$;
  CREATE TRIGGER session_forks_check BEFORE INSERT ON ${s}.session_forks
    FOR EACH ROW EXECUTE FUNCTION ${s}.session_forks_check();

  CREATE FUNCTION ${s}.session_forks_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $body$
  BEGIN
    RAISE EXCEPTION USING ERRCODE = 'SL002', MESSAGE = 'shadowlog: branch links are append-only; ' || TG_ARGV[0];
  END
  $body$;
  CREATE TRIGGER session_forks_no_update BEFORE UPDATE ON ${s}.session_forks
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.session_forks_refuse_change('a link cannot be updated');
  CREATE TRIGGER session_forks_no_delete BEFORE DELETE ON ${s}.session_forks
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.session_forks_refuse_change('a link cannot be deleted');
  CREATE TRIGGER session_forks_no_truncate BEFORE TRUNCATE ON ${s}.session_forks
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.session_forks_refuse_change('links cannot be truncated');

  ${checkSeqsFunction(s, 'CREATE OR REPLACE', `(SELECT f.fork_seq + 1 FROM ${s}.session_forks f WHERE f.session_id = batch.session_id), 0`)}
`;
}
