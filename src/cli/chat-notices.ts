// The line `chat` writes into the conversation when compaction changes what the model is shown:
// what was shadowed (the turns and messages it stood for, or the tool results pruned) and the
// surface's tokens before and after, by the meter the policy uses. It goes to the terminal only,
// never to the model; with --json nothing is written, so that a reader of the JSON gets no noise.

import type { CompactionNotice } from '../compaction/index.js';
import { asSessionSeq, dataOf, type LogEvent, origins } from '../log/index.js';
import type { LogStore } from '../store/index.js';
import type { CommandContext } from './context.js';
import { escapeTerminalText } from './terminal-text.js';

/** The onNotice of a chat's compaction: each notice as one line of the conversation. */
export function chatNoticeWriter(context: CommandContext, store: LogStore): (notice: CompactionNotice) => Promise<void> {
  const turns = new TurnFinder(store);
  return async (notice) => {
    if (context.json) return;
    const line = await noticeLine(notice, turns);
    context.io.stdout.write(`\n  ${escapeTerminalText(line)}\n`);
  };
}

export async function noticeLine(notice: CompactionNotice, turns: TurnFinder): Promise<string> {
  if (notice.kind === 'pruned') {
    const count = notice.prunedSeqs.length;
    const where = await turns.span(notice.sessionId, notice.prunedSeqs);
    return `── pruned ${count} tool ${count === 1 ? 'result' : 'results'} to head and tail (${where}; the originals stay in the log): ${tokens(notice.tokensBefore, notice.tokensAfter)}${notice.trigger === 'context-overflow' ? ', after the provider said the request was too long' : ''}`;
  }
  const { outcome } = notice;
  if (outcome.status === 'failed')
    return `── compaction failed (${outcome.reason}): ${outcome.message}; the model is sent the whole history`;
  const { shadowedSeqs } = outcome;
  const where = await turns.span(notice.sessionId, shadowedSeqs);
  const replaced =
    outcome.strategy === 'mask'
      ? `${outcome.replacementSeqs.length} tool results masked`
      : `${shadowedSeqs.length} ${shadowedSeqs.length === 1 ? 'message' : 'messages'} shadowed by #${outcome.summarySeq}`;
  const trigger = outcome.trigger === 'pressure' ? '' : ` (${outcome.trigger})`;
  return `── compacted${trigger} ${where}, ${replaced}: ${tokens(outcome.tokensBefore, outcome.tokensAfter)}; /surface shows it, /record the originals`;
}

function tokens(before: number, after: number): string {
  return `${before} → ${after} tokens`;
}

/** The turns surface nodes stand for: their original events' turns, read back from the store. */
export class TurnFinder {
  private readonly cache = new Map<string, number | null>();
  constructor(private readonly store: LogStore) {}

  /** `turns 1–6` or `turn 3`, over the original events the nodes at `seqs` stand for. */
  async span(sessionId: string, seqs: readonly number[]): Promise<string> {
    const read = (seq: number) => this.store.readEvent(sessionId, seq);
    const found: number[] = [];
    for (const seq of seqs) for (const origin of await origins(asSessionSeq(seq), read)) found.push(origin);
    if (found.length === 0) return 'nothing';
    const first = await this.turnOf(sessionId, Math.min(...found));
    const last = await this.turnOf(sessionId, Math.max(...found));
    if (first === null || last === null) return 'before the first turn';
    return first === last ? `turn ${first}` : `turns ${first}–${last}`;
  }

  /** The turn an event belongs to: that of the latest turn/start at or before it (null before any). */
  private async turnOf(sessionId: string, seq: number): Promise<number | null> {
    const key = `${sessionId} ${seq}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    let turn: number | null = null;
    for (let at = seq; at >= 0; at--) {
      const event: LogEvent = await this.store.readEvent(sessionId, at);
      if (event.type === 'turn/start') {
        turn = dataOf(event, 'turn/start').turn;
        break;
      }
    }
    this.cache.set(key, turn);
    return turn;
  }
}
