// Where each harness keeps its sessions on this machine, as the harness itself decides it:
// Claude Code under $CLAUDE_CONFIG_DIR/projects (default ~/.claude/projects), Codex CLI under
// $CODEX_HOME/sessions (default ~/.codex/sessions), pi under $PI_CODING_AGENT_SESSION_DIR, else
// $PI_CODING_AGENT_DIR/sessions (default ~/.pi/agent/sessions; pi's config.js and main.js).

import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ImportFormat } from './import-errors.js';

export type Harness = Exclude<ImportFormat, 'shadowlog'>;

export interface HarnessLocation {
  readonly harness: Harness;
  /** The directory of its session files. */
  readonly directory: string;
  /** How it was found: the default, or the variable that set it ("CODEX_HOME=/x"). */
  readonly from: string;
}

export interface HarnessLocationOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home?: string;
}

export function harnessLocations(options: HarnessLocationOptions = {}): HarnessLocation[] {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const expand = (path: string) => (path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path);
  const set = (name: string) => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const claude = set('CLAUDE_CONFIG_DIR');
  const codex = set('CODEX_HOME');
  const piSessions = set('PI_CODING_AGENT_SESSION_DIR');
  const piAgent = set('PI_CODING_AGENT_DIR');
  return [
    claude === undefined
      ? { harness: 'claude-code', directory: join(home, '.claude', 'projects'), from: 'default' }
      : { harness: 'claude-code', directory: join(expand(claude), 'projects'), from: `CLAUDE_CONFIG_DIR=${claude}` },
    codex === undefined
      ? { harness: 'codex', directory: join(home, '.codex', 'sessions'), from: 'default' }
      : { harness: 'codex', directory: join(expand(codex), 'sessions'), from: `CODEX_HOME=${codex}` },
    piSessions !== undefined
      ? { harness: 'pi', directory: expand(piSessions), from: `PI_CODING_AGENT_SESSION_DIR=${piSessions}` }
      : piAgent !== undefined
        ? { harness: 'pi', directory: join(expand(piAgent), 'sessions'), from: `PI_CODING_AGENT_DIR=${piAgent}` }
        : { harness: 'pi', directory: join(home, '.pi', 'agent', 'sessions'), from: 'default' },
  ];
}
