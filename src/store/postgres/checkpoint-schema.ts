// Schema version 4 of the PostgreSQL store: fold checkpoints (store/fold-checkpoints.ts), derived
// data beside the log and never part of it. Keyed by session id like every other table: it
// distributes with `events` (Citus: `create_distributed_table('<schema>.fold_checkpoints',
// 'session_id', colocate_with => '<schema>.events')`). A reader of an older schema finds no
// checkpoints.
//
// Version 6 makes them append-only (CheckpointStore in store/log-store.ts): no UPDATE (an INSERT
// ... ON CONFLICT DO UPDATE included, as the statement trigger fires for it) and no TRUNCATE, and
// a row is deleted only while a newer checkpoint of its session is kept, which is what pruning
// does. A forged row cannot be proven anyway (its digest is a MAC under a key the store never
// holds); these keep a proven one from being replaced. As for events, the table's owner can still
// drop the triggers: grant writers INSERT, SELECT and DELETE only.

// The SQLSTATE of every append-only refusal (schema.ts's APPEND_ONLY_STATE; schema.ts imports this file).
const APPEND_ONLY_STATE = 'SL002';

/** The schema version that brought fold checkpoints. */
export const CHECKPOINTS_SCHEMA_VERSION = 4;

/** The SQL of version 4 on the quoted schema `s`. */
export function version4(s: string): string {
  return `
  CREATE TABLE ${s}.fold_checkpoints (
    session_id text COLLATE "C" NOT NULL,
    seq bigint NOT NULL CHECK (seq > 0),
    digest text NOT NULL,
    payload text NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
`;
}

/** The SQL of version 6 on the quoted schema `s`: the triggers that keep fold checkpoints append-only. */
export function version6(s: string): string {
  return `
  CREATE FUNCTION ${s}.fold_checkpoints_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $body$
  BEGIN
    RAISE EXCEPTION USING ERRCODE = '${APPEND_ONLY_STATE}',
      MESSAGE = 'shadowlog: fold checkpoints are append-only; ' || TG_ARGV[0];
  END
  $body$;

  CREATE TRIGGER fold_checkpoints_no_update BEFORE UPDATE ON ${s}.fold_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.fold_checkpoints_refuse_change('a checkpoint cannot be updated');
  CREATE TRIGGER fold_checkpoints_no_truncate BEFORE TRUNCATE ON ${s}.fold_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.fold_checkpoints_refuse_change('checkpoints cannot be truncated');

  -- On a Citus shard the table is fold_checkpoints_<shard id>, which holds the whole session.
  CREATE FUNCTION ${s}.fold_checkpoints_prune_only() RETURNS trigger LANGUAGE plpgsql AS $body$
  DECLARE
    newer boolean;
  BEGIN
    IF TG_TABLE_NAME = 'fold_checkpoints' THEN
      SELECT EXISTS (SELECT 1 FROM ${s}.fold_checkpoints WHERE session_id = OLD.session_id AND seq > OLD.seq) INTO newer;
    ELSE
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.%I WHERE session_id = $1 AND seq > $2)', TG_TABLE_SCHEMA, TG_TABLE_NAME)
        INTO newer USING OLD.session_id, OLD.seq;
    END IF;
    IF NOT newer THEN
      RAISE EXCEPTION USING ERRCODE = '${APPEND_ONLY_STATE}',
        MESSAGE = 'shadowlog: fold checkpoints are append-only; only pruning deletes one, while a newer checkpoint of its session is kept',
        DETAIL = format('session %s: the checkpoint at seq %s is its newest', OLD.session_id, OLD.seq);
    END IF;
    RETURN OLD;
  END
  $body$;

  CREATE TRIGGER fold_checkpoints_prune_only BEFORE DELETE ON ${s}.fold_checkpoints
    FOR EACH ROW EXECUTE FUNCTION ${s}.fold_checkpoints_prune_only();
`;
}
