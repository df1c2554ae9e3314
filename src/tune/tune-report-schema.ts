// The one schema of a tune report: what `tune --json` prints, what `tune --out` writes as
// report.json, and what `view --tune report.json` reads. The report's type (tune-report.ts) must
// satisfy it, which the type check below holds. Fields may be added to the report (the parsed
// report keeps the schema's fields, which are the ones the page shows), and a field of the wrong
// type is refused with the path that is wrong.

import { z } from 'zod';
import { ShadowlogError } from '../log/errors.js';
import type { TuneReport } from './tune-report.js';

const count = z.number().finite().nonnegative();
const share = z.number().finite().min(0).max(1);
/** An object of any fields (a policy's configuration; its own schema checks it where it is used). */
const anObject = z.custom<object>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), 'expected an object');
const list = <Item extends z.ZodType>(item: Item) => z.array(item).readonly();

const retention = z.object({
  used: count,
  kept: count,
  share,
  reachable: count,
  recallable: share,
  worstMisses: list(z.object({ artifact: z.string(), kind: z.string(), misses: count, firstCall: count })),
});

const afterCompaction = z.object({
  lookaheadCalls: count,
  points: count,
  aheadUsed: count,
  aheadKept: count,
  aheadShare: share.nullable(),
  openRequests: count,
  openKept: count,
  openShare: share.nullable(),
  instructions: count,
  instructionsKept: count,
  instructionShare: share.nullable(),
});

const probeKind = z.object({ probes: count, score: share.nullable() });

/** A policy's probes (tune --probe); reports without probes have none. */
const policyProbe = z.object({
  score: share.nullable(),
  probes: count,
  scored: count,
  unscored: count,
  calls: count,
  kinds: z.object({ recall: probeKind, artifacts: probeKind, continuation: probeKind, decision: probeKind }),
});

const probeResult = z.object({
  sessionId: z.string(),
  policy: z.string(),
  requestSeq: count,
  turn: count,
  step: count,
  kind: z.enum(['recall', 'artifacts', 'continuation', 'decision']),
  question: z.string(),
  expected: z.union([z.object({ items: list(z.string()) }), z.object({ text: z.string() })]),
  scoring: z.enum(['match', 'judge']),
  probeSession: z.string(),
  probeDigest: z.string(),
  answer: z.string(),
  error: z.string().nullable(),
  judgeSession: z.string().nullable(),
  judgeDigest: z.string().nullable(),
  verdict: z.object({ score: share, reason: z.string() }).nullable(),
  unscored: z.string().nullable(),
  score: share.nullable(),
  found: list(z.string()),
  missing: list(z.string()),
  calls: count,
});

const probeRun = z.object({
  provider: z.string(),
  model: z.string(),
  maxProbeCalls: count,
  generated: count,
  skipped: count,
  overWindow: count,
  points: count,
  pointsNotReached: count,
  estimate: z.object({
    probeCalls: count,
    judgeCalls: count,
    inputTokens: count,
    outputTokens: count,
    costUsd: count.nullable(),
    priceDate: z.string(),
  }),
  calls: count,
  unprobed: list(z.object({ policy: z.string(), points: count, reason: z.string() })),
  results: list(probeResult),
});

const policySummary = z.object({
  policy: z.string(),
  description: z.string(),
  origin: z.enum(['shadowlog', 'baseline']),
  feasible: z.boolean(),
  infeasible: list(z.object({ sessionId: z.string(), firstCallOverWindow: count.nullable(), refused: z.string().nullable() })),
  calls: count,
  callsOverWindow: count,
  tokensSent: count,
  peakTokens: count,
  meanWindowShare: z.number().finite().nonnegative(),
  peakWindowShare: z.number().finite().nonnegative(),
  compactions: count,
  failedCompactions: count,
  prunes: count,
  drops: count,
  summarizerTokens: z.object({ input: count, output: count }),
  cachePrefixShare: share,
  costUsd: count,
  unpricedCalls: count,
  retention,
  // Reports written before these measures existed have none.
  afterCompaction: afterCompaction.optional(),
  config: anObject.nullable(),
  pruner: z.boolean(),
  probe: policyProbe.nullable().optional(),
});

const sessionResult = z.object({ sessionId: z.string(), calls: count });

export const TUNE_REPORT_SCHEMA = z.object({
  version: z.literal(1),
  prices: z.object({ date: z.string(), source: z.string() }),
  estimator: z.string(),
  policies: list(policySummary),
  sessions: list(sessionResult),
  unfitSessions: list(z.string()),
  recommendation: z.object({ policy: z.string(), reason: z.string(), config: anObject, margin: z.number().finite() }).nullable(),
  probe: probeRun.optional(),
});

/** A report as the schema reads it: its fields typed, fields it does not name left out. */
export type CheckedTuneReport = z.infer<typeof TUNE_REPORT_SCHEMA>;

// The report tune writes is one the schema accepts: a change to either that breaks this fails
// the type check, not a user's `view --tune`.
type Fits<Report> = Report extends z.input<typeof TUNE_REPORT_SCHEMA> ? true : false;
export const TUNE_REPORT_FITS_SCHEMA: Fits<TuneReport> = true;

export class InvalidTuneReportError extends ShadowlogError {
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(
      'INVALID_TUNE_REPORT',
      `${source} is not a tune report: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}. Expected the JSON that \`shadowlog tune --json\` prints (or the report.json of \`tune --out\`): {version: 1, policies: [{policy, feasible, tokensSent, summarizerTokens: {input, output}, retention: {share, …}, …}], sessions: […], recommendation}; run tune again to write one`,
    );
    this.problems = problems;
  }
}

/** Checks a parsed tune report; `source` names it in the error (a file name). */
export function parseTuneReport(value: unknown, source: string): CheckedTuneReport {
  const result = TUNE_REPORT_SCHEMA.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidTuneReportError(
    source,
    result.error.issues.map((issue) => `${issue.path.length === 0 ? '(the document)' : issue.path.join('.')}: ${issue.message}`),
  );
}
