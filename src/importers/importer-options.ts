// What every source mapper is given.

import type { SessionParent } from '../log/event.js';

export interface ImportOptions {
  /** The session id to use instead of the one derived from the source (--as). */
  readonly sessionId?: string;
  /** The session this one is a sub-session of. */
  readonly parent?: SessionParent;
  /** The context window to record on calls whose source states none (--window). */
  readonly window?: number;
  /**
   * The sessions of this source a store holds already, each with the id of the last source entry
   * it holds: a pi session tree keeps each stored session on the path it was imported with.
   */
  readonly storedLeaves?: ReadonlyMap<string, string>;
}
