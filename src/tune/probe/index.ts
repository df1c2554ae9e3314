// tune --probe: at each compaction point of each policy, probe questions asked of a model with
// that policy's surface, scored model-free or by the model as a judge, each call recorded in a
// probe session (see docs/tune.md, "Probes").

export {
  JUDGE_OUTPUT_TOKENS,
  type PlannedProbe,
  PROBE_OUTPUT_TOKENS,
  type ProbeOptions,
  type ProbePlan,
  planProbes,
} from './plan-probes.js';
export { PROBE_KINDS, type ProbeExpectation, type ProbeKind, type ProbeQuestion, probeQuestions } from './probe-questions.js';
export { type PolicyProbeScore, type ProbeEstimate, type ProbeResult, type ProbeRun, policyProbeScore } from './probe-report.js';
export { JUDGE_RUBRIC_VERSION, judgeRubric, matchScore, parseVerdict, type Verdict } from './probe-score.js';
export { type RunProbeOptions, runProbes } from './run-probes.js';
