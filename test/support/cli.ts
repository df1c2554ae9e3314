// Runs the CLI in-process with captured streams and a working directory of its own.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function createCliWorkspace() {
  const cwd = mkdtempSync(join(tmpdir(), 'shadowlog-cli-'));
  return {
    cwd,
    /** `signal` stops a command that runs until stopped (`show --follow`), as Ctrl-C does. */
    async run(args: string[], stdin = '', options: { signal?: AbortSignal } = {}): Promise<CliResult> {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      stdout.on('data', (chunk: Buffer) => out.push(chunk));
      stderr.on('data', (chunk: Buffer) => err.push(chunk));
      const io = { stdout, stderr, stdin: Readable.from([Buffer.from(stdin)]), cwd };
      const code = await main(args, options.signal === undefined ? io : { ...io, signal: options.signal });
      return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
    },
    cleanup() {
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
