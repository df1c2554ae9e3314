// The shadowlog command as a user runs it: a process of its own (node running
// test/support/cli-entry.ts, compiled: test/support/node-script.ts), HOME set to a laid out harness home, the working directory
// outside HOME (so the default store is <cwd>/.shadowlog/shadowlog.db), and no store named by
// the environment. A deadline kills a command that hangs, and the test then fails on it.

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { nodeScriptArgs } from '../../support/node-script.js';
import type { HarnessHome } from './harness-home.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const ENTRY = resolve(ROOT, 'test/support/cli-entry.ts');
const DEADLINE_MS = 60_000;

export interface JourneyResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The command line as a user would type it (for failure messages). */
  readonly command: string;
}

/** The environment of a user whose HOME is `home`: nothing of this machine's shadowlog settings. */
function userEnvironment(home: HarnessHome): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...process.env, HOME: home.home, USERPROFILE: home.home };
  for (const name of ['SHADOWLOG_STORE', 'SHADOWLOG_MODEL_LIMITS', 'SHADOWLOG_DEBUG', 'NO_COLOR', 'FORCE_COLOR']) delete environment[name];
  return environment;
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** How the journey's command reads to a person: `shadowlog import ~/.claude/projects`. */
export function commandLine(home: HarnessHome, args: readonly string[], pipe?: string): string {
  const words = args.map((word) => shellWord(word.startsWith(home.home) ? `~${word.slice(home.home.length)}` : word));
  return `shadowlog ${words.join(' ')}${pipe === undefined ? '' : ` | ${pipe}`}`;
}

function collect(
  home: HarnessHome,
  file: string,
  argv: readonly string[],
  command: string,
  stdin: string | undefined,
): Promise<JourneyResult> {
  const child = spawn(file, argv, {
    cwd: home.cwd,
    env: userEnvironment(home),
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  if (stdin !== undefined) child.stdin?.end(stdin);
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, DEADLINE_MS);
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (killed) fail(new Error(`\`${command}\` was still running after ${DEADLINE_MS} ms; stderr: ${stderr}`));
      else done({ code: code ?? -1, stdout, stderr, command });
    });
  });
}

const shadowlogArgv = (args: readonly string[]) => [...nodeScriptArgs(ENTRY), ...args];

/** `shadowlog …args` under the home's HOME, in its working directory. */
export function shadowlog(home: HarnessHome, args: readonly string[], options: { stdin?: string } = {}): Promise<JourneyResult> {
  return collect(home, process.execPath, shadowlogArgv(args), commandLine(home, args), options.stdin);
}

/** `shadowlog …args | pipe` through a real shell with pipefail: `pipe` reads shadowlog's stdout as a user's pipeline does. */
export function shadowlogPiped(home: HarnessHome, args: readonly string[], pipe: string): Promise<JourneyResult> {
  const line = [process.execPath, ...shadowlogArgv(args)].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  return collect(home, 'bash', ['-c', `set -o pipefail; ${line} | ${pipe}`], commandLine(home, args, pipe), undefined);
}

/** A command that runs until stopped (`sync --watch`): `stop()` sends SIGINT, as Ctrl-C does, and resolves with all it printed. */
export interface RunningJourney {
  /** Everything printed so far. */
  output(): { stdout: string; stderr: string };
  stop(): Promise<JourneyResult>;
}

export function startShadowlog(home: HarnessHome, args: readonly string[]): RunningJourney {
  const command = commandLine(home, args);
  const child = spawn(process.execPath, shadowlogArgv(args), {
    cwd: home.cwd,
    env: userEnvironment(home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const closed = new Promise<number>((done) => child.once('close', (code) => done(code ?? -1)));
  return {
    output: () => ({ stdout, stderr }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
      const code = await closed;
      clearTimeout(timer);
      return { code, stdout, stderr, command };
    },
  };
}
