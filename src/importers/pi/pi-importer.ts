// A pi session file (coding-agent session format, versions 1 to 3) as shadowlog sessions: the
// header and the entries that only configure (model and thinking-level changes, labels, custom
// data) kept whole as foreign lines; messages mapped, each assistant message a call with pi's
// usage; errored and aborted answers as failed calls (pi does not send them again); compaction
// entries as replacements. A session tree (SPEC §14) becomes a main session, the path to the
// file's last entry, and a branch for each path that leaves it (pi-tree.ts), forking where it
// leaves: each session is its path mapped from the start, and a branch's events up to its fork
// are its parent's, event for event, so that only its own are stored.

import { importedSessionId, subSessionId } from '../derived-ids.js';
import type { ImportOptions } from '../importer-options.js';
import { type BranchOf, firstTimeOf, SessionBuilder, timeOfRecord } from '../session-builder.js';
import type { SourceFile, SourceRecord } from '../source-file.js';
import { objectOf, stringOf } from '../source-values.js';
import { mapPiCompaction, type PiModel } from './pi-compaction.js';
import { piAssistantContent, piContent, piUsage } from './pi-content.js';
import { type PiSessionPath, type PiTreeEntry, piSessionPaths, piTree } from './pi-tree.js';

const BRANCH_SUMMARY_PREFIX = 'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n';
const BRANCH_SUMMARY_SUFFIX = '</summary>';
const KEPT_WHOLE = new Set(['model_change', 'thinking_level_change', 'custom', 'label', 'session_info']);

/** What every path of one file is mapped with. */
interface PiFile {
  readonly file: SourceFile;
  readonly header: SourceRecord;
  readonly options: ImportOptions;
  readonly lineOf: (id: string) => number | undefined;
}

/** A session fork made while a path is mapped: before its entry `boundary`, a branch of `parentSessionId`. */
interface ForkAt {
  readonly boundary: number;
  readonly parentSessionId: string;
  readonly details: Omit<BranchOf, 'parentSessionId' | 'forkSeq'>;
}

/** A path mapped: its session, and the forks that a branch of it replays to come to the same events. */
interface MappedPath {
  readonly sessionId: string;
  readonly builder: SessionBuilder;
  readonly forks: readonly ForkAt[];
  /** The entry before which it forks (-1 for the main session). */
  readonly boundary: number;
  readonly parent: MappedPath | undefined;
}

export function importPi(file: SourceFile, options: ImportOptions = {}): SessionBuilder[] {
  const [header, ...records] = file.records;
  if (header === undefined) return [];
  const mainId = piMainSessionId(header, options);
  const tree = piTree(records);
  const sessionIdOf = (key: string | undefined) => (key === undefined ? mainId : piBranchSessionId(mainId, key));
  const paths = piSessionPaths(tree, (key) => options.storedLeaves?.get(sessionIdOf(key)));
  const context: PiFile = { file, header, options, lineOf: (id) => tree.byId.get(id)?.record.line };
  if (paths.length === 0) return [mapPath(context, mainId, [], []).builder];
  const mapped: MappedPath[] = [];
  for (const path of paths) mapped.push(mapSessionPath(context, path, mapped, sessionIdOf(path.key)));
  const main = mapped[0] as MappedPath;
  for (const note of tree.notes) main.builder.note(note.line, note.reason);
  if (paths.length > 1) describePaths(paths, mapped, tree.entries[tree.entries.length - 1]);
  return mapped.map((each) => each.builder);
}

/** The session id of a pi file's main session: --as, else pi-<the header's id>. */
export function piMainSessionId(header: SourceRecord, options: ImportOptions): string {
  return options.sessionId ?? importedSessionId('pi', stringOf(header.value.id) ?? 'session');
}

/** A branch's session id: the main session's, then `.branch-` and the id of its first entry not on its parent's path. */
export function piBranchSessionId(mainId: string, key: string): string {
  return subSessionId(mainId, `branch-${key}`);
}

/** Every session id a pi file could give (its main session and a branch for each entry with a sibling), to look up in a store. */
export function piSessionIds(file: SourceFile, options: ImportOptions): string[] {
  const [header, ...records] = file.records;
  if (header === undefined) return [];
  const mainId = piMainSessionId(header, options);
  const tree = piTree(records);
  const ids = [mainId];
  const siblings = (list: readonly PiTreeEntry[]) => {
    if (list.length > 1) for (const entry of list) ids.push(piBranchSessionId(mainId, entry.id));
  };
  siblings(tree.roots);
  for (const entry of tree.entries) siblings(entry.children);
  return ids;
}

/**
 * Maps one path. A branch forks where it leaves its parent's path; when a fork there would
 * leave a tool call without its result (it left between a call and its result), it forks at the
 * nearest entry before where it can, from the ancestor that holds that entry as its own, and
 * carries the entries between in its own events.
 */
