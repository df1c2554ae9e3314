// A deterministic stream of event drafts shaped like a coding agent's session: turns of user
// messages, model requests, assistant messages with tool calls and their results (sizes drawn
// from long-tailed distributions), and every `replaceEvery` events a compaction that is legal
// under SPEC §3 — a user/message summary over a tool-pairing-balanced range of the current
// surface, never the system message at position 0, listing every shadowed node (and its
// metering event) in sourceEventSeqs. Ranges are picked from the fold's own nodes.

import type { EventDraft, LogEvent } from '../src/log/event.js';
import { prepareAppend } from '../src/log/seal.js';
import { SurfaceFold, type SurfaceNode } from '../src/log/surface-fold.js';
import type { ReplaceOp } from '../src/log/surface-op.js';
import { nodeSha256Hex } from '../src/store/node-sha256.js';
import { buildCorpus, createRandom, WORDS } from './synthetic-text.js';

/** The part of a SurfaceFold the generator reads; the fold must have applied every draft so far. */
export interface SurfaceView {
  toArray(): SurfaceNode[];
}

export interface SyntheticSessionOptions {
  readonly seed?: number;
  /** A compaction's replacement lands on every event whose seq + 1 is a multiple of this. */
  readonly replaceEvery?: number;
  /** Surface nodes a compaction leaves unshadowed at the tail (when the pairing allows). */
  readonly keepRecentNodes?: number;
}

type PendingDraft = (surface: SurfaceView) => EventDraft;

const TOOLS = ['read_file', 'run_command', 'edit_file', 'search', 'list_directory'] as const;
const START_TIME = Date.parse('2026-03-02T09:00:00.000Z');

export class SyntheticSession {
  private readonly random: () => number;
  private readonly replaceEvery: number;
  private readonly keepRecentNodes: number;
  private readonly corpus: string;
  private readonly queue: PendingDraft[] = [];
  private emitted = 0;
  private turn = 0;
  private stepsLeft = 0;
  private step = 0;
  private callCounter = 0;
  private compactions = 0;
  private replacementDueAt: number;
  private pendingReplacement: EventDraft | undefined;

  constructor(options: SyntheticSessionOptions = {}) {
    this.random = createRandom(options.seed ?? 1);
    this.replaceEvery = options.replaceEvery ?? 100;
    this.keepRecentNodes = options.keepRecentNodes ?? 8;
    if (this.replaceEvery < 4) throw new RangeError(`replaceEvery must be at least 4, found ${this.replaceEvery}`);
    // The metering event stands just before its replacement.
    this.replacementDueAt = this.replaceEvery - 2;
    this.corpus = buildCorpus(createRandom((options.seed ?? 1) ^ 0x5eed));
  }

  /** The number of compactions (replacements) handed out so far. */
  get compactionCount(): number {
    return this.compactions;
  }

  /** An event time for the draft at `seq`: 1.5 s apart, so times are deterministic. */
  timeOf(seq: number): string {
    return new Date(START_TIME + seq * 1500).toISOString();
  }

  /** The next draft; `surface` must reflect every draft handed out before it. */
  next(surface: SurfaceView): EventDraft {
    const draft = this.produce(surface);
    this.emitted++;
    return draft;
  }

  private produce(surface: SurfaceView): EventDraft {
    if (this.emitted === 0) return { type: 'session/start', data: { formatVersion: 1, harnessVersion: 'bench' } };
    if (this.emitted === 1) {
      return { type: 'system/message', data: { content: textBlocks(this.text(1800, 0.3, 4000)) }, surfaceOp: 'append' };
    }
    if (this.pendingReplacement !== undefined) {
      const replacement = this.pendingReplacement;
      this.pendingReplacement = undefined;
      this.compactions++;
      return replacement;
    }
    if (this.emitted >= this.replacementDueAt) {
      const metering = this.planCompaction(surface.toArray());
      if (metering !== undefined) {
        while (this.replacementDueAt <= this.emitted) this.replacementDueAt += this.replaceEvery;
        return metering;
      }
    }
    if (this.queue.length === 0) this.planMore();
    return (this.queue.shift() as PendingDraft)(surface);
  }

