// Asks the planned probes: each probe call and each judge call sent and recorded in a probe
// session of its own (a what-if session linked to the audited call), the answers scored, and the
// tune report given each policy's probe score and the run's every probe.

import { canonicalJson } from '../../log/canonical-json.js';
import type { WhatIfLink } from '../../log/event.js';
import type { EventTypeRegistry } from '../../log/event-types.js';
import type { ModelParams } from '../../providers/language-model.js';
import type { Answer } from '../../whatif/answers.js';
import { buildWhatIfRequest } from '../../whatif/what-if-request.js';
import { sendWhatIf } from '../../whatif/whatif-call.js';
import type { TuneReport } from '../tune-report.js';
import { JUDGE_OUTPUT_TOKENS, type PlannedProbe, type ProbePlan } from './plan-probes.js';
import { type ProbeResult, type ProbeRun, policyProbeScore } from './probe-report.js';
import { JUDGE_RUBRIC_VERSION, judgeRubric, matchScore, parseVerdict } from './probe-score.js';

export interface RunProbeOptions {
  readonly registry: EventTypeRegistry;
  readonly signal?: AbortSignal;
  /** Told of each probe once it is scored. */
  readonly onProbe?: (result: ProbeResult, done: number, total: number) => void;
}

/** The report with the probe run, and each policy's probe score (null for a policy none of whose probes was asked). */
export async function runProbes(report: TuneReport, plan: ProbePlan, options: RunProbeOptions): Promise<TuneReport> {
  const results: ProbeResult[] = [];
  for (const probe of plan.probes) {
    // Stopped (Ctrl-C): what was asked is reported.
    if (options.signal?.aborted === true) break;
    const result = await askProbe(plan, probe, options);
    results.push(result);
    options.onProbe?.(result, results.length, plan.probes.length);
  }
  const first = plan.probes[0];
  const run: ProbeRun = {
    provider: first?.target.model.provider ?? '',
    model: first?.target.model.modelId ?? '',
    maxProbeCalls: plan.maxProbeCalls,
    generated: plan.generated,
    skipped: plan.generated - results.length,
    overWindow: plan.overWindow,
    points: plan.points,
    pointsNotReached: plan.pointsNotReached,
    estimate: plan.estimate,
    calls: results.reduce((sum, result) => sum + result.calls, 0),
    unprobed: plan.unprobed,
    results,
  };
  return {
    ...report,
    policies: report.policies.map((policy) => ({
      ...policy,
      probe: results.some((result) => result.policy === policy.policy) ? policyProbeScore(policy.policy, results) : null,
    })),
    probe: run,
  };
}

async function askProbe(plan: ProbePlan, probe: PlannedProbe, options: RunProbeOptions): Promise<ProbeResult> {
  const send = {
    registry: options.registry,
    window: probe.target.window,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const sent = await sendWhatIf(plan.store, probe.probeSession, probe.link, probe.target.model, probe.request, send);
  const answer = answerText(sent.answer);
  const base = {
    sessionId: probe.sessionId,
    policy: probe.policy,
    requestSeq: probe.call.seq,
    turn: probe.call.turn,
    step: probe.call.step,
    kind: probe.question.kind,
    question: probe.question.question,
    expected: probe.question.expected,
    probeSession: sent.sessionId,
    probeDigest: sent.digest,
    answer,
  };
  const error = sent.answer.error === null ? null : `${sent.answer.error.code}: ${sent.answer.error.message}`;
  if (error !== null)
    return {
      ...base,
      scoring: 'text' in probe.question.expected ? 'judge' : 'match',
      error,
      judgeSession: null,
      judgeDigest: null,
      verdict: null,
      unscored: `the probe call failed (${error})`,
      score: null,
      found: [],
      missing: [],
      calls: 1,
    };
  const expected = probe.question.expected;
  if (!('text' in expected)) {
    const { score, found, missing } = matchScore(expected.items, answer);
    return {
      ...base,
      scoring: 'match',
      error: null,
      judgeSession: null,
      judgeDigest: null,
      verdict: null,
      unscored: null,
      score,
      found,
      missing,
      calls: 1,
    };
  }
  const judgeSession = `${probe.probeSession}.judge`;
  const link: WhatIfLink = {
    ...probe.link,
    question: {
      judge: { probe: probe.probeSession, policy: probe.policy, kind: probe.question.kind, rubricVersion: JUDGE_RUBRIC_VERSION },
    },
    run: judgeSession,
  };
  const params: ModelParams = { tools: [], stream: false, maxOutputTokens: JUDGE_OUTPUT_TOKENS };
  const rubric = judgeRubric(probe.question.question, expected.text, answer);
  const request = await buildWhatIfRequest(
    probe.sessionId,
    [{ type: 'user/message', data: { content: [{ type: 'text', text: rubric }] }, standsFor: [] }],
    probe.target.model,
    params,
    link,
    options.registry,
  );
  const judged = await sendWhatIf(plan.store, judgeSession, link, probe.target.model, request, send);
  const judgeError = judged.answer.error === null ? null : `${judged.answer.error.code}: ${judged.answer.error.message}`;
  const verdict = judgeError === null ? parseVerdict(judged.answer.text) : undefined;
  return {
    ...base,
    scoring: 'judge',
    error: null,
    judgeSession: judged.sessionId,
    judgeDigest: judged.digest,
    verdict: verdict?.parsed === true ? { score: verdict.score, reason: verdict.reason } : null,
    unscored: judgeError !== null ? `the judge call failed (${judgeError})` : verdict?.parsed === false ? verdict.problem : null,
    score: verdict?.parsed === true ? verdict.score : null,
    found: [],
    missing: [],
    calls: 2,
  };
}

/** What an answer said: its text, and the tool calls it made anyway (the probe defines no tools), as name and arguments. */
function answerText(answer: Answer): string {
  const calls = answer.toolCalls.map((call) => `${call.name} ${canonicalJson(call.arguments)}`);
  return [answer.text, ...calls].filter((part) => part !== '').join('\n');
}
