// What every source mapper is given.

import type { LogEvent, SessionParent } from '../log/event.js';

export interface ImportOptions {
  /** The session id to use instead of the one derived from the source (--as). */
  readonly sessionId?: string;
  /** The session this one is a sub-session of. */
  readonly parent?: SessionParent;
  /** The context window to record on calls whose source states none (--window). */
  readonly window?: number;
  /**
   * The events of a session a file names as the one it was forked from (a Claude Code
   * `--fork-session` file, a Codex `forked_from_id`), when this import or the store holds it:
   * the file is then imported as a branch of it (SPEC §14).
   */
  readonly forkParentEvents?: (sessionId: string) => readonly LogEvent[] | undefined;
  /**
   * The last source line the store's session of this id was imported from, when the store
   * holds it: a Claude Code transcript rewound since keeps the path that session continues
   * under its id (the store's events never change), the new latest path becoming a branch.
   */
  readonly storedLastLine?: (sessionId: string) => number | undefined;
  /**
   * Whether the store holds this session already, not as a branch: a forked file imported
   * whole before its parent was stays whole (as a branch its events would differ).
   */
  readonly storedWhole?: (sessionId: string) => boolean;
  /**
   * The sessions of this source a store holds already, each with the id of the last source entry
   * it holds: a pi session tree keeps each stored session on the path it was imported with.
   */
  readonly storedLeaves?: ReadonlyMap<string, string>;
}