  /**
   * Picks the range: from surface position 1 (position 0 is the system message) to the last
   * node after which no tool call is open, leaving `keepRecentNodes` at the tail if it can.
   * Returns the metering event and keeps the replacement for the next call.
   */
  private planCompaction(nodes: readonly SurfaceNode[]): EventDraft | undefined {
    if (nodes[0]?.type !== 'system/message') throw new Error('synthetic session: surface position 0 is not the system message');
    const open = new Set<string>();
    let lastBalanced = -1;
    let lastBalancedKeepingTail = -1;
    for (let index = 1; index < nodes.length; index++) {
      const node = nodes[index] as SurfaceNode;
      if (node.type === 'assistant/message') {
        for (const call of (node.event.data as { toolCalls: Array<{ callId: string }> }).toolCalls) open.add(call.callId);
      } else if (node.type === 'tool/result') {
        open.delete((node.event.data as { callId: string }).callId);
      }
      if (open.size === 0) {
        lastBalanced = index;
        if (index <= nodes.length - 1 - this.keepRecentNodes) lastBalancedKeepingTail = index;
      }
    }
    const end = lastBalancedKeepingTail >= 1 ? lastBalancedKeepingTail : lastBalanced;
    if (end < 1) return undefined;
    const shadowed = nodes.slice(1, end + 1).map((node) => node.seq as number);
    const meteringSeq = this.emitted;
    const compactionId = `compaction-${this.compactions + 1}`;
    const op = { op: 'replace', startSeq: shadowed[0], endSeq: shadowed[shadowed.length - 1] } as ReplaceOp;
    this.pendingReplacement = {
      type: 'user/message',
      data: { content: textBlocks(`Earlier context was compacted. <compacted-summary>${this.text(1500, 0.4, 6000)}</compacted-summary>`) },
      surfaceOp: op,
      sourceEventSeqs: [...shadowed, meteringSeq],
    };
    return {
      type: 'compaction/summary',
      data: {
        compactionId,
        shadowedSeqs: shadowed,
        shadowedTokenCount: shadowed.length * 250,
        provider: 'anthropic',
        model: 'claude-summarizer',
        requestDigest: this.digest(),
      },
      ignorable: true,
    };
  }

  /** Queues the next turn's opening, the next step, or the end of the turn. */
  private planMore(): void {
    if (this.stepsLeft === 0) {
      if (this.turn > 0 && this.step > 0) {
        const turn = this.turn;
        this.step = 0;
        this.queue.push(() => ({ type: 'turn/end', data: { turn, reason: 'completed' } }));
        return;
      }
      this.turn++;
      this.stepsLeft = 1 + Math.floor(this.random() * 6);
      const turn = this.turn;
      this.queue.push(
        () => ({ type: 'turn/start', data: { turn } }),
        () => ({ type: 'user/message', data: { content: textBlocks(this.text(160, 0.9, 4000)) }, surfaceOp: 'append' }),
      );
      return;
    }
    this.step++;
    this.stepsLeft--;
    const turn = this.turn;
    const step = this.step;
    this.queue.push((surface) => this.modelRequest(surface, turn, step));
    if (this.random() < 0.01) {
      this.queue.push(() => ({
        type: 'model/error',
        data: { turn, step, code: 'overloaded', message: 'the provider is overloaded; retrying', retryable: true, contextOverflow: false },
      }));
      this.queue.push((surface) => this.modelRequest(surface, turn, step));
    }
    const callCount = this.stepsLeft === 0 ? 0 : 1 + Math.floor(this.random() * this.random() * 4);
    const calls = Array.from({ length: callCount }, () => this.toolCall());
    this.queue.push(() => ({
      type: 'assistant/message',
      data: {
        content: textBlocks(this.text(calls.length > 0 ? 120 : 400, 1, 5000)),
        toolCalls: calls,
        model: 'claude-sonnet',
        usage: { inputTokens: 2000 + Math.floor(this.random() * 60_000), outputTokens: 50 + Math.floor(this.random() * 900) },
      },
      surfaceOp: 'append',
    }));
    for (const call of calls) {
      this.queue.push(() => {
        const failed = this.random() < 0.08;
        const data: Record<string, unknown> = { callId: call.callId, content: textBlocks(this.text(failed ? 120 : 500, 1.3, 30_000)) };
        if (failed) data.error = { message: `${call.name} failed: exit code 1` };
        return { type: 'tool/result', data, surfaceOp: 'append' };
      });
    }
  }

