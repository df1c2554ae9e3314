// One policy's counterfactual replay of one session: at each recorded call, the surface this
// policy would have sent — the system message, its summary (if it compacted), the verbatim
// items from its cut on, long tool results pruned where it pruned — compacting and pruning
// where its trigger says it would have. State is a cut, a summary and the pruned results, so a
// call costs O(1) plus the work of a compaction (summarizing what it shadows, once).

import type { PeerPlan, PolicyWindow } from '../compaction/peer-policies.js';
import { parseCompactionConfig } from '../compaction/policy.js';
import { recallHandleOf } from '../compaction/recall/recall-index.js';
import { replacementText } from '../compaction/render-summary.js';
import { recallHandleText } from '../compaction/strategies/recall-strategy.js';
import type { SummarySections } from '../compaction/summary-sections.js';
import { ShadowlogError } from '../log/errors.js';
import type { ModelMessage } from '../providers/language-model.js';
import { artifactsOf } from './artifacts.js';
import type { PrunedItem, ReplayContext } from './replay-context.js';
import type { TraceCall } from './trace.js';
import type { TunePolicy } from './tune-policies.js';

/** What one call of the replay sent. */
export interface CallOutcome {
  /** Input tokens of the request: the fixed part and the messages. */
  readonly tokens: number;
  /** Of them, the prefix identical to the policy's previous request (the prompt cache's share). */
  readonly cachedTokens: number;
  /** tokens + reserve > window: the provider would have refused it. */
  readonly overWindow: boolean;
  /** Compactions and prunes this call triggered. */
  readonly compactions: number;
  readonly prunes: number;
  /** The summarizer's input and output tokens this call triggered. */
  readonly summarizerInput: number;
  readonly summarizerOutput: number;
  /** Artifacts the answer used, and which of them were not on this surface. */
  readonly used: number;
  readonly missed: readonly string[];
  /**
   * Of the missed, those the recall tool could still read back: named in an original that a
   * recall handle shadows (recall policies only; always empty for the others).
   */
  readonly recallable: readonly string[];
}

/** The policy cannot run in a window of the session (its configuration is refused there). */
export interface Refusal {
  readonly call: number;
  readonly message: string;
}

interface Summary {
  readonly text: string;
  readonly sections: SummarySections | undefined;
  readonly tokens: number;
  readonly artifacts: ReadonlySet<string>;
  /** Where the replacement stands: the seq of the last message it shadows (the compaction event itself is not recorded). */
  readonly seq: number;
}

export class PolicyReplay {
  readonly policy: TunePolicy;
  private readonly context: ReplayContext;
  private readonly plans = new Map<string, PeerPlan>();
  private readonly maxSummaryTokens: number;
  private readonly compactionRetries: number;
  private readonly maxOverflowRetries: number;
  refusal: Refusal | undefined;
  failedCompactions = 0;
  drops = 0;

  private cut: number;
  private summary: Summary | undefined;
  private readonly pruned = new Map<number, PrunedItem>();
  private prunedSavings = 0;
  /** Items before this index have been offered to the pruner once sent. */
  private pruneScan = 0;
  /** Items before this index were on an earlier request (sent). */
  private sentUpTo = 0;
  private previousTokens: number | undefined;
  private previousTime = 0;
  /** The token offset of the first change to the surface since the previous request. */
  private changedAt = Number.POSITIVE_INFINITY;
  private dropTurn = 0;
  private lastTurn = 0;
  /** Compactions so far (the recall strategy numbers its handles with it). */
  private compacted = 0;

  constructor(policy: TunePolicy, context: ReplayContext) {
    this.policy = policy;
    this.context = context;
    this.cut = context.trace.head;
    const sample = policy.config?.({ contextWindow: 1_000_000, reserve: 0 });
    const parsed = parseCompactionConfig(sample === undefined ? undefined : { ...sample, summarizer: { kind: 'extractive' } });
    this.maxSummaryTokens = parsed.maxSummaryTokens;
    this.compactionRetries = parsed.compactionRetries;
    this.maxOverflowRetries = parsed.maxOverflowRetries;
  }

  /** The first verbatim item of the surface now (after the head and the summary). */
  get firstVerbatim(): number {
    return this.cut;
  }

