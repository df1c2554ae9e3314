// `shadowlog show … | head -1`: a reader that closes standard output ends the command quietly
// with status 0, never with an EPIPE stack trace. Real processes and a real pipe whose reading
// end is closed before the command writes anything.

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { nodeScriptArgs } from '../support/node-script.js';

const ENTRY = resolve(import.meta.dirname, '../support/cli-entry.ts');
const SAMPLE = resolve(import.meta.dirname, '../../examples/sample-session.jsonl');

/** Runs the CLI with its stdout a pipe nobody reads: the reading end is closed at once. */
function runWithClosedStdout(cwd: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [...nodeScriptArgs(ENTRY), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((done) => child.once('close', (code) => done({ code, stderr })));
}

describe('a closed standard output', () => {
  const workspace = createCliWorkspace();
  beforeAll(async () => {
    expect((await workspace.run(['import', SAMPLE])).code).toBe(0);
  });
  afterAll(() => workspace.cleanup());

  it.each([
    ['show --record', ['show', 'sample-fix-parser', '--record', '--full']],
    ['show --record --json', ['show', 'sample-fix-parser', '--record', '--json']],
    ['show --surface', ['show', 'sample-fix-parser']],
    ['export', ['export', 'sample-fix-parser']],
    ['verify', ['verify', 'sample-fix-parser']],
    ['origins', ['origins', 'sample-fix-parser', '27', '--full']],
    ['sessions', ['sessions']],
    ['show --follow', ['show', 'sample-fix-parser', '--follow', '--until-seq', '31']],
  ])('%s ends quietly with status 0', async (_name, args) => {
    const result = await runWithClosedStdout(workspace.cwd, args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
