// The real agent sessions of the shared corpus (../shared/corpus/sessions beside the repository;
// its README says what each file holds). The repository may be checked out one level deeper
// (a worktree beside the others), so the directories above it are searched in turn; a machine
// without the corpus fails the tests that need it, loudly, rather than skipping them.

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const REPOSITORY = resolve(import.meta.dirname, '../..');

function findCorpus(): string {
  const tried: string[] = [];
  for (let directory = dirname(REPOSITORY); ; directory = dirname(directory)) {
    const candidate = join(directory, 'shared/corpus/sessions');
    tried.push(candidate);
    if (existsSync(candidate)) return candidate;
    if (dirname(directory) === directory) break;
  }
  throw new Error(`the shared session corpus is not beside this repository; looked in ${tried.join(', ')}`);
}

export const CORPUS_SESSIONS = findCorpus();

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