  /** The tokens of the summary node now (0 before the first compaction). */
  get summaryTokens(): number {
    return this.summary?.tokens ?? 0;
  }

  /** The summary node's text now, if the policy has compacted. */
  get summaryText(): string | undefined {
    return this.summary?.text;
  }

  /** The summary's sections, when its summarizer gave them. */
  get summarySections(): SummarySections | undefined {
    return this.summary?.sections;
  }

  /** The surface at `call`, compacting first where the policy would; undefined once the policy is refused. */
  async call(call: TraceCall, usesIndex: number, cacheTtlMs: number): Promise<CallOutcome | undefined> {
    if (this.refusal !== undefined) return undefined;
    const plan = this.planFor(call);
    if (plan === undefined) return undefined;
    const k = call.index;
    let compactions = 0;
    let prunes = 0;
    let summarizerInput = 0;
    let summarizerOutput = 0;
    if (plan.kind === 'compaction') {
      const { threshold, retain } = plan.resolved;
      const budget = call.window - call.reserve;
      if (this.total(k) >= threshold) {
        if (this.policy.pruner !== null) prunes += this.prune(k, threshold, false);
        for (let attempt = 0; attempt <= this.compactionRetries && this.total(k) >= threshold; attempt++) {
          const done = this.policy.strategy === 'mask' ? this.mask(k, retain) : await this.compact(k, retain);
          if (done === undefined) break;
          compactions++;
          summarizerInput += done.input;
          summarizerOutput += done.output;
        }
      }
      if (this.total(k) > budget && this.maxOverflowRetries > 0) {
        // The provider refuses the request: prune everything, compact with no tail, retry once.
        if (this.policy.pruner !== null) prunes += this.prune(k, Number.POSITIVE_INFINITY, true);
        if (this.total(k) > budget) {
          const done = this.policy.strategy === 'mask' ? this.mask(k, 0) : await this.compact(k, 0);
          if (done !== undefined) {
            compactions++;
            summarizerInput += done.input;
            summarizerOutput += done.output;
          }
        }
      }
    } else if (plan.kind === 'drop-oldest') {
      this.dropOldest(call);
    }
    const tokens = this.total(k);
    const cachedTokens =
      this.previousTokens !== undefined && call.time - this.previousTime <= cacheTtlMs ? Math.min(this.changedAt, this.previousTokens) : 0;
    this.previousTokens = tokens;
    this.previousTime = call.time;
    this.changedAt = Number.POSITIVE_INFINITY;
    this.sentUpTo = k;
    const uses = this.context.uses[usesIndex] ?? [];
    const missed = uses.filter((artifact) => !this.onSurface(artifact, k));
    const recallable = this.policy.strategy === 'recall' ? missed.filter((artifact) => this.shadowedByHandle(artifact)) : [];
    return {
      tokens,
      cachedTokens,
      overWindow: tokens + call.reserve > call.window,
      compactions,
      prunes,
      summarizerInput,
      summarizerOutput,
      used: uses.length,
      missed,
      recallable,
    };
  }

  private planFor(call: TraceCall): PeerPlan | undefined {
    const key = `${call.window}/${call.reserve}`;
    const known = this.plans.get(key);
    if (known !== undefined) return known;
    const window: PolicyWindow = { contextWindow: call.window, reserve: call.reserve };
    try {
      const plan = this.policy.plan(window);
      this.plans.set(key, plan);
      return plan;
    } catch (error) {
      if (!ShadowlogError.isInstance(error) || error.code !== 'INVALID_CONFIG') throw error;
      this.refusal = { call: call.number, message: error.message };
      return undefined;
    }
  }

  private get headTokens(): number {
    return this.context.trace.head === 1 ? (this.context.trace.items[0]?.price ?? 0) : 0;
  }

  /** The request's tokens with items[0..k) recorded. */
  private total(k: number): number {
    const { prefix, fixedTokens } = this.context.trace;
    return (
      fixedTokens +
      this.headTokens +
      (this.summary?.tokens ?? 0) +
      (prefix[k] as number) -
      (prefix[this.cut] as number) -
      this.prunedSavings
    );
  }

