// A child Node process for multi-process tests: its output collected, a wait for a line it
// prints, and its exit as a promise. Tests kill what they start (killChildren in afterEach).

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { nodeScriptArgs } from './node-script.js';

export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when the child has printed `line` (a whole line); rejects on timeout or exit. */
  waitFor(line: string): Promise<void>;
  /** Everything printed so far. */
  output(): { stdout: string; stderr: string };
}

/** Starts `node <script> …args` (compiled, or through tsx: test/support/node-script.ts). */
export function startChild(script: string, args: readonly string[], timeoutMs: number): Child {
  const child = spawn(process.execPath, [...nodeScriptArgs(script), ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const waitFor = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${line}" from the child in ${timeoutMs} ms: ${stderr}`)), timeoutMs);
      const check = () => {
        if (!stdout.split('\n').includes(line)) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout.on('data', check);
      check();
      void exited.then(() => {
        check();
        clearTimeout(timer);
        reject(new Error(`the child exited before "${line}"; stdout: ${stdout}; stderr: ${stderr}`));
      });
    });
  return { process: child, exited, waitFor, output: () => ({ stdout, stderr }) };
}

/** SIGKILLs every child still running and waits for all of them to exit. */
export async function killChildren(children: Child[]): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
    await child.exited;
  }
}
