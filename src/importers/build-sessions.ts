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

export function buildForeignSessions(inputs: readonly ForeignInput[], options: ImportOptions): BuiltSession[] {
  const built: BuiltSession[] = [];
  const byFile = new Map<SourceFile, ForeignInput>(inputs.map((input) => [input.file, input]));
  const conversations = new Map<string, { main: SourceFile[]; subagents: SourceFile[] }>();
  for (const input of inputs) {
    if (input.format === 'pi') for (const builder of importPi(input.file, options)) built.push({ input, builder });
    else if (input.format === 'codex') for (const builder of importCodex(input.file, options)) built.push({ input, builder });
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
      const { sessions } = importClaudeCode({ main: file, subagents: index === 0 ? subagents : [] }, options);
      for (const session of sessions) built.push({ input: byFile.get(session.file) as ForeignInput, builder: session.builder });
    });
  }
  return built;
}
