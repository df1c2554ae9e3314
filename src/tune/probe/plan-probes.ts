// Everything `tune --probe` decides before it sends anything: at each compaction point tune's
// replay found for each policy (the first recorded call after it compacted), the surface
// whatif's policySurface builds for that policy there, the probe questions of that point, and,
// under the call cap, which probes are asked (spread over the policies evenly), each as a
// request built for the model asked, with its probe session's id and the estimate of the spend.

import type { WhatIfLink } from '../../log/event.js';
import type { EventTypeRegistry } from '../../log/event-types.js';
import { callCost, type PriceTable, priceOf } from '../../meter/prices.js';
import { scriptAwareEstimator } from '../../meter/script-aware.js';
import type { ModelParams } from '../../providers/language-model.js';
import type { RendererResolver } from '../../spine/replay.js';
import type { LogStore } from '../../store/log-store.js';
import { type AuditedCall, readAudit } from '../../whatif/audited-session.js';
import { checkCallBudget, type WhatIfTarget } from '../../whatif/plan-whatif.js';
import { policySurface } from '../../whatif/policy-surface.js';
import { type BuiltRequest, buildWhatIfRequest, type SurfaceEntry } from '../../whatif/what-if-request.js';
import { whatIfSessionIds } from '../../whatif/whatif-ids.js';
import type { TuneSession } from '../run-tune.js';
import type { TunePolicy } from '../tune-policies.js';
import type { TuneReport } from '../tune-report.js';
import { originalsBefore, type ProbeQuestion, probeQuestions } from './probe-questions.js';
import type { ProbeEstimate } from './probe-report.js';
import { judgeRubric } from './probe-score.js';

/** Completion tokens a probe's answer may take, and a judge's verdict. */
export const PROBE_OUTPUT_TOKENS = 512;
export const JUDGE_OUTPUT_TOKENS = 256;

export interface ProbeOptions {
  readonly registry: EventTypeRegistry;
  /** Renders the recorded requests again, to read the audited calls as whatif reads them. */
  readonly resolveRenderer: RendererResolver;
  /** The model asked (and its window), for an audited call. */
  readonly target: (call: AuditedCall) => WhatIfTarget;
  /** The most probe and judge calls to send, in all: a whole number from 1. */
  readonly maxProbeCalls: number;
  readonly prices: PriceTable;
  /** Told of each compaction point as its surface is built. */
  readonly onPoint?: (done: number, total: number) => void;
}

export interface PlannedProbe {
  readonly sessionId: string;
  readonly policy: string;
  readonly call: AuditedCall;
  readonly target: WhatIfTarget;
  readonly question: ProbeQuestion;
  readonly request: BuiltRequest;
  readonly link: WhatIfLink;
  /** The probe session's id; the judge's is this with `.judge`. */
  readonly probeSession: string;
  readonly judged: boolean;
}

export interface ProbePlan {
  readonly store: LogStore;
  readonly probes: readonly PlannedProbe[];
  readonly generated: number;
  readonly skipped: number;
  readonly overWindow: number;
  readonly maxProbeCalls: number;
  readonly estimate: ProbeEstimate;
  readonly unprobed: ReadonlyArray<{ readonly policy: string; readonly points: number; readonly reason: string }>;
}

interface Candidate {
  readonly sessionId: string;
  readonly policy: string;
  readonly call: AuditedCall;
  readonly target: WhatIfTarget;
  readonly entries: readonly SurfaceEntry[];
  readonly question: ProbeQuestion;
}

