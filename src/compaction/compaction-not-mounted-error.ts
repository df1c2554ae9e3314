// The error of a compaction used before its harness mounted it.

import { ShadowlogError } from '../log/errors.js';

export class CompactionNotMountedError extends ShadowlogError {
  constructor() {
    super(
      'COMPACTION_NOT_MOUNTED',
      'compaction is not mounted on a harness yet; pass it in createHarness({capabilities: [compaction]}) first',
    );
  }
}
