// Random valid session logs, for property tests and benchmarks. The generator plays a harness
// with compaction mounted: turns with tool calls and results, log-only events between them,
// pruner-style tool/result replacements, and summaries over random legal ranges (summaries of
// summaries included). It consults a SurfaceFold as it goes to learn the current surface, but
// decides which ranges are legal by its own reading of SPEC §3, so a fold that refuses one of
// its logs has found a disagreement. Fold the drafts with createTestRegistry() (it knows the
// compaction types) and any clock.

import type { EventDraft } from '../../src/log/event.js';
import { prepareAppend } from '../../src/log/seal.js';
import { encodeRequestSurface } from '../../src/log/surface-change.js';
import { SurfaceFold, type SurfaceNode } from '../../src/log/surface-fold.js';
import { drafts, fixedNow } from './events.js';
import { createTestRegistry, moreDrafts } from './log-drafts.js';

/** What the generator needs from a random source; fast-check's `Random` fits as it is. */
export interface RandomSource {
  /** An integer from min to max, both included. */
  nextInt(min: number, max: number): number;
}

/** A small deterministic random source (mulberry32) for a numeric seed. */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { nextInt: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}

export interface RandomLogOptions {
  /** The log stops growing once it has at least this many events (default: a random 2–120). */
  readonly targetEvents?: number;
  /** Upper bound for the random target when targetEvents is not given (default 120). */
  readonly maxEvents?: number;
  /** The session's format version (default 1): in 2, model/requests carry the change from the previous one where it is shorter. */
  readonly formatVersion?: 1 | 2;
}

export interface RandomLogStats {
  summaries: number;
  /** Summaries whose range included an earlier replacement node. */
  nestedSummaries: number;
  prunes: number;
  systemReplacements: number;
  toolCalls: number;
}

export interface RandomLog {
  /** Every draft, in order, from session/start on. */
  readonly drafts: readonly EventDraft[];
  /** The same drafts grouped as the harness appended them; each batch is one atomic append. */
  readonly batches: readonly (readonly EventDraft[])[];
  readonly stats: RandomLogStats;
}

/** Builds a random valid log from a fast-check `Random`, any RandomSource, or a numeric seed. */
export function buildRandomLog(source: RandomSource | number, options: RandomLogOptions = {}): RandomLog {
  const random = typeof source === 'number' ? seededRandom(source) : source;
  const builder = new LogBuilder(random, options.formatVersion ?? 1);
  const target = options.targetEvents ?? random.nextInt(2, options.maxEvents ?? 120);
  builder.run(target);
  return { drafts: builder.batches.flat(), batches: builder.batches, stats: builder.stats };
}

type Range = { readonly start: number; readonly end: number };

class LogBuilder {
  readonly fold = new SurfaceFold({ registry: createTestRegistry() });
  readonly batches: EventDraft[][] = [];
  readonly stats: RandomLogStats = { summaries: 0, nestedSummaries: 0, prunes: 0, systemReplacements: 0, toolCalls: 0 };
  private turn = 0;
  private callCount = 0;
  private compactionCount = 0;

  constructor(
    private readonly random: RandomSource,
    private readonly formatVersion: 1 | 2,
  ) {}

  run(target: number): void {
    this.append([this.formatVersion === 1 ? drafts.start() : drafts.startV2()]);
    if (this.chance(0.85)) this.append([drafts.system(`You are agent ${this.int(1, 99)}.`)]);
    while (this.fold.nextSeq < target) {
      const roll = this.int(0, 99);
      if (roll < 45) this.runTurn(target);
      else if (roll < 65) this.compact();
      else if (roll < 78) this.prune();
      else if (roll < 95) this.noise();
      else this.replaceSystem();
    }
  }

  private runTurn(target: number): void {
    this.turn++;
    const question = drafts.user(`question ${this.turn}`);
    if (this.chance(0.5)) this.append([drafts.turnStart(this.turn), question]);
    else {
      this.append([drafts.turnStart(this.turn)]);
      this.append([question]);
    }
    const steps = this.int(1, 3);
    for (let step = 1; step <= steps && this.fold.nextSeq < target + 10; step++) {
      // Capabilities act before each step: sometimes a compaction or a prune lands here.
      if (this.chance(0.2)) this.compact();
      if (this.chance(0.15)) this.prune();
      // Built when appended: in format 2 it names the latest request before it.
      const request = () => this.modelRequest(this.turn, step);
      if (this.chance(0.1)) this.append([request(), moreDrafts.modelError(this.turn, step)]);
      const callIds = Array.from({ length: step === steps ? 0 : this.int(0, 3) }, () => `call-${++this.callCount}`);
      this.stats.toolCalls += callIds.length;
      const answer = drafts.assistant(`answer ${this.turn}.${step}`, callIds);
      this.append(this.chance(0.5) ? [request(), answer] : [answer]);
      // Results come in any order, alone or together, with log-only noise between them.
      const pending = this.shuffle(callIds);
      while (pending.length > 0) {
        const take = this.int(1, pending.length);
        const batch = pending.splice(0, take).map((callId) => drafts.toolResult(callId, `result of ${callId} `.repeat(this.int(1, 4))));
        if (this.chance(0.15)) batch.push(moreDrafts.ignorableNote(`progress ${this.callCount}`));
        this.append(batch);
      }
    }
    if (this.chance(0.8)) this.append([moreDrafts.turnEnd(this.turn)]);
  }

