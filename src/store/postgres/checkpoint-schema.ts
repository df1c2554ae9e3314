// Schema version 4 of the PostgreSQL store: fold checkpoints (store/fold-checkpoints.ts), derived
// data beside the log and never part of it, so its rows are replaced and deleted freely (no
// append-only triggers). Keyed by session id like every other table: it distributes with
// `events` (Citus: `create_distributed_table('<schema>.fold_checkpoints', 'session_id',
// colocate_with => '<schema>.events')`). A reader of an older schema finds no checkpoints.

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