  /** The token offset of item `index` on the current surface. */
  private offsetOf(index: number): number {
    const { prefix, fixedTokens } = this.context.trace;
    let savings = 0;
    for (const [pruned, item] of this.pruned) if (pruned < index) savings += item.saving;
    return fixedTokens + this.headTokens + (this.summary?.tokens ?? 0) + (prefix[index] as number) - (prefix[this.cut] as number) - savings;
  }

  private priceAt(index: number): number {
    return (this.context.trace.items[index]?.price ?? 0) - (this.pruned.get(index)?.saving ?? 0);
  }

  /**
   * Prunes the long results the model has been sent, then (largest first, while the surface is
   * still at or over `threshold`) those it has not; `all` prunes every long result. Returns how many.
   */
  private prune(k: number, threshold: number, all: boolean): number {
    const config = this.policy.pruner;
    if (config === null) return 0;
    let count = 0;
    let first = Number.POSITIVE_INFINITY;
    const take = (index: number, item: PrunedItem) => {
      this.pruned.set(index, item);
      this.prunedSavings += item.saving;
      first = Math.min(first, index);
      count++;
    };
    const sentEnd = Math.min(this.sentUpTo, k);
    for (let index = Math.max(this.pruneScan, this.cut); index < sentEnd; index++) {
      if (this.pruned.has(index)) continue;
      const item = this.context.prunedItem(config, index);
      if (item !== undefined) take(index, item);
    }
    this.pruneScan = Math.max(this.pruneScan, sentEnd);
    const unsent: Array<{ index: number; item: PrunedItem }> = [];
    for (let index = Math.max(sentEnd, this.cut); index < k; index++) {
      if (this.pruned.has(index)) continue;
      const item = this.context.prunedItem(config, index);
      if (item !== undefined) unsent.push({ index, item });
    }
    unsent.sort((a, b) => b.item.saving - a.item.saving || a.index - b.index);
    for (const { index, item } of unsent) {
      if (!all && this.total(k) < threshold) break;
      take(index, item);
    }
    if (count > 0) this.changedAt = Math.min(this.changedAt, this.offsetOf(first));
    return count;
  }

  /** One compaction keeping at most `retain` tokens verbatim; undefined when nothing is selectable or the summary fails. */
  private async compact(k: number, retain: number): Promise<{ input: number; output: number } | undefined> {
    const { trace } = this.context;
    let newCut = k;
    let tail = 0;
    while (newCut > this.cut && tail + this.priceAt(newCut - 1) <= retain) tail += this.priceAt(--newCut);
    while (newCut > this.cut && (trace.reach[newCut] as number) >= newCut) newCut--;
    if (newCut <= this.cut) return undefined;
    const messages: ModelMessage[] = [];
    let shadowed = 0;
    const earlier = this.summary;
    if (earlier !== undefined) {
      messages.push({ role: 'user', content: [{ type: 'text', text: earlier.text }] });
      shadowed += earlier.tokens;
    }
    for (let index = this.cut; index < newCut; index++) shadowed += this.priceAt(index);
    messages.push(...this.context.messages(this.cut, newCut, (index) => this.pruned.get(index)?.event));
    let text: string;
    let sections: SummarySections | undefined;
    try {
      const result = await this.context.summarizer.summarize({
        messages,
        maxTokens: this.maxSummaryTokens,
        signal: new AbortController().signal,
        ...(earlier === undefined ? {} : { earlierSummaries: [{ messageIndex: 0, sections: earlier.sections }] }),
      });
      if (result.text === '' || result.truncated) {
        this.failedCompactions++;
        return undefined;
      }
      text =
        this.policy.strategy === 'recall'
          ? recallHandleText({
              // The compaction's id is made when it is appended; a replay names its handles by their order.
              handle: recallHandleOf(`tune${String(this.compacted + 1).padStart(4, '0')}`),
              count: messages.length,
              startSeq: earlier?.seq ?? (trace.items[this.cut]?.seq as number),
              endSeq: trace.items[newCut - 1]?.seq as number,
              tokens: shadowed,
              outline: result.text,
            })
          : replacementText(result.text, messages.length);
      sections = result.sections;
    } catch (error) {
      if (!ShadowlogError.isInstance(error) || error.code !== 'SUMMARY_FAILED') throw error;
      this.failedCompactions++;
      return undefined;
    }
    const tokens = this.context.meter.priceOfText('user/message', text);
    if (tokens >= shadowed) {
      this.failedCompactions++;
      return undefined;
    }
    for (const [index, item] of this.pruned) {
      if (index >= newCut) continue;
      this.pruned.delete(index);
      this.prunedSavings -= item.saving;
    }
    this.cut = newCut;
    this.pruneScan = Math.max(this.pruneScan, newCut);
    this.summary = { text, sections, tokens, artifacts: artifactsOf(text), seq: trace.items[newCut - 1]?.seq as number };
    this.compacted++;
    this.changedAt = Math.min(this.changedAt, trace.fixedTokens + this.headTokens);
    return { input: shadowed, output: tokens };
  }

