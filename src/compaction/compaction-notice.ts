// What compaction tells its host as it changes the surface (CompactionOptions.onNotice): so that
// a chat can say, in the conversation, what was shadowed and what the surface costs now. The
// log holds the same facts; a notice only saves reading them back.

import type { CompactionTrigger } from './event-types.js';
import type { CompactionOutcome } from './transaction.js';

export type CompactionNotice =
  | {
      /** The pruner cut long tool results (SPEC §9): no model call. */
      readonly kind: 'pruned';
      readonly sessionId: string;
      readonly trigger: Exclude<CompactionTrigger, 'manual'>;
      /** The tool results pruned (each replaced by its head and tail). */
      readonly prunedSeqs: readonly number[];
      /** The surface's price before and after, by the meter the policy uses. */
      readonly tokensBefore: number;
      readonly tokensAfter: number;
    }
  | {
      /** A compaction ran: it shadowed a range (compacted), or failed and left the surface as it was. */
      readonly kind: 'compaction';
      readonly sessionId: string;
      readonly outcome: CompactionOutcome;
    };
