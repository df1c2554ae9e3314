// Every test file gets a checkpoint key file of its own in a temporary directory, named by
// SHADOWLOG_CHECKPOINT_KEY_FILE (and so inherited by the CLI processes a test starts), so that
// no test reads or creates the key in the real HOME. The file is created by the first checkpoint
// written, as a user's is.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { CHECKPOINT_KEY_FILE_VARIABLE } from '../../src/store/checkpoint-key.js';

const directory = mkdtempSync(join(tmpdir(), 'shadowlog-checkpoint-key-'));
process.env[CHECKPOINT_KEY_FILE_VARIABLE] = join(directory, 'checkpoint-key');

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