function mapSessionPath(context: PiFile, path: PiSessionPath, mapped: readonly MappedPath[], sessionId: string): MappedPath {
  const parent = path.parent === undefined ? undefined : mapped[path.parent];
  if (parent === undefined)
    return { sessionId, builder: mapPath(context, sessionId, path.entries, []).builder, forks: [], boundary: -1, parent };
  const leaves = path.leaves;
  const leavesAtLine = (path.entries[leaves] as PiTreeEntry).record.line;
  const own: ForkAt = { boundary: leaves, parentSessionId: parent.sessionId, details: { leavesAtLine } };
  const tried = mapPath(context, sessionId, path.entries, [...parent.forks, own], { checkAt: leaves });
  if (tried.problem === undefined) return { sessionId, builder: tried.builder, forks: [...parent.forks, own], boundary: leaves, parent };
  const { lastValid } = mapPath(context, sessionId, path.entries, parent.forks, { validBefore: leaves });
  const boundary = lastValid ?? 0;
  let owner: MappedPath = parent;
  while (owner.boundary >= boundary && owner.parent !== undefined) owner = owner.parent;
  const after = (path.entries[leaves - 1] as PiTreeEntry).record.line;
  const carried = {
    fromLine: (path.entries[boundary] as PiTreeEntry).record.line,
    toLine: after,
    reason: `forking where it leaves, after line ${after}, ${tried.problem}`,
  };
  const fork: ForkAt = { boundary, parentSessionId: owner.sessionId, details: { leavesAtLine, carried } };
  const forks = [...owner.forks, fork];
  return { sessionId, builder: mapPath(context, sessionId, path.entries, forks).builder, forks, boundary, parent: owner };
}

/**
 * The header and `entries` mapped in order into a new session, with `forks` made on the way.
 * `checkAt`: stops there if the session could not fork before that entry, with why.
 * `validBefore`: stops there, with the last entry before which it could fork.
 */
function mapPath(
  context: PiFile,
  sessionId: string,
  entries: readonly PiTreeEntry[],
  forks: readonly ForkAt[],
  probe: { checkAt?: number; validBefore?: number } = {},
): { builder: SessionBuilder; problem?: string; lastValid?: number } {
  const { file, header, options } = context;
  const builder = new SessionBuilder({
    sessionId,
    sourcePath: file.path,
    source: 'pi',
    time: firstTimeOf(file.records),
    ...(options.parent === undefined ? {} : { parent: options.parent }),
    ...(options.window === undefined ? {} : { window: options.window }),
  });
  builder.foreign(header, 'session');
  const headerModel = stringOf(header.value.modelId);
  let model: PiModel | undefined =
    headerModel === undefined ? undefined : { provider: stringOf(header.value.provider) ?? 'unknown', model: headerModel };
  let lastValid: number | undefined;
  let nextFork = 0;
  for (const [index, { record }] of entries.entries()) {
    if (index === probe.checkAt) {
      const problem = builder.forkProblem();
      if (problem !== undefined) return { builder, problem };
    }
    if (index === probe.validBefore) return { builder, ...(lastValid === undefined ? {} : { lastValid }) };
    if (probe.validBefore !== undefined && builder.forkProblem() === undefined) lastValid = index;
    for (let fork = forks[nextFork]; fork?.boundary === index; fork = forks[++nextFork]) {
      const { parentSessionId, details } = fork;
      builder.guard(record, () => {
        builder.at(timeOfRecord(record));
        builder.fork(parentSessionId, details);
      });
    }
    builder.guard(record, () => {
      model = mapEntry(builder, record, context.lineOf, model);
    });
    // Each entry maps alone; what a later entry could change is what a re-import refuses.
    builder.settle();
  }
  builder.finish();
  return { builder };
}

/** Where each path ends, and which one pi is on now, when that is not the main session's. */
function describePaths(paths: readonly PiSessionPath[], mapped: readonly MappedPath[], last: PiTreeEntry | undefined): void {
  const main = mapped[0] as MappedPath;
  const mainLeaf = paths[0]?.entries.at(-1);
  const latestIndex = paths.findIndex((path) => path.entries.at(-1) === last);
  const latest = mapped[latestIndex];
  paths.forEach((path, index) => {
    const leaf = path.entries.at(-1) as PiTreeEntry;
    const session = mapped[index] as MappedPath;
    let note: string | undefined;
    if (index === 0 && latest !== undefined && latest !== main)
      note = `pi has gone back since ${main.sessionId} was imported: its latest path, to line ${last?.record.line}, is the branch ${latest.sessionId}; this session keeps the path the store holds, to line ${leaf.record.line}`;
    else if (index === latestIndex && index !== 0)
      note = `pi's latest path: a branch, not the main session, because the store holds ${main.sessionId} with the path it was imported with (to line ${mainLeaf?.record.line}), which this path leaves at line ${(path.entries[path.leaves] as PiTreeEntry).record.line}`;
    session.builder.treePath = {
      leafLine: leaf.record.line,
      leafEntryId: leaf.id,
      latest: index === latestIndex,
      ...(note === undefined ? {} : { note }),
    };
  });
}

/** Maps one entry; returns the session's model from then on. */
function mapEntry(
  builder: SessionBuilder,
  entry: SourceRecord,
  lineOf: (id: string) => number | undefined,
  model: PiModel | undefined,
): PiModel | undefined {
  const type = stringOf(entry.value.type) ?? 'entry';
  builder.reading(entry);
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
