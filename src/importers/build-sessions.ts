// Every foreign input mapped into sessions in memory, each session with the file it came from.
// Claude Code files are first gathered into conversations (a main transcript and the subagent
// files that share its session id), so that sub-sessions are linked to their parent and to the
// call or compaction behind them.

import type { ClassifiedInput } from './classify-inputs.js';
import { agentIdOf, claudeSessionIdOf, importClaudeCode } from './claude-code/claude-importer.js';
import { importCodex } from './codex/codex-importer.js';
import type { ImportOptions } from './importer-options.js';
import { importPi } from './pi/pi-importer.js';
import type { SessionBuilder } from './session-builder.js';
import type { SourceFile } from './source-file.js';

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
  const byFile = new Map<SourceFile, ForeignInput>(inputs.map((input) => [input.file, input]));
  const conversations = new Map<string, { main: SourceFile[]; subagents: SourceFile[] }>();
  for (const input of inputs) {
    if (input.format === 'pi') attempt([input], () => importPi(input.file, options).map((builder) => ({ input, builder })));
    else if (input.format === 'codex') attempt([input], () => importCodex(input.file, options).map((builder) => ({ input, builder })));
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
      attempt(
        files.map((each) => byFile.get(each) as ForeignInput),
        () =>
          importClaudeCode({ main: file, subagents: index === 0 ? subagents : [] }, options).sessions.map((session) => ({
            input: byFile.get(session.file) as ForeignInput,
            builder: session.builder,
          })),
      );
    });
  }
  return built;
}
