// Everything `tune --probe` decides before it sends anything: at each compaction point tune's
// replay found for each policy (the first recorded call after it compacted), the surface
// whatif's policySurface builds for that policy there, the probe questions of that point, and,
// under the call cap, which probes are asked (spread over the policies evenly), each as a
// request built for the model asked, with its probe session's id and the estimate of the spend.

import type { CompactionConfig } from '../../compaction/policy.js';
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
  /** Compaction points of the probed policies, and those whose surface was never built: the cap was spent first. */
  readonly points: number;
  readonly pointsNotReached: number;
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

/** A compaction point of one policy in one session: where its probes are asked. */
interface Point {
  readonly input: TuneSession;
  readonly session: TuneReport['sessions'][number];
  readonly policy: TunePolicy;
  readonly config: CompactionConfig;
  readonly seq: number;
}

/**
 * The probes of `report`'s compaction points, chosen under the cap; `probeStore` is where their
 * sessions will be written. A point's surface is built only when its policy's turn reaches it,
 * so that a cap far below the points does not replay the session at every one of them.
 */
export async function planProbes(
  report: TuneReport,
  inputs: readonly TuneSession[],
  policies: readonly TunePolicy[],
  probeStore: LogStore,
  options: ProbeOptions,
): Promise<ProbePlan> {
  checkCallBudget(options.maxProbeCalls, '--max-probe-calls');
  const params: ModelParams = { tools: [], stream: false, maxOutputTokens: PROBE_OUTPUT_TOKENS };
  const { points, unprobed } = pointsOf(report, inputs, policies);
  const total = points.reduce((sum, list) => sum + list.length, 0);
  const queues = points.map((list) => ({
    pending: spreadIndexes(list.length).map((index) => list[index] as Point),
    later: [] as Candidate[],
  }));
  let built = 0;
  let generated = 0;
  let overWindow = 0;
  let left = options.maxProbeCalls;
  const taken: Array<{ candidate: Candidate; request: BuiltRequest }> = [];
  const build = async (point: Point): Promise<Candidate[]> => {
    const audit = await readAudit(point.input.store, point.session.sessionId, { requestSeq: point.seq }, options);
    const call = audit.calls[0] as AuditedCall;
    const target = options.target(call);
    const entries = await policySurface(audit, call, point.config, {
      registry: options.registry,
      model: target.model,
      params,
      window: point.session.window,
      reserve: point.session.reserve,
      pruner: point.policy.pruner,
    });
    const questions = probeQuestions({ originals: originalsBefore(audit.events.values(), call.seq), answer: call.answer }, entries);
    options.onPoint?.(++built, total);
    generated += questions.length;
    return questions.map((question) => ({
      sessionId: point.session.sessionId,
      policy: point.policy.name,
      call,
      target,
      entries,
      question,
    }));
  };
  // Takes the first of `candidates` that fits the calls left and the window (those that do not fit the window are dropped, counted). Whether one was taken.
  const take = async (candidates: Candidate[]): Promise<boolean> => {
    for (let index = 0; index < candidates.length; index++) {
      const candidate = candidates[index] as Candidate;
      if (cost(candidate) > left) continue;
      candidates.splice(index--, 1);
      const request = await probeRequest(candidate, params, options.registry);
      if (request.inputTokens + request.reservedTokens > candidate.target.window) {
        overWindow++;
        continue;
      }
      taken.push({ candidate, request });
      left -= cost(candidate);
      return true;
    }
    return false;
  };
  // Round robin over the policies, one probe each in turn: first one from each of its points (spread), then the rest.
  let progressed = true;
  while (left > 0 && progressed) {
    progressed = false;
    for (const queue of queues) {
      if (left === 0) break;
      let done = false;
      while (!done && queue.pending.length > 0) {
        const candidates = await build(queue.pending.shift() as Point);
        done = await take(candidates);
        queue.later.push(...candidates);
      }
      if (!done) done = await take(queue.later);
      progressed ||= done;
    }
  }
  const probes = await withSessions(taken, probeStore);
  const calls = probes.reduce((sum, probe) => sum + (probe.judged ? 2 : 1), 0);
  return {
    store: probeStore,
    probes,
    generated,
    skipped: generated - probes.length,
    overWindow,
    points: total,
    pointsNotReached: total - built,
    maxProbeCalls: options.maxProbeCalls,
    estimate: estimateProbes(probes, options.prices, calls),
    unprobed,
  };
}

