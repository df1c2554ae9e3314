// A pi session file (coding-agent session format, versions 1 to 3) as a shadowlog session: the
// header and the entries that only configure (model and thinking-level changes, labels, custom
// data) kept whole as foreign lines; messages mapped, each assistant message a call with pi's
// usage; errored and aborted answers as failed calls (pi does not send them again); compaction
// entries as replacements. Entries on branches the session left are kept and reported.

import { importedSessionId } from '../derived-ids.js';
import type { ImportOptions } from '../importer-options.js';
import { firstTimeOf, SessionBuilder } from '../session-builder.js';
import type { SourceFile, SourceRecord } from '../source-file.js';
import { objectOf, stringOf } from '../source-values.js';
import { mapPiCompaction, type PiModel } from './pi-compaction.js';
import { piAssistantContent, piContent, piUsage } from './pi-content.js';
import { activePath, isOnPath } from './pi-tree.js';

const BRANCH_SUMMARY_PREFIX = 'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n';
const BRANCH_SUMMARY_SUFFIX = '</summary>';
const KEPT_WHOLE = new Set(['model_change', 'thinking_level_change', 'custom', 'label', 'session_info']);

export function importPi(file: SourceFile, options: ImportOptions = {}): SessionBuilder[] {
  const [header, ...entries] = file.records;
  if (header === undefined) return [];
  const sessionId = options.sessionId ?? importedSessionId('pi', stringOf(header.value.id) ?? 'session');
  const builder = new SessionBuilder({
    sessionId,
    sourcePath: file.path,
    source: 'pi',
    time: firstTimeOf(file.records),
    ...(options.parent === undefined ? {} : { parent: options.parent }),
    ...(options.window === undefined ? {} : { window: options.window }),
  });
  builder.foreign(header, 'session');
  const path = activePath(entries);
  const lines = new Map<string, number>();
  for (const entry of entries) if (typeof entry.value.id === 'string') lines.set(entry.value.id, entry.line);
  const headerModel = stringOf(header.value.modelId);
  let model: PiModel | undefined =
    headerModel === undefined ? undefined : { provider: stringOf(header.value.provider) ?? 'unknown', model: headerModel };
  for (const entry of entries) {
    builder.guard(entry, () => {
      model = mapEntry(builder, entry, isOnPath(entry, path), (id) => lines.get(id), model);
    });
    // Each entry maps alone; one that a later entry leaves on a branch is what a re-import refuses.
    builder.settle();
  }
  builder.finish();
  return [builder];
}

/** Maps one entry; returns the session's model from then on. */
function mapEntry(
  builder: SessionBuilder,
  entry: SourceRecord,
  onPath: boolean,
  lineOf: (id: string) => number | undefined,
  model: PiModel | undefined,
): PiModel | undefined {
  const type = stringOf(entry.value.type) ?? 'entry';
  builder.reading(entry);
  if (!onPath) {
    builder.unmappedRecord(
      entry,
      type,
      'on a branch the session left (not on the path from its last entry to its first), so not in what the model was last shown',
    );
    return model;
  }
  if (KEPT_WHOLE.has(type)) {
    builder.foreign(entry, type);
    const modelId = stringOf(entry.value.modelId);
    if (type === 'model_change' && modelId !== undefined)
      return { provider: stringOf(entry.value.provider) ?? model?.provider ?? 'unknown', model: modelId };
  } else if (type === 'message') return mapMessage(builder, entry) ?? model;
  else if (type === 'compaction') mapPiCompaction(builder, entry, lineOf, model);
  else if (type === 'branch_summary') mapBranchSummary(builder, entry);
  else if (type === 'custom_message') userMessage(builder, entry, piContent(entry.value.content, entry.line, builder), false);
  else builder.unmappedRecord(entry, type, `a pi entry of type ${JSON.stringify(type)}, which shadowlog does not know`);
  return model;
}

