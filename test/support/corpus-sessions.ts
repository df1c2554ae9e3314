// The real agent sessions of the shared corpus, copied byte for byte into
// test/fixtures/corpus/sessions (its README says what each file holds and where it comes from),
// so that a clean clone tests against them with nothing outside the repository.

import { join, resolve } from 'node:path';

export const CORPUS_SESSIONS = resolve(import.meta.dirname, '../fixtures/corpus/sessions');

/** A corpus file by its path under sessions/ (claude-code/…, codex/…, pi/…). */
export function corpusFile(path: string): string {
  return join(CORPUS_SESSIONS, path);
}

export const CORPUS_FILES = {
  pi: 'pi/large-session.jsonl',
  claudeMain: 'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  claudeSummarizer: 'claude-code/subagents/agent-acompact-4d5611e5.jsonl',
  claudeSmall: 'claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
  codexOld: 'codex/rollout-2025-11-17T15-30-28.jsonl',
  codexCompacted: 'codex/rollout-2026-02-23T12-54-34-redacted.jsonl',
} as const;