/** Each policy's compaction points over the sessions, and the policies whose cuts cannot be probed (drop-oldest). */
function pointsOf(
  report: TuneReport,
  inputs: readonly TuneSession[],
  policies: readonly TunePolicy[],
): { points: Point[][]; unprobed: Array<{ policy: string; points: number; reason: string }> } {
  const points = policies.map(() => [] as Point[]);
  const unprobed = new Map<string, number>();
  for (const session of report.sessions) {
    const input = inputs.find((candidate) => candidate.sessionId === session.sessionId);
    if (input === undefined) continue;
    for (const [index, result] of session.policies.entries()) {
      const policy = policies[index] as TunePolicy;
      if (result.compactionSeqs.length === 0) continue;
      const plan = policy.plan({ contextWindow: session.window, reserve: session.reserve });
      if (plan.kind !== 'compaction') {
        unprobed.set(policy.name, (unprobed.get(policy.name) ?? 0) + result.compactionSeqs.length);
        continue;
      }
      for (const seq of result.compactionSeqs) (points[index] as Point[]).push({ input, session, policy, config: plan.config, seq });
    }
  }
  return {
    points,
    unprobed: [...unprobed].map(([policy, count]) => ({
      policy,
      points: count,
      reason: `${policy} cuts by dropping whole turns, which no policy file expresses, and a probe sends the surface a policy file makes`,
    })),
  };
}

/** The probe's request: the policy's surface, then the question. Its link is set once the sessions are named; the bytes sent do not depend on it. */
function probeRequest(candidate: Candidate, params: ModelParams, registry: EventTypeRegistry): Promise<BuiltRequest> {
  const entries: SurfaceEntry[] = [
    ...candidate.entries,
    { type: 'user/message', data: { content: [{ type: 'text', text: candidate.question.question }] }, standsFor: [] },
  ];
  return buildWhatIfRequest(candidate.sessionId, entries, candidate.target.model, params, linkOf(candidate, 'planned'), registry);
}

function linkOf(candidate: Candidate, run: string): WhatIfLink {
  const { call, question } = candidate;
  return {
    sessionId: candidate.sessionId,
    requestSeq: call.seq,
    turn: call.turn,
    step: call.step,
    question: { probe: { policy: candidate.policy, kind: question.kind, question: question.question } },
    variant: 'counterfactual',
    sample: 1,
    run,
  };
}

/** The taken probes with their sessions' ids (`<audited>.probe-<seq>-<n>`, none taken in the store). */
async function withSessions(
  taken: ReadonlyArray<{ candidate: Candidate; request: BuiltRequest }>,
  store: LogStore,
): Promise<PlannedProbe[]> {
  const ids = new Map<string, string[]>();
  for (const sessionId of new Set(taken.map(({ candidate }) => candidate.sessionId))) {
    const own = taken.filter(({ candidate }) => candidate.sessionId === sessionId).map(({ candidate }) => candidate.call);
    ids.set(
      sessionId,
      (await whatIfSessionIds(store, sessionId, own, 0, 'probe')).map((list) => list[0] as string),
    );
  }
  const used = new Map<string, number>();
  return taken.map(({ candidate, request }) => {
    const position = used.get(candidate.sessionId) ?? 0;
    used.set(candidate.sessionId, position + 1);
    const run = (ids.get(candidate.sessionId) as string[])[position] as string;
    return { ...candidate, request, link: linkOf(candidate, run), probeSession: run, judged: 'text' in candidate.question.expected };
  });
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
