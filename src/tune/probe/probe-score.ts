// How a probe's answer is scored. Model-free where the expected answer is an artifact of the
// record (paths, identifiers, numbers): the share of the expected items the answer names, each
// as a whole token. Otherwise by the model as a judge, with the rubric below; its verdict is a
// JSON object {score, reason}, and a verdict that does not parse is recorded and left unscored,
// never guessed.

import { holds } from './probe-questions.js';

/** The share of `items` the answer names (each as a whole token, exactly as the record has it). */
export function matchScore(items: readonly string[], answer: string): { score: number; found: string[]; missing: string[] } {
  const found = items.filter((item) => holds(answer, item));
  return { score: items.length === 0 ? 0 : found.length / items.length, found, missing: items.filter((item) => !found.includes(item)) };
}

/** The rubric's version, recorded with every judge call's question. */
export const JUDGE_RUBRIC_VERSION = 1;

/** The judge's one user message: the question, the answer the record expects, the answer given, and the verdict's form. */
export function judgeRubric(question: string, expected: string, given: string): string {
  return [
    'You are grading an answer to a question about an earlier part of a working session.',
    "The expected answer comes from the session's record; the given answer was written by a model that saw a compacted version of that session.",
    '',
    'Question:',
    question,
    '',
    'Expected answer (from the record):',
    expected,
    '',
    'Given answer:',
    given === '' ? '(empty)' : given,
    '',
    "Score how much of the expected answer's substance the given answer states correctly: 1 when it states all of it (in any words), 0 when it states none of it, says it cannot tell, or contradicts it; a share in between for part of it. Ignore style and length.",
    'Reply with one JSON object and nothing else: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}',
  ].join('\n');
}

export type Verdict =
  | { readonly parsed: true; readonly score: number; readonly reason: string }
  | { readonly parsed: false; readonly problem: string };

/** The judge's verdict from its answer: one JSON object (a ```json fence around it is allowed) with a score from 0 to 1 and a reason. */
export function parseVerdict(text: string): Verdict {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/.exec(trimmed);
  const body = (fenced?.[1] ?? trimmed).trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { parsed: false, problem: `the verdict is not JSON: ${JSON.stringify(trimmed.slice(0, 120))}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { parsed: false, problem: `the verdict is not a JSON object: ${JSON.stringify(trimmed.slice(0, 120))}` };
  const { score, reason } = value as { score?: unknown; reason?: unknown };
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1)
    return { parsed: false, problem: `the verdict's score is not a number from 0 to 1: ${JSON.stringify(score ?? null)}` };
  if (typeof reason !== 'string') return { parsed: false, problem: 'the verdict has no reason (a string)' };
  return { parsed: true, score, reason };
}
