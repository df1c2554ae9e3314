// The CLI in a child process with a deadline, for the cases that, when broken, hang or eat memory
// (a FIFO that waits for a writer, /dev/zero, a recursive mkdir under /proc): run in the test's own
// process they would take the test runner down with them; here a hang is a killed child and a
// failed assertion.

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { CliResult } from '../../support/cli.js';
import { nodeScriptArgs } from '../../support/node-script.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const ENTRY = resolve(ROOT, 'test/support/cli-entry.ts');

export interface ChildCliResult extends CliResult {
  /** True when the child was still running at the deadline and was killed. */
  readonly timedOut: boolean;
  readonly milliseconds: number;
}

/** Runs `shadowlog …args` (from source) in the repository root; paths in `args` should be absolute. */
export function runCliChild(args: readonly string[], timeoutMs: number, script = ENTRY): Promise<ChildCliResult> {
  const started = Date.now();
  const child = spawn(process.execPath, [...nodeScriptArgs(script), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  return new Promise((done) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code: code ?? -1, stdout, stderr, timedOut, milliseconds: Date.now() - started });
    });
  });
}
