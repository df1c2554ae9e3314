// The tune report a page can show (`view --tune report.json`): `tune --json`'s document,
// checked against the fields the page reads before it is embedded. Fields may be added to the
// report; a field the page reads with the wrong type is refused with the path that is wrong.

import { z } from 'zod';
import { ShadowlogError } from '../log/errors.js';

const count = z.number().finite().nonnegative();

const policyResult = z.looseObject({
  policy: z.union([z.string(), z.looseObject({})]),
  feasible: z.boolean(),
  tokensSent: count.nullable().optional(),
  peakTokens: count.nullable().optional(),
  compactions: count.nullable().optional(),
  summarizerTokens: count.nullable().optional(),
  cachePrefixShare: z.number().min(0).max(1).nullable().optional(),
  costUsd: count.nullable().optional(),
  retention: z
    .union([z.number(), z.looseObject({})])
    .nullable()
    .optional(),
});

export const TUNE_REPORT_SCHEMA = z.looseObject({
  policies: z.array(policyResult),
  sessions: z.array(z.unknown()),
  recommendation: z
    .looseObject({ policy: z.union([z.string(), z.looseObject({})]), reason: z.string() })
    .nullable()
    .optional(),
});

export type TuneReport = z.infer<typeof TUNE_REPORT_SCHEMA>;

export class InvalidTuneReportError extends ShadowlogError {
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(
      'INVALID_TUNE_REPORT',
      `${source} is not a tune report: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}. Expected the JSON that \`shadowlog tune --json\` prints: {policies: [{policy, feasible, tokensSent, …}], sessions: […], recommendation: {policy, reason}}`,
    );
    this.problems = problems;
  }
}

/** Checks a parsed tune report; `source` names it in the error (a file name). */
export function parseTuneReport(value: unknown, source: string): TuneReport {
  const result = TUNE_REPORT_SCHEMA.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidTuneReportError(
    source,
    result.error.issues.map((issue) => `${issue.path.length === 0 ? '(the document)' : issue.path.join('.')}: ${issue.message}`),
  );
}
