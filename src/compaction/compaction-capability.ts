// Compaction as a capability (SPEC §6–§7): mounted on the spine, it measures the surface
// before each step and, over the threshold, prunes and then compacts; it answers a
// context-window error by compacting everything it can and asking for one retry; and it
// compacts on demand between turns (compactNow).

import { canonicalJson } from '../log/canonical-json.js';
import { ConfigError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import { createEstimator } from '../meter/index.js';
import { type Measurement, type MeterAnchor, SurfaceMeter } from '../meter/measure.js';
import type { TokenEstimator } from '../meter/token-estimator.js';
import type { LanguageModel } from '../providers/language-model.js';
import type { AgentSession } from '../spine/agent-session.js';
import type {
  Capability,
  MountContext,
  ObservedCapabilityState,
  RequestErrorContext,
  SessionContext,
  StepContext,
} from '../spine/capability.js';
import type { SessionLog } from '../store/session-log.js';
import { CompactionNotMountedError } from './compaction-not-mounted-error.js';
import type { CompactionOptions, CompactionPreview, ManualOutcome, NothingToCompact } from './compaction-options.js';
import {
  COMPACTION_EVENT_TYPES,
  COMPACTION_OVER_THRESHOLD,
  COMPACTION_POLICY,
  type CompactionPolicyData,
  type CompactionTrigger,
} from './event-types.js';
import { meterAnchorOf } from './meter-anchor.js';
import { configToJson } from './policy/config-json.js';
import { type CompactionPolicyConfig, parseCompactionConfig, type ResolvedPolicy, resolvePolicy } from './policy.js';
import type { Selection } from './select-range.js';
import { sentNodes } from './sent-nodes.js';
import { CompactionSessionState } from './session-state.js';
import { sessionSummarizer } from './session-summarizer.js';
import { createMaskStrategy } from './strategies/mask-strategy.js';
import { createRecallStrategy } from './strategies/recall-strategy.js';
import { resolveStrategy, type StrategyFactories } from './strategies/resolve-strategy.js';
import type { CompactionStrategy } from './strategies/strategy.js';
import type { Summarizer } from './summarizer.js';
import { runCompactionTransaction } from './transaction.js';

export type { CompactionOptions, CompactionPreview, ManualOutcome, NothingToCompact };
export { CompactionNotMountedError };

interface Chosen {
  readonly status: 'ready';
  readonly meter: SurfaceMeter;
  readonly state: CompactionSessionState;
  readonly measurement: Measurement;
  readonly selection: Selection;
  readonly nodes: readonly SurfaceNode[];
}

interface Mounted {
  readonly model: LanguageModel;
  readonly policy: ResolvedPolicy;
  /** The strategy this model's compactions run with. */
  readonly strategy: CompactionStrategy;
  /** What every request carries besides the surface, in wire form. */
  readonly fixedRequestText: () => string;
}

export class CompactionCapability implements Capability {
  readonly name = 'compaction';
  readonly eventTypes = COMPACTION_EVENT_TYPES;
  readonly config: CompactionPolicyConfig;
  private mounted: Mounted | undefined;
  private readonly sessions = new Map<string, CompactionSessionState>();
  private estimator: Promise<TokenEstimator> | undefined;
  private readonly meters = new Map<string, SurfaceMeter>();
  private readonly fixedPrices = new Map<string, number>();
  /** Surface appends at the last automatic compaction, per session (the loop breaker). */
  private readonly lastAutomatic = new Map<string, number>();

  constructor(private readonly options: CompactionOptions = {}) {
    this.config = parseCompactionConfig(options.config === undefined ? {} : options.config);
  }

  mount(context: MountContext): void {
    const policy = resolvePolicy(this.config, {
      provider: context.model.provider,
      model: context.model.modelId,
      contextWindow: context.model.limits.contextWindow,
      reserve: context.maxOutputTokens,
    });
    const choice = this.config.summarizer;
    if (this.options.summarizer === undefined && choice.kind === 'model') {
      const named = this.options.summarizerModel;
      if (named === undefined || named.provider !== choice.provider || named.modelId !== choice.model) {
        throw new ConfigError(
          'summarizer',
          `the configuration names ${choice.provider}/${choice.model} as the summarizer; pass that model as createCompaction({summarizerModel}) (found ${named === undefined ? 'none' : `${named.provider}/${named.modelId}`})`,
        );
      }
    }
    const strategy =
      this.options.strategy ??
      resolveStrategy(policy.strategy, {
        model: context.model,
        ...(this.options.natives === undefined ? {} : { natives: this.options.natives }),
        factories: this.strategyFactories(),
      });
    this.mounted = { model: context.model, policy, strategy, fixedRequestText: context.fixedRequestText };
  }

  /** The strategy compactions run with (after mount): `auto` resolved for the session's model. */
  get strategy(): CompactionStrategy {
    return this.requireMounted().strategy;
  }

  /** The resolved threshold and retained tail (after mount). */
  get policy(): ResolvedPolicy {
    return this.requireMounted().policy;
  }

  release(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.meters.delete(sessionId);
    this.lastAutomatic.delete(sessionId);
  }

  observe(sessionId: string, event: LogEvent): void {
    this.state(sessionId).observe(event);
  }

  /** The state observe keeps per session, saved in fold checkpoints so that a reopen reads only the events after one. */
  readonly observedState: ObservedCapabilityState = {
    version: '1',
    save: (sessionId) => this.state(sessionId).save(),
    restore: (sessionId, saved) => {
      this.sessions.set(sessionId, CompactionSessionState.restore(saved));
    },
  };

  async beforeStep(context: StepContext): Promise<void> {
    if (!this.config.auto) return;
    const { policy } = this.requireMounted();
    const state = this.state(context.sessionId);
    const meter = await this.surfaceMeter(context.sessionId);
    await this.recordPolicy(context.log, state, meter);
    const before = this.measure(context.log, meter, state);
    if (before < policy.threshold) return;
    // Loop breaker: no second automatic compaction until the surface has grown.
    if (this.lastAutomatic.get(context.sessionId) === state.surfaceAppends) return;
    this.lastAutomatic.set(context.sessionId, state.surfaceAppends);

    if (this.options.pruner !== undefined) {
      const fit = { threshold: policy.threshold, measure: () => this.measure(context.log, meter, state) };
      const { pruned } = await this.options.pruner.prune(context.log, meter, fit);
      const after = this.measure(context.log, meter, state);
      await this.notifyPruned(context.sessionId, 'pressure', pruned, before, after);
      if (after < policy.threshold) return;
    }
    for (let attempt = 0; attempt <= this.config.compactionRetries; attempt++) {
      const outcome = await this.compact(context, 'pressure', policy.retain, context.turn);
      if (outcome.status !== 'compacted') break;
      if (this.measure(context.log, meter, state) < policy.threshold) return;
    }
    const tokens = this.measure(context.log, meter, state);
    if (tokens >= policy.threshold) {
      await context.log.append([
        {
          type: COMPACTION_OVER_THRESHOLD,
          data: { turn: context.turn, step: context.step, tokens, threshold: policy.threshold },
          ignorable: true,
        },
      ]);
    }
  }

  async onRequestError(context: RequestErrorContext): Promise<boolean> {
    if (!context.error.contextOverflow || context.retries >= this.config.maxOverflowRetries) return false;
    const meter = await this.surfaceMeter(context.sessionId);
    const before = context.log.nextSeq;
    if (this.options.pruner !== undefined) {
      const state = this.state(context.sessionId);
      const tokensBefore = this.measure(context.log, meter, state);
      const { pruned } = await this.options.pruner.prune(context.log, meter);
      await this.notifyPruned(context.sessionId, 'context-overflow', pruned, tokensBefore, this.measure(context.log, meter, state));
    }
    await this.compact(context, 'context-overflow', 0, context.turn);
    // Retry only if the surface actually changed; otherwise the provider's error stands.
    return context.log.nextSeq !== before && this.surfaceChanged(context.log, before);
  }

  /** A manual compaction of `session`, between turns and even below the threshold. */
  compactNow(session: AgentSession, signal?: AbortSignal): Promise<ManualOutcome> {
    return session.betweenTurnsWith((context) => this.compact(context, 'manual', this.requireMounted().policy.retain, null), signal);
  }

  private async compact(context: SessionContext, trigger: CompactionTrigger, retain: number, turn: number | null): Promise<ManualOutcome> {
    const chosen = await this.choose(context.sessionId, context.log, retain);
    if (chosen.status === 'nothing') return chosen;
    const { meter, state, measurement, selection, nodes } = chosen;
    // Recorded only now: a compaction with nothing to do writes nothing.
    const policySeq = await this.recordPolicy(context.log, state, meter);
    const outcome = await runCompactionTransaction({
      log: context.log,
      state,
      selection,
      trigger,
      turn,
      policySeq,
      summarizer: this.summarizerFor(meter),
      maxSummaryTokens: this.config.maxSummaryTokens,
      tokensBefore: measurement.total,
      measureAfter: (replacementTokens) => this.measureAfter(nodes, selection, replacementTokens, meter, state),
      priceOfSummary: (text) => meter.priceOfText('user/message', text),
      priceOfData: (type, data) => meter.priceOfData(type, data),
      strategy: this.requireMounted().strategy,
      signal: context.signal,
    });
    await this.options.onNotice?.({ kind: 'compaction', sessionId: context.sessionId, outcome });
    return outcome;
  }

  private async notifyPruned(
    sessionId: string,
    trigger: 'pressure' | 'context-overflow',
    prunedSeqs: readonly number[],
    tokensBefore: number,
    tokensAfter: number,
  ): Promise<void> {
    if (prunedSeqs.length > 0) await this.options.onNotice?.({ kind: 'pruned', sessionId, trigger, prunedSeqs, tokensBefore, tokensAfter });
  }

  /**
   * Whether a manual compaction of the session `log` holds would shadow anything now, reading
   * the log and writing nothing: `nothing` (with why), or `ready` with what it would shadow and
   * the surface's price. `log` must be one this capability has observed (opened with its
   * harness's registry, observe feeding this capability); a writer checks first and takes the
   * session over only when there is something to do.
   */
  async previewNow(log: SessionLog): Promise<CompactionPreview> {
    const chosen = await this.choose(log.sessionId, log, this.requireMounted().policy.retain);
    if (chosen.status === 'nothing') return chosen;
    return { status: 'ready', shadowedSeqs: chosen.selection.seqs, tokensBefore: chosen.measurement.total };
  }

  /** What a compaction would shadow now, by the session's meter, or why nothing. */
  private async choose(sessionId: string, log: SessionLog, retain: number): Promise<Chosen | NothingToCompact> {
    const meter = await this.surfaceMeter(sessionId);
    const state = this.state(sessionId);
    const { strategy, policy } = this.requireMounted();
    const nodes = log.fold.toArray();
    const measurement = meter.measure(nodes, this.anchorOf(state), this.fixedTokens(meter), policy.calibration.factor);
    const sent = nodes[0] === undefined ? () => false : await sentNodes(log, nodes[0].seq);
    const selection = strategy.select({
      nodes,
      prices: measurement.nodes.map((node) => node.tokens),
      retain,
      sent,
      priceOfData: (type, data) => meter.priceOfData(type, data),
    });
    if (selection === undefined)
      return {
        status: 'nothing',
        message:
          strategy.name === 'mask'
            ? 'nothing to compact: no tool result the model has been sent, outside the kept tail, is larger than its placeholder'
            : 'nothing to compact: no range outside the retained tail can be shadowed',
      };
    return { status: 'ready', meter, state, measurement, selection, nodes };
  }

  /**
   * The surface's price once `selection` gives way to nodes priced `replacementTokens` in all, as
   * the meter will measure it then: the nodes left, anchored as now (the shadowed nodes at the
   * prices their metering events will record), and the replacement scaled by the same ratio as
   * every estimate. Subtracting the range's estimates from the calibrated total instead mixes two
   * units, and went below zero where the provider counts far fewer tokens than the estimates.
   */
  private measureAfter(
    nodes: readonly SurfaceNode[],
    selection: Selection,
    replacementTokens: number,
    meter: SurfaceMeter,
    state: CompactionSessionState,
  ): number {
    const replaced = new Map<number, number>();
    selection.seqs.forEach((seq, index) => {
      replaced.set(seq, selection.prices[index] ?? 0);
    });
    const anchor = this.anchorOf(state);
    const after = meter.measure(
      nodes.filter((node) => !replaced.has(node.seq)),
      anchor === undefined ? undefined : { ...anchor, shadowedPrice: (seq) => replaced.get(seq) ?? anchor.shadowedPrice(seq) },
      this.fixedTokens(meter),
      this.requireMounted().policy.calibration.factor,
    );
    return Math.round(after.total + after.ratio * replacementTokens);
  }

  /** The strategies that need no provider, made with this configuration's options. */
  private strategyFactories(): StrategyFactories {
    return { mask: () => createMaskStrategy({ keep: this.config.mask }), recall: () => createRecallStrategy() };
  }

  private summarizerFor(meter: SurfaceMeter): Summarizer {
    const { model, policy } = this.requireMounted();
    return sessionSummarizer(this.options, this.config.summarizer, model, meter, policy.calibration.factor);
  }

  /**
   * Appends compaction/policy when this lifecycle has none yet or the resolved numbers changed,
   * and returns the seq of the policy in force.
   */
  private async recordPolicy(log: SessionLog, state: CompactionSessionState, meter: SurfaceMeter): Promise<number> {
    const { model, policy, strategy } = this.requireMounted();
    const data: CompactionPolicyData = {
      config: configToJson(this.config),
      provider: model.provider,
      model: model.modelId,
      contextWindow: policy.contextWindow,
      reserve: policy.reserve,
      fixedTokens: this.fixedTokens(meter),
      messageBudget: policy.messageBudget,
      pressureBudget: policy.pressureBudget,
      threshold: policy.threshold,
      retain: policy.retain,
      decidedBy: policy.decidedBy,
      estimator: policy.estimator,
      strategy: strategy.name,
      calibration: policy.calibration,
    };
    if (state.policy !== undefined && canonicalJson(state.policy.data) === canonicalJson(data)) return state.policy.seq;
    const [event] = await log.append([{ type: COMPACTION_POLICY, data, ignorable: true }]);
    return (event as LogEvent).seq;
  }

  /** The price of the fixed part of each request by this meter's estimator (computed once per estimator). */
  private fixedTokens(meter: SurfaceMeter): number {
    const cached = this.fixedPrices.get(meter.estimator.name);
    if (cached !== undefined) return cached;
    const tokens = meter.estimator.countText(this.requireMounted().fixedRequestText());
    this.fixedPrices.set(meter.estimator.name, tokens);
    return tokens;
  }

  private measure(log: SessionLog, meter: SurfaceMeter, state: CompactionSessionState): number {
    const nodes = log.fold.toArray();
    const total = meter.measure(
      nodes,
      this.anchorOf(state),
      this.fixedTokens(meter),
      this.requireMounted().policy.calibration.factor,
    ).total;
    meter.trimTo(nodes);
    return total;
  }

  private anchorOf(state: CompactionSessionState): MeterAnchor | undefined {
    return meterAnchorOf(state, this.requireMounted().model);
  }

  private surfaceChanged(log: SessionLog, since: number): boolean {
    for (const node of log.fold.nodes()) if (node.seq >= since) return true;
    return false;
  }

  /** One meter per session: node prices are cached by seq, and seqs are per session. */
  private async surfaceMeter(sessionId: string): Promise<SurfaceMeter> {
    const estimator = this.estimator ?? createEstimator(this.requireMounted().policy.estimator);
    this.estimator = estimator;
    let meter = this.meters.get(sessionId);
    if (meter === undefined) {
      meter = new SurfaceMeter(await estimator);
      this.meters.set(sessionId, meter);
    }
    return meter;
  }

  private state(sessionId: string): CompactionSessionState {
    let state = this.sessions.get(sessionId);
    if (state === undefined) {
      state = new CompactionSessionState();
      this.sessions.set(sessionId, state);
    }
    return state;
  }

  private requireMounted(): Mounted {
    if (this.mounted === undefined) throw new CompactionNotMountedError();
    return this.mounted;
  }
}

/**
 * Compaction as a capability to mount on a harness (SPEC §6–§7): over the policy's threshold it
 * prunes long tool results and shadows the oldest range behind a summary; it answers a
 * context-window error by compacting and retrying once; `compactNow` compacts on demand.
 */
export function createCompaction(options: CompactionOptions = {}): CompactionCapability {
  return new CompactionCapability(options);
}