  /**
   * The mask strategy's compaction: every tool result the model has been sent, before the
   * retained tail, becomes a placeholder where that is cheaper (as the strategy does, a result
   * already pruned is masked at its pruned price). Undefined when nothing can be masked.
   */
  private mask(k: number, retain: number): { input: number; output: number } | undefined {
    let tailStart = k;
    let tail = 0;
    while (tailStart > this.cut && tail + this.priceAt(tailStart - 1) <= retain) tail += this.priceAt(--tailStart);
    const end = Math.min(tailStart, this.sentUpTo);
    let first = Number.POSITIVE_INFINITY;
    for (let index = this.cut; index < end; index++) {
      const item = this.context.maskedItem(index, this.priceAt(index));
      if (item === undefined) continue;
      const previous = this.pruned.get(index);
      if (previous?.masked === true || item.saving <= (previous?.saving ?? 0)) continue;
      this.pruned.set(index, item);
      this.prunedSavings += item.saving - (previous?.saving ?? 0);
      first = Math.min(first, index);
    }
    if (first === Number.POSITIVE_INFINITY) return undefined;
    this.changedAt = Math.min(this.changedAt, this.offsetOf(first));
    return { input: 0, output: 0 };
  }

  /** The newest whole turns that fit W − reserve (the current turn always); older ones are left out. */
  private dropOldest(call: TraceCall): void {
    const { prefix, turnStarts, head, fixedTokens } = this.context.trace;
    const k = call.index;
    const budget = call.window - call.reserve - fixedTokens - this.headTokens;
    const sum = (from: number) => (prefix[k] as number) - (prefix[from] as number);
    while (this.lastTurn + 1 < turnStarts.length && (turnStarts[this.lastTurn + 1] as number) < k) this.lastTurn++;
    let cut = head;
    if (sum(head) > budget && turnStarts.length > 0 && (turnStarts[0] as number) < k) {
      // The earliest turn start from which the rest fits; it moves forward, or back when the window grows.
      let turn = Math.min(this.dropTurn, this.lastTurn);
      while (turn > 0 && sum(turnStarts[turn - 1] as number) <= budget) turn--;
      while (turn < this.lastTurn && sum(turnStarts[turn] as number) > budget) turn++;
      this.dropTurn = turn;
      cut = Math.max(head, turnStarts[turn] as number);
    }
    if (cut !== this.cut) {
      if (cut > this.cut) this.drops++;
      this.cut = cut;
      this.changedAt = Math.min(this.changedAt, fixedTokens + this.headTokens);
    }
  }

  /** Whether a message a recall handle shadows (before the cut, after the head) names `artifact`: the recall tool reads it back whole. */
  private shadowedByHandle(artifact: string): boolean {
    if (this.summary === undefined) return false;
    const list = this.context.occurrences.get(artifact);
    if (list === undefined) return false;
    const head = this.context.trace.head;
    return list.some((index) => index >= head && index < this.cut);
  }

  /** Whether `artifact` is on the surface at item count `k`: in the summary, or in a verbatim item (in its pruned copy if pruned). */
  onSurface(artifact: string, k: number): boolean {
    if (this.summary?.artifacts.has(artifact)) return true;
    const list = this.context.occurrences.get(artifact);
    if (list === undefined) return false;
    let position = upperBound(list, k - 1);
    while (--position >= 0) {
      const index = list[position] as number;
      if (index < this.cut) return false;
      const pruned = this.pruned.get(index);
      if (pruned === undefined || pruned.artifacts.has(artifact)) return true;
    }
    return false;
  }
}

/** The number of values in ascending `list` that are ≤ `value`. */
function upperBound(list: readonly number[], value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((list[middle] as number) <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