/** The probes of `report`'s compaction points, chosen under the cap; `probeStore` is where their sessions will be written. */
export async function planProbes(
  report: TuneReport,
  inputs: readonly TuneSession[],
  policies: readonly TunePolicy[],
  probeStore: LogStore,
  options: ProbeOptions,
): Promise<ProbePlan> {
  checkCallBudget(options.maxProbeCalls, '--max-probe-calls');
  const params: ModelParams = { tools: [], stream: false, maxOutputTokens: PROBE_OUTPUT_TOKENS };
  const perPolicy = policies.map(() => [] as Candidate[][]);
  const unprobed = new Map<string, { points: number; reason: string }>();
  const total = report.sessions.reduce(
    (sum, session) => sum + session.policies.reduce((count, result) => count + result.compactionSeqs.length, 0),
    0,
  );
  let done = 0;
  for (const session of report.sessions) {
    const input = inputs.find((candidate) => candidate.sessionId === session.sessionId);
    if (input === undefined) continue;
    for (const [index, result] of session.policies.entries()) {
      const policy = policies[index] as TunePolicy;
      const window = { contextWindow: session.window, reserve: session.reserve };
      const plan = result.compactionSeqs.length === 0 ? undefined : policy.plan(window);
      if (plan !== undefined && plan.kind !== 'compaction') {
        const seen = unprobed.get(policy.name) ?? {
          points: 0,
          reason: `${policy.name} cuts by dropping whole turns, which no policy file expresses, and a probe sends the surface a policy file makes`,
        };
        unprobed.set(policy.name, { ...seen, points: seen.points + result.compactionSeqs.length });
        done += result.compactionSeqs.length;
        continue;
      }
      for (const seq of result.compactionSeqs) {
        const audit = await readAudit(input.store, session.sessionId, { requestSeq: seq }, options);
        const call = audit.calls[0] as AuditedCall;
        const target = options.target(call);
        const entries = await policySurface(audit, call, plan?.kind === 'compaction' ? plan.config : {}, {
          registry: options.registry,
          model: target.model,
          params,
          window: session.window,
          reserve: session.reserve,
          pruner: policy.pruner,
        });
        const questions = probeQuestions({ originals: originalsBefore(audit.events.values(), call.seq), answer: call.answer }, entries);
        (perPolicy[index] as Candidate[][]).push(
          questions.map((question) => ({ sessionId: session.sessionId, policy: policy.name, call, target, entries, question })),
        );
        options.onPoint?.(++done, total);
      }
    }
  }
  const generated = perPolicy.reduce((sum, points) => sum + points.reduce((count, point) => count + point.length, 0), 0);
  const chosen = choose(perPolicy.map(spreadOrder), options.maxProbeCalls);
  const probes: PlannedProbe[] = [];
  let overWindow = 0;
  const idsBySession = new Map<string, string[]>();
  for (const sessionId of new Set(chosen.map((candidate) => candidate.sessionId))) {
    const own = chosen.filter((candidate) => candidate.sessionId === sessionId);
    idsBySession.set(
      sessionId,
      (
        await whatIfSessionIds(
          probeStore,
          sessionId,
          own.map((candidate) => candidate.call),
          0,
          'probe',
        )
      ).map((list) => list[0] as string),
    );
  }
  const nextId = new Map<string, number>();
  for (const candidate of chosen) {
    const position = nextId.get(candidate.sessionId) ?? 0;
    nextId.set(candidate.sessionId, position + 1);
    const run = (idsBySession.get(candidate.sessionId) as string[])[position] as string;
    const { call, question } = candidate;
    const link: WhatIfLink = {
      sessionId: candidate.sessionId,
      requestSeq: call.seq,
      turn: call.turn,
      step: call.step,
      question: { probe: { policy: candidate.policy, kind: question.kind, question: question.question } },
      variant: 'counterfactual',
      sample: 1,
      run,
    };
    const entries: SurfaceEntry[] = [
      ...candidate.entries,
      { type: 'user/message', data: { content: [{ type: 'text', text: question.question }] }, standsFor: [] },
    ];
    const request = await buildWhatIfRequest(candidate.sessionId, entries, candidate.target.model, params, link, options.registry);
    if (request.inputTokens + request.reservedTokens > candidate.target.window) {
      overWindow++;
      continue;
    }
    probes.push({ ...candidate, request, link, probeSession: run, judged: 'text' in question.expected });
  }
  const calls = probes.reduce((sum, probe) => sum + (probe.judged ? 2 : 1), 0);
  return {
    store: probeStore,
    probes,
    generated,
    skipped: generated - probes.length,
    overWindow,
    maxProbeCalls: options.maxProbeCalls,
    estimate: estimateProbes(probes, options.prices, calls),
    unprobed: [...unprobed].map(([policy, { points, reason }]) => ({ policy, points, reason })),
  };
}

