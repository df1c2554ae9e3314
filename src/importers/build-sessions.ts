// Every foreign input mapped into sessions in memory, each session with the file it came from.
// Claude Code files are first gathered into conversations (a main transcript and the subagent
// files that share its session id), so that sub-sessions are linked to their parent and to the
// call or compaction behind them.

import type { ClassifiedInput } from './classify-inputs.js';
import { claudeForkOf } from './claude-code/claude-fork-session.js';
import { agentIdOf, claudeSessionIdOf, importClaudeCode } from './claude-code/claude-importer.js';
import { codexForkOf, importCodex } from './codex/codex-importer.js';
import { importedSessionId } from './derived-ids.js';
import type { ImportOptions } from './importer-options.js';
import { importPi } from './pi/pi-importer.js';
import type { SessionBuilder } from './session-builder.js';
import type { SourceFile } from './source-file.js';
import { objectOf, stringOf } from './source-values.js';

export type ForeignInput = Extract<ClassifiedInput, { kind: 'foreign' }>;

export interface BuiltSession {
  readonly input: ForeignInput;
  readonly builder: SessionBuilder;
}

/**
 * Called with the inputs of a file, or of a Claude Code conversation, whose mapping failed; when
 * it returns, the others are built on (without it, the error is thrown).
 */
export type BuildFailure = (inputs: readonly ForeignInput[], error: unknown) => void;

export function buildForeignSessions(inputs: readonly ForeignInput[], options: ImportOptions, onFailure?: BuildFailure): BuiltSession[] {
  const built: BuiltSession[] = [];
  const attempt = (group: readonly ForeignInput[], build: () => BuiltSession[]): void => {
    if (onFailure === undefined) {
      built.push(...build());
      return;
    }
    try {
      built.push(...build());
    } catch (error) {
      onFailure(group, error);
    }
  };
  // A file forked from another session (SPEC §14) is built after that session, when this import
  // has it: the sessions built so far come first, then the store's.
  const withParents: ImportOptions = {
    ...options,
    forkParentEvents: (sessionId) =>
      built.find((each) => each.builder.sessionId === sessionId)?.builder.events ?? options.forkParentEvents?.(sessionId),
  };
  const jobs: BuildJob[] = [];
  const byFile = new Map<SourceFile, ForeignInput>(inputs.map((input) => [input.file, input]));
  const conversations = new Map<string, { main: SourceFile[]; subagents: SourceFile[] }>();
  for (const input of inputs) {
    if (input.format === 'pi')
      jobs.push({ group: [input], ...NO_FORK, build: () => importPi(input.file, options).map((builder) => ({ input, builder })) });
    else if (input.format === 'codex')
      jobs.push({
        group: [input],
        ...codexForkJob(input.file, options),
        build: () => importCodex(input.file, withParents).map((builder) => ({ input, builder })),
      });
    else {
      const key = claudeSessionIdOf(input.file) ?? input.input.path;
      const conversation = conversations.get(key) ?? { main: [], subagents: [] };
      (agentIdOf(input.file) === undefined ? conversation.main : conversation.subagents).push(input.file);
      conversations.set(key, conversation);
    }
  }
  for (const { main, subagents } of conversations.values()) {
    // Two transcripts with one session id are imported apart; the subagents go with the first.
    const mains = main.length === 0 ? [undefined] : main;
    mains.forEach((file, index) => {
      const files = [...(file === undefined ? [] : [file]), ...(index === 0 ? subagents : [])];
      jobs.push({
        group: files.map((each) => byFile.get(each) as ForeignInput),
        ...(file === undefined ? NO_FORK : claudeForkJob(file, options)),
        build: () =>
          importClaudeCode({ main: file, subagents: index === 0 ? subagents : [] }, withParents).sessions.map((session) => ({
            input: byFile.get(session.file) as ForeignInput,
            builder: session.builder,
          })),
      });
    });
  }
  for (const job of inForkOrder(jobs)) attempt(job.group, job.build);
  return built;
}

interface BuildJob {
  readonly group: readonly ForeignInput[];
  /** The session id the job's main session gets, and the one it says it was forked from. */
  readonly produces: string | undefined;
  readonly forkedFrom: string | undefined;
  readonly build: () => BuiltSession[];
}

const NO_FORK = { produces: undefined, forkedFrom: undefined } as const;

function codexForkJob(file: SourceFile, options: ImportOptions): Pick<BuildJob, 'produces' | 'forkedFrom'> {
  const meta = objectOf(file.records.find((record) => record.value.type === 'session_meta')?.value.payload);
  const id = stringOf(meta?.id);
  return { produces: options.sessionId ?? (id === undefined ? undefined : importedSessionId('codex', id)), forkedFrom: codexForkOf(meta) };
}

function claudeForkJob(file: SourceFile, options: ImportOptions): Pick<BuildJob, 'produces' | 'forkedFrom'> {
  const id = claudeSessionIdOf(file);
  return {
    produces: options.sessionId ?? (id === undefined ? undefined : importedSessionId('claude-code', id)),
    forkedFrom: claudeForkOf(file.records.filter((record) => record.value.isSidechain !== true))?.parentSessionId,
  };
}

/** The jobs with every forked one after the job that gives its parent (in their order otherwise). */
function inForkOrder(jobs: readonly BuildJob[]): BuildJob[] {
  const ordered = jobs.filter((job) => job.forkedFrom === undefined);
  let pending = jobs.filter((job) => job.forkedFrom !== undefined);
  while (pending.length > 0) {
    const waiting = new Set(pending.map((job) => job.produces));
    const ready = pending.filter((job) => !waiting.has(job.forkedFrom) || job.forkedFrom === job.produces);
    // A cycle of forks (no file can be its own ancestor, but a damaged one may say so): the rest in their order.
    const next = ready.length === 0 ? pending : ready;
    ordered.push(...next);
    pending = pending.filter((job) => !next.includes(job));
  }
  return ordered;
}