  private modelRequest(surface: SurfaceView, turn: number, step: number): EventDraft {
    const surfaceSeqs = surface.toArray().map((node) => node.seq);
    return {
      type: 'model/request',
      data: {
        turn,
        step,
        provider: 'anthropic-messages',
        model: 'claude-sonnet',
        params: { maxTokens: 8192, temperature: 0 },
        surfaceSeqs,
        requestDigest: this.digest(),
        estimatedTokens: surfaceSeqs.length * 300,
        rendererVersion: '1',
      },
    };
  }

  private toolCall(): { callId: string; name: string; arguments: Record<string, string> } {
    const name = TOOLS[Math.floor(this.random() * TOOLS.length)] as string;
    const callId = `toolu_${(++this.callCounter).toString(36).padStart(8, '0')}${Math.floor(this.random() * 2 ** 40).toString(36)}`;
    const path = `src/${this.word()}/${this.word()}.ts`;
    const args: Record<string, string> =
      name === 'run_command'
        ? { command: `npm test -- ${this.word()}` }
        : name === 'edit_file'
          ? { path, oldText: this.text(80, 0.8, 2000), newText: this.text(90, 0.8, 2000) }
          : name === 'search'
            ? { query: this.word(), path: 'src' }
            : { path };
    return { callId, name, arguments: args };
  }

  /** A slice of the corpus whose length is log-normal around `medianLength`. */
  private text(medianLength: number, sigma: number, maxLength: number): string {
    const length = Math.max(1, Math.min(maxLength, Math.round(medianLength * Math.exp(sigma * this.normal()))));
    const start = Math.floor(this.random() * (this.corpus.length - length));
    return this.corpus.slice(start, start + length);
  }

  private word(): string {
    return WORDS[Math.floor(this.random() * WORDS.length)] as string;
  }

  private digest(): string {
    let out = '';
    for (let i = 0; i < 8; i++)
      out += Math.floor(this.random() * 2 ** 32)
        .toString(16)
        .padStart(8, '0');
    return out;
  }

  private normal(): number {
    // Box–Muller; 1 - random() keeps the logarithm finite.
    return Math.sqrt(-2 * Math.log(1 - this.random())) * Math.cos(2 * Math.PI * this.random());
  }
}

/** The synthetic session sealed into events as a writer would (prepareAppend into its own fold, node:crypto hashing). */
export class SealedSessionStream {
  readonly session: SyntheticSession;
  readonly fold = new SurfaceFold();
  private readonly now = () => this.session.timeOf(this.fold.nextSeq);

  constructor(options: SyntheticSessionOptions = {}) {
    this.session = new SyntheticSession(options);
  }

  next(): LogEvent {
    return prepareAppend(this.fold, [this.session.next(this.fold)], this.now, nodeSha256Hex).events[0] as LogEvent;
  }

  /** The next draft, unsealed, for a log that stands where this stream stood (the stream seals it to move on). */
  nextDraft(): EventDraft {
    const draft = this.session.next(this.fold);
    prepareAppend(this.fold, [draft], this.now, nodeSha256Hex);
    return draft;
  }

  /** The next `count` events, each sealed after the one before was applied. */
  take(count: number): LogEvent[] {
    const events: LogEvent[] = [];
    for (let index = 0; index < count; index++) events.push(this.next());
    return events;
  }
}

function textBlocks(value: string): Array<{ type: 'text'; text: string }> {
  return [{ type: 'text', text: value }];
}