  /** A summary over a random legal range, as the compaction transaction writes it. */
  private compact(): void {
    const surface = this.fold.toArray();
    const range = this.selectRange(surface);
    if (range === undefined) return;
    const compactionId = `k${++this.compactionCount}`;
    const startSeq = this.fold.nextSeq;
    this.append([moreDrafts.compactionStart(compactionId)]);
    if (this.chance(0.1)) {
      // A failed compaction: the surface stays as it was.
      this.append([{ ...moreDrafts.compactionEnd(compactionId), data: { compactionId, error: 'summary too long' } }]);
      return;
    }
    const shadowed = surface.slice(range.start, range.end + 1);
    const shadowedSeqs = shadowed.map((node) => node.seq);
    const summarySeq = this.fold.nextSeq;
    const sources = [...shadowedSeqs, summarySeq];
    if (this.chance(0.3)) sources.push(startSeq);
    const first = shadowed[0] as SurfaceNode;
    const last = shadowed[shadowed.length - 1] as SurfaceNode;
    const text = `Earlier context was compacted. <compacted-summary>${shadowedSeqs.join(',')}</compacted-summary>`;
    const replacement = this.chance(0.85)
      ? moreDrafts.userReplace(text, first.seq, last.seq, this.shuffle(sources))
      : moreDrafts.assistantReplace(text, first.seq, last.seq, this.shuffle(sources));
    this.append([moreDrafts.compactionSummary(compactionId, shadowedSeqs), replacement]);
    this.append([moreDrafts.compactionEnd(compactionId)]);
    this.stats.summaries++;
    if (shadowed.some((node) => node.sourceEventSeqs.length > 0)) this.stats.nestedSummaries++;
  }

  /**
   * A random range of current nodes that keeps every tool call with its result and leaves a
   * position-0 system message alone; undefined when the tries find none.
   */
  private selectRange(surface: readonly SurfaceNode[]): Range | undefined {
    const low = surface[0]?.type === 'system/message' ? 1 : 0;
    if (surface.length <= low) return undefined;
    // For each node, the lowest and highest position its pair partners stand at.
    const callAt = new Map<string, number>();
    const resultAt = new Map<string, number>();
    surface.forEach((node, index) => {
      if (node.type === 'assistant/message') for (const callId of callIdsOf(node)) callAt.set(callId, index);
      if (node.type === 'tool/result') resultAt.set(resultCallId(node), index);
    });
    const lowest = surface.map((_, index) => index);
    const highest = surface.map((_, index) => index);
    for (const [callId, callIndex] of callAt) {
      const resultIndex = resultAt.get(callId);
      if (resultIndex === undefined) continue;
      highest[callIndex] = Math.max(highest[callIndex] as number, resultIndex);
      lowest[resultIndex] = Math.min(lowest[resultIndex] as number, callIndex);
    }
    for (let attempt = 0; attempt < 12; attempt++) {
      const start = this.chance(0.5) ? low : this.int(low, surface.length - 1);
      const end = this.int(start, Math.min(surface.length - 1, start + this.int(0, 15)));
      let legal = true;
      for (let index = start; index <= end && legal; index++) {
        legal = (lowest[index] as number) >= start && (highest[index] as number) <= end;
      }
      if (legal) return { start, end };
    }
    return undefined;
  }

  /** A pruner-style replacement of one tool/result node. */
  private prune(): void {
    const results = this.fold.toArray().filter((node) => node.type === 'tool/result');
    if (results.length === 0) return;
    const node = this.pick(results);
    const callId = resultCallId(node);
    const pruneDraft = moreDrafts.compactionPrune(node.seq);
    const pruneSeq = this.fold.nextSeq;
    const replacement = moreDrafts.toolResultReplace(
      callId,
      `[pruned: see seq ${node.seq}]`,
      node.seq,
      node.seq,
      this.shuffle([node.seq, pruneSeq]),
    );
    if (this.chance(0.5)) this.append([pruneDraft, replacement]);
    else {
      this.append([pruneDraft]);
      this.append([replacement]);
    }
    this.stats.prunes++;
  }

  private replaceSystem(): void {
    const head = this.fold.toArray()[0];
    if (head?.type !== 'system/message') return;
    this.append([moreDrafts.systemReplace(`You are agent ${this.int(100, 199)}.`, head.seq, head.seq, [head.seq])]);
    this.stats.systemReplacements++;
  }

  private noise(): void {
    const roll = this.int(0, 3);
    if (roll === 0) this.append([moreDrafts.endSeed()]);
    else if (roll === 1) this.append([moreDrafts.ignorableNote(`note ${this.fold.nextSeq}`)]);
    else if (roll === 2) this.append([moreDrafts.modelError(Math.max(1, this.turn), 1)]);
    else this.append([this.modelRequest(Math.max(1, this.turn), 1)]);
  }

  private append(batch: EventDraft[]): void {
    // Throws if the fold refuses a draft this generator believes legal.
    prepareAppend(this.fold, batch, fixedNow);
    this.batches.push(batch);
  }

  private modelRequest(turn: number, step: number): EventDraft {
    const seqs = this.fold.toArray().map((node) => node.seq);
    if (this.formatVersion === 1) return moreDrafts.modelRequest(turn, step, seqs);
    return moreDrafts.modelRequestOf(turn, step, encodeRequestSurface(this.fold.lastRequestSurface, seqs));
  }

  private int(min: number, max: number): number {
    return this.random.nextInt(min, max);
  }

  private chance(probability: number): boolean {
    return this.random.nextInt(0, 999) < probability * 1000;
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  private shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }
}

function callIdsOf(node: SurfaceNode): string[] {
  const toolCalls = (node.event.data as { toolCalls?: Array<{ callId: string }> }).toolCalls ?? [];
  return toolCalls.map((call) => call.callId);
}

function resultCallId(node: SurfaceNode): string {
  return (node.event.data as { callId: string }).callId;
}
