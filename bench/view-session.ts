// A long session for the audit page's benchmark, built synthetically in batches through
// SessionLog (so that fold checkpoints are written as a harness writes them): a system
// message, then synthetic but valid turns and compactions (bench/synthetic-turns.ts) up to the
// number of events asked for. Its calls' digests are placeholders: their checks fail.

import { createCliRegistry } from '../src/cli/registry.js';
import type { LogStore } from '../src/store/log-store.js';
import { SessionLog } from '../src/store/session-log.js';
import { AGENT_SYSTEM_PROMPT, CodingAgentScript } from './coding-agent-script.js';
import { SyntheticTurns } from './synthetic-turns.js';

export const VIEW_SESSION_MODEL = 'bench-coding-agent';

export interface ViewSession {
  readonly events: number;
  readonly compactions: number;
}

/** Builds the session `sessionId` in `store` until it holds `events` events. */
export async function buildViewSession(store: LogStore, sessionId: string, events: number): Promise<ViewSession> {
  const log = await SessionLog.create(store, sessionId, { registry: createCliRegistry() });
  await log.append([{ type: 'system/message', data: { content: [{ type: 'text', text: AGENT_SYSTEM_PROMPT }] }, surfaceOp: 'append' }]);
  const turns = new SyntheticTurns(log, new CodingAgentScript(), VIEW_SESSION_MODEL);
  await turns.run(1, events);
  return { events: log.nextSeq, compactions: turns.compactionCount };
}