/** A policy's probes in the order they are taken: the first question of each point, its points spread (first, last, middle, …), then the second of each, and so on. */
function spreadOrder(points: readonly Candidate[][]): Candidate[] {
  const order = spreadIndexes(points.length);
  const ordered: Candidate[] = [];
  const deepest = Math.max(0, ...points.map((point) => point.length));
  for (let rank = 0; rank < deepest; rank++)
    for (const index of order) {
      const candidate = points[index]?.[rank];
      if (candidate !== undefined) ordered.push(candidate);
    }
  return ordered;
}

/** 0..n−1 in an order that spreads: the first, the last, then the middles of the gaps, wider gaps first. */
function spreadIndexes(count: number): number[] {
  if (count === 0) return [];
  const order = [0];
  if (count > 1) order.push(count - 1);
  const gaps: Array<[number, number]> = [[0, count - 1]];
  while (gaps.length > 0) {
    gaps.sort((a, b) => b[1] - b[0] - (a[1] - a[0]));
    const [low, high] = gaps.shift() as [number, number];
    if (high - low < 2) continue;
    const middle = Math.floor((low + high) / 2);
    order.push(middle);
    gaps.push([low, middle], [middle, high]);
  }
  return order;
}

/** Round robin over the policies, one probe each in turn, while the calls fit the cap (a judged probe costs two). */
function choose(queues: readonly Candidate[][], cap: number): Candidate[] {
  const chosen: Candidate[] = [];
  let left = cap;
  let progressed = true;
  while (left > 0 && progressed) {
    progressed = false;
    for (const queue of queues) {
      if (left === 0) break;
      let position = 0;
      // A judged probe that does not fit the calls left gives way to the policy's next that does.
      while (position < queue.length && cost(queue[position] as Candidate) > left) position++;
      const candidate = queue[position];
      if (candidate === undefined) continue;
      queue.splice(position, 1);
      chosen.push(candidate);
      left -= cost(candidate);
      progressed = true;
    }
  }
  return chosen;
}

function cost(candidate: Candidate): number {
  return 'text' in candidate.question.expected ? 2 : 1;
}

/** The probe and judge calls, their input by the script-aware estimate, their output at most what each reserves, and the cost. */
function estimateProbes(probes: readonly PlannedProbe[], prices: PriceTable, calls: number): ProbeEstimate {
  let inputTokens = 0;
  let outputTokens = 0;
  let cost = 0;
  let priced = 0;
  let judgeCalls = 0;
  for (const probe of probes) {
    let input = probe.request.inputTokens;
    let output = probe.request.reservedTokens;
    if (probe.judged) {
      judgeCalls++;
      const expected = 'text' in probe.question.expected ? probe.question.expected.text : '';
      // The given answer is at most the probe's reserve.
      input += Math.ceil(scriptAwareEstimator.countText(judgeRubric(probe.question.question, expected, ''))) + probe.request.reservedTokens;
      output += JUDGE_OUTPUT_TOKENS;
    }
    inputTokens += input;
    outputTokens += output;
    const price = priceOf(prices, probe.target.model.modelId);
    if (price !== undefined) {
      priced++;
      cost += callCost(price, input, 0, output);
    }
  }
  return {
    probeCalls: calls - judgeCalls,
    judgeCalls,
    inputTokens,
    outputTokens,
    costUsd: priced === 0 ? null : cost,
    priceDate: prices.date,
  };
}
