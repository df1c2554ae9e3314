// The event types the command line knows: the core ones and compaction's, so that commands
// reading a compacted session check its compaction events too.

import { COMPACTION_EVENT_TYPES } from '../compaction/index.js';
import { EventTypeRegistry } from '../log/index.js';

export function createCliRegistry(): EventTypeRegistry {
  return new EventTypeRegistry(COMPACTION_EVENT_TYPES);
}
