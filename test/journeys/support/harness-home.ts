// A temporary HOME with the shared corpus laid out as each harness lays out its own sessions, so
// that a journey reads the same paths a user of that harness has:
//   Claude Code  ~/.claude/projects/<cwd, every character but letters and digits a dash>/<session id>.jsonl,
//                its sub-agents in <session id>/subagents/agent-<agent id>.jsonl beside it;
//   Codex CLI    ~/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<session id>.jsonl;
//   pi           ~/.pi/agent/sessions/--<cwd, slashes as dashes>--/<timestamp, : and . as dashes>_<session id>.jsonl
// (pi's own rule: @mariozechner/pi-coding-agent, dist/core/session-manager.js). The directory and
// file names are derived from each file's own records (its cwd, its session id, its start time),
// not written down here, so a corpus file added later lands where its harness would put it.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CORPUS_FILES, corpusFile } from '../../support/corpus-sessions.js';

export type Harness = 'claude-code' | 'codex' | 'pi';

/** One session file as its harness left it under HOME. */
export interface LaidOutSession {
  readonly harness: Harness;
  /** The harness's own id of the session (Claude Code's uuid, the Codex rollout id, pi's session id). */
  readonly sourceId: string;
  /** The id `import` gives the session in a store. */
  readonly storeId: string;
  /** Where the file is under HOME. */
  readonly path: string;
  /** The working directory the session ran in, as its records state it. */
  readonly cwd: string;
}

export interface HarnessHome {
  /** The temporary HOME. */
  readonly home: string;
  /** A working directory outside HOME, where the default store (.shadowlog/) is made. */
  readonly cwd: string;
  /** The directory each harness keeps its sessions in, under HOME. */
  readonly roots: Readonly<Record<Harness, string>>;
  readonly sessions: readonly LaidOutSession[];
  /** The one laid out session of `harness` whose source id starts with `prefix`. */
  session(harness: Harness, prefix?: string): LaidOutSession;
  cleanup(): void;
}

function records(path: string, count: number): Record<string, unknown>[] {
  const lines = readFileSync(path, 'utf8')
    .split('\n', count + 1)
    .slice(0, count);
  return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
}

function copyInto(source: string, target: string): void {
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(source, target);
}

/** Claude Code names a project's directory by its cwd with every other character a dash. */
export function claudeProjectDirectory(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

/** pi's `--<cwd>--` directory name (its getDefaultSessionDir). */
export function piSessionDirectory(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

function layClaudeCode(home: string, file: string, subagents: readonly string[]): LaidOutSession {
  const source = corpusFile(file);
  const first = records(source, 40).find((record) => typeof record.cwd === 'string' && typeof record.sessionId === 'string');
  if (first === undefined) throw new Error(`${file}: no record with a cwd and a sessionId in its first lines`);
  const cwd = first.cwd as string;
  const sourceId = first.sessionId as string;
  const project = join(home, '.claude', 'projects', claudeProjectDirectory(cwd));
  const path = join(project, `${sourceId}.jsonl`);
  copyInto(source, path);
  for (const subagent of subagents) {
    const name = subagent.split('/').at(-1) as string;
    copyInto(corpusFile(subagent), join(project, sourceId, 'subagents', name));
  }
  return { harness: 'claude-code', sourceId, storeId: `claude-code-${sourceId}`, path, cwd };
}

function layCodex(home: string, file: string): LaidOutSession {
  const source = corpusFile(file);
  const meta = records(source, 1)[0];
  const payload = (meta?.type === 'session_meta' ? meta.payload : undefined) as { id?: string; cwd?: string } | undefined;
  if (payload?.id === undefined || payload.cwd === undefined) throw new Error(`${file}: line 1 is not a session_meta with an id`);
  // The rollout's name holds the local time it started at; its directory is that local date.
  const started = /rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2}-\d{2}-\d{2})/.exec(file);
  if (started === null) throw new Error(`${file}: no start time in its name`);
  const [, year, month, day, time] = started as unknown as [string, string, string, string, string];
  const path = join(home, '.codex', 'sessions', year, month, day, `rollout-${year}-${month}-${day}T${time}-${payload.id}.jsonl`);
  copyInto(source, path);
  return { harness: 'codex', sourceId: payload.id, storeId: `codex-${payload.id}`, path, cwd: payload.cwd };
}

function layPi(home: string, file: string): LaidOutSession {
  const source = corpusFile(file);
  const header = records(source, 1)[0] as { type?: string; id?: string; cwd?: string; timestamp?: string } | undefined;
  if (header?.type !== 'session' || header.id === undefined || header.cwd === undefined || header.timestamp === undefined)
    throw new Error(`${file}: line 1 is not a pi session header`);
  const name = `${header.timestamp.replace(/[:.]/g, '-')}_${header.id}.jsonl`;
  const path = join(home, '.pi', 'agent', 'sessions', piSessionDirectory(header.cwd), name);
  copyInto(source, path);
  return { harness: 'pi', sourceId: header.id, storeId: `pi-${header.id}`, path, cwd: header.cwd };
}

/** Lays out the harnesses named (all three by default) under a new temporary HOME. */
export function createHarnessHome(harnesses: readonly Harness[] = ['claude-code', 'codex', 'pi']): HarnessHome {
  const root = mkdtempSync(join(tmpdir(), 'shadowlog-journey-'));
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  const sessions: LaidOutSession[] = [];
  if (harnesses.includes('claude-code')) {
    sessions.push(layClaudeCode(home, CORPUS_FILES.claudeMain, [CORPUS_FILES.claudeSummarizer]));
    sessions.push(layClaudeCode(home, CORPUS_FILES.claudeSmall, []));
  }
  if (harnesses.includes('codex')) {
    sessions.push(layCodex(home, CORPUS_FILES.codexOld));
    sessions.push(layCodex(home, CORPUS_FILES.codexCompacted));
  }
  if (harnesses.includes('pi')) sessions.push(layPi(home, CORPUS_FILES.pi));
  const roots: Record<Harness, string> = {
    'claude-code': join(home, '.claude', 'projects'),
    codex: join(home, '.codex', 'sessions'),
    pi: join(home, '.pi', 'agent', 'sessions'),
  };
  return {
    home,
    cwd,
    roots,
    sessions,
    session(harness, prefix = '') {
      const found = sessions.filter((session) => session.harness === harness && session.sourceId.startsWith(prefix));
      if (found.length !== 1) throw new Error(`${found.length} laid out ${harness} sessions whose id starts with "${prefix}"`);
      return found[0] as LaidOutSession;
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