/** Maps a message entry; returns the model an assistant message names, the session's model from then on. */
function mapMessage(builder: SessionBuilder, entry: SourceRecord): PiModel | undefined {
  const message = objectOf(entry.value.message);
  const role = stringOf(message?.role);
  const keep = [{ line: entry.line, text: entry.text }];
  switch (role) {
    case 'user':
      userMessage(builder, entry, piContent(message?.content, entry.line, builder), true);
      return undefined;
    case 'custom':
    case 'hookMessage':
      userMessage(builder, entry, piContent(message?.content, entry.line, builder), false);
      return undefined;
    case 'bashExecution':
      if (message?.excludeFromContext === true) builder.foreign(entry, 'bash-execution');
      else userMessage(builder, entry, [{ type: 'text', text: bashExecutionText(message ?? {}) }], true);
      return undefined;
    case 'toolResult': {
      const callId = stringOf(message?.toolCallId) ?? '';
      const content = piContent(message?.content, entry.line, builder);
      const mapped = builder.toolResult(callId, { content, ...(message?.isError === true ? { error: true as const } : {}) }, keep);
      if (!mapped)
        builder.unmappedRecord(
          entry,
          'tool-result',
          `the result of tool call ${JSON.stringify(callId)}, which no message on the surface is waiting for`,
        );
      return undefined;
    }
    case 'assistant':
      return mapAssistant(builder, entry, message ?? {});
    default:
      builder.unmappedRecord(entry, 'message', `a message of role ${JSON.stringify(role)}, which shadowlog does not know`);
      return undefined;
  }
}

function mapAssistant(builder: SessionBuilder, entry: SourceRecord, message: Readonly<Record<string, unknown>>): PiModel {
  const provider = stringOf(message.provider) ?? 'unknown';
  const model = stringOf(message.model) ?? 'unknown';
  const usage = piUsage(message.usage);
  const sourceLines = [{ line: entry.line, text: entry.text }];
  const stopReason = stringOf(message.stopReason);
  if (stopReason === 'error' || stopReason === 'aborted') {
    // A provider that counted nothing (usage all zero) reported no usage.
    const counted = usage !== undefined && usage.inputTokens + usage.outputTokens > 0;
    builder.failedCall({
      provider,
      model,
      code: stopReason,
      message: stringOf(message.errorMessage) ?? stopReason,
      ...(counted ? { usage } : {}),
      sourceLines,
    });
    return { provider, model };
  }
  const { content, toolCalls } = piAssistantContent(message.content, provider, entry.line, builder);
  builder.call({ provider, model, content, toolCalls, ...(usage === undefined ? {} : { usage }), sourceLines });
  return { provider, model };
}

function userMessage(builder: SessionBuilder, entry: SourceRecord, content: unknown[], startsTurn: boolean): void {
  builder.message('user/message', { content, sourceLines: [{ line: entry.line, text: entry.text }] }, { startsTurn });
}

function mapBranchSummary(builder: SessionBuilder, entry: SourceRecord): void {
  const summary = stringOf(entry.value.summary);
  if (summary === undefined || summary === '') {
    builder.foreign(entry, 'branch-summary');
    return;
  }
  userMessage(builder, entry, [{ type: 'text', text: `${BRANCH_SUMMARY_PREFIX}${summary}${BRANCH_SUMMARY_SUFFIX}` }], false);
}

/** What pi sends the model for a `!` command (coding-agent messages.ts, bashExecutionToText). */
function bashExecutionText(message: Readonly<Record<string, unknown>>): string {
  let text = `Ran \`${String(message.command ?? '')}\`\n`;
  const output = stringOf(message.output);
  text += output ? `\`\`\`\n${output}\n\`\`\`` : '(no output)';
  if (message.cancelled === true) text += '\n\n(command cancelled)';
  else if (typeof message.exitCode === 'number' && message.exitCode !== 0) text += `\n\nCommand exited with code ${message.exitCode}`;
  if (message.truncated === true && typeof message.fullOutputPath === 'string') {
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  }
  return text;
}
