// A Claude Code conversation as shadowlog sessions: the main transcript, and a sub-session for
// each sidechain: those written inline in old transcripts (isSidechain lines, linked to the Task
// call whose prompt they answer) and the subagent files of newer versions
// (<session>/subagents/agent-<agentId>.jsonl, linked to the Task call whose result names the
// agent, or, for the summarizer of a compaction, named by that compaction's summary).

import type { LogEvent, SessionParent } from '../../log/event.js';
import { importedSessionId, subSessionId } from '../derived-ids.js';
import type { ImportOptions } from '../importer-options.js';
import { firstTimeOf, SessionBuilder } from '../session-builder.js';
import type { SourceFile, SourceRecord } from '../source-file.js';
import { arrayOf, objectOf, stringOf } from '../source-values.js';
import { claudeUsage } from './claude-content.js';
import { claudeForkOf, mapClaudeForkSession } from './claude-fork-session.js';
import { mapClaudeRewinds } from './claude-rewind-sessions.js';
import { claudePaths } from './claude-rewinds.js';
import { ClaudeSessionMapper, type SummarizerLink } from './claude-session.js';

/** A main transcript and the subagent files of the same session (either may be missing). */
export interface ClaudeConversation {
  readonly main: SourceFile | undefined;
  readonly subagents: readonly SourceFile[];
}

/** The session id Claude Code gave the conversation, from the first record that names one. */
export function claudeSessionIdOf(file: SourceFile): string | undefined {
  for (const record of file.records) {
    const id = stringOf(record.value.sessionId);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** The agent a subagent file belongs to: every message in it is a sidechain of one agentId. */
export function agentIdOf(file: SourceFile): string | undefined {
  let agentId: string | undefined;
  for (const record of file.records) {
    if (record.value.type !== 'user' && record.value.type !== 'assistant') continue;
    const id = stringOf(record.value.agentId);
    if (record.value.isSidechain !== true || id === undefined || (agentId !== undefined && id !== agentId)) return undefined;
    agentId = id;
  }
  return agentId;
}

/** The sessions of a conversation, each with the file it was read from. */
export interface ClaudeSessions {
  readonly sessions: ReadonlyArray<{ readonly file: SourceFile; readonly builder: SessionBuilder }>;
}

export function importClaudeCode(conversation: ClaudeConversation, options: ImportOptions = {}): ClaudeSessions {
  const anyFile = conversation.main ?? conversation.subagents[0];
  if (anyFile === undefined) return { sessions: [] };
  const mainId = options.sessionId ?? importedSessionId('claude-code', claudeSessionIdOf(anyFile) ?? 'session');
  const agentSessions = conversation.subagents.map((file) => ({ file, agentId: agentIdOf(file) ?? 'agent' }));
  const summarizers = agentSessions
    .filter(({ agentId }) => agentId.startsWith('acompact'))
    .map(({ file, agentId }) => summarizerLink(file, subSessionId(mainId, `agent-${agentId}`)));
  const used = new Set<string>();
  const links = {
    summarizerFor: (time: string) => {
      // The summarizer that finished last before the boundary was written.
      const found = summarizers
        .filter((link) => link.endTime <= time && !used.has(link.sessionId))
        .sort((a, b) => (a.endTime < b.endTime ? 1 : -1))[0];
      if (found !== undefined) used.add(found.sessionId);
      return found;
    },
  };
  const sessions: Array<{ file: SourceFile; builder: SessionBuilder }> = [];
  // The main path's session and mapper first, then each branch's (a rewound transcript).
  let paths: Array<{ builder: SessionBuilder; mapper: ClaudeSessionMapper }> = [];
  const sidechains: SourceRecord[][] = [];
  if (conversation.main !== undefined) {
    const file = conversation.main;
    const records = file.records;
    const pathRecords = records.filter((record) => record.value.isSidechain !== true);
    const fork = claudeForkOf(pathRecords);
    const treePaths = claudePaths(pathRecords, options.storedLastLine?.(mainId));
    // A fork file rewound after the fork holds paths of its own; linked as one branch, its
    // abandoned prompts would stay on its surface. It is imported whole, each path its own.
    const forked =
      fork === undefined
        ? undefined
        : treePaths.length > 1
          ? {
              reason: `it was rewound after the fork (${treePaths.length} paths in the file), so it is imported whole, each path a session of its own, not as a branch of ${fork.parentSessionId}`,
            }
          : mapClaudeForkSession({
              records: pathRecords,
              fork,
              parentEvents: options.forkParentEvents?.(fork.parentSessionId),
              storedWhole: options.storedWhole?.(mainId) === true,
              links,
              newBuilder: (prefix) => newBuilder(mainId, file, records, options, options.parent, prefix),
            });
    const built =
      forked !== undefined && 'builder' in forked
        ? [forked]
        : mapClaudeRewinds({
            mainId,
            file,
            records: pathRecords,
            paths: treePaths,
            links,
            newBuilder: (sessionId, prefix) => newBuilder(sessionId, file, records, options, options.parent, prefix),
          });
    if (fork !== undefined && forked !== undefined && 'reason' in forked && built[0] !== undefined) {
      built[0].builder.unlinkedFork = { parentSessionId: fork.parentSessionId, reason: forked.reason };
    }
    paths = built;
    sessions.push(...built.map(({ builder }) => ({ file, builder })));
    sidechains.push(...inlineSidechains(records));
  }
  // A sub-session's parent is the path whose call spawned it (the main one when they share it).
  const parentFor = (sourceCallId: string | undefined): SessionParent => {
    for (const { builder } of sourceCallId === undefined ? [] : paths) {
      const callId = builder.callIds.sessionIdOf(sourceCallId as string);
      if (callId !== undefined) return { sessionId: builder.sessionId, callId };
    }
    return { sessionId: mainId };
  };
  const agentCallOf = (agentId: string): string | undefined =>
    paths.map(({ mapper }) => mapper.agentCalls.get(agentId)).find((id) => id !== undefined);
  const prompts = [...new Map(paths.flatMap(({ mapper }) => mapper.taskCalls).map((call) => [call.id, call])).values()];
  for (const records of sidechains) {
    const root = records[0] as SourceRecord;
    const prompt = promptOf(root);
    const match = prompts.findIndex((call) => call.prompt === prompt);
    const [call] = match < 0 ? [] : prompts.splice(match, 1);
    const id = subSessionId(mainId, `sidechain-${(stringOf(root.value.uuid) ?? String(root.line)).slice(0, 8)}`);
    const file = conversation.main as SourceFile;
    sessions.push({ file, builder: mapSubSession(id, file, records, options, parentFor(call?.id), links) });
  }
  for (const { file, agentId } of agentSessions) {
    const id = subSessionId(mainId, `agent-${agentId}`);
    sessions.push({ file, builder: mapSubSession(id, file, file.records, options, parentFor(agentCallOf(agentId)), links) });
  }
  return { sessions };
}

function newBuilder(
  sessionId: string,
  file: SourceFile,
  records: readonly SourceRecord[],
  options: ImportOptions,
  parent: SessionParent | undefined,
  prefix: readonly LogEvent[] = [],
): SessionBuilder {
  return new SessionBuilder({
    sessionId,
    sourcePath: file.path,
    source: 'claude-code',
    time: firstTimeOf(records),
    ...(parent === undefined ? {} : { parent }),
    ...(prefix.length === 0 ? {} : { prefix }),
    ...(options.window === undefined ? {} : { window: options.window }),
  });
}

function mapSubSession(
  sessionId: string,
  file: SourceFile,
  records: readonly SourceRecord[],
  options: ImportOptions,
  parent: SessionParent,
  links: ConstructorParameters<typeof ClaudeSessionMapper>[1],
): SessionBuilder {
  const builder = newBuilder(sessionId, file, records, options, parent);
  new ClaudeSessionMapper(builder, links).map(records);
  return builder;
}

/** The sidechains written inline in a main transcript, each from its root (a line whose parent is not in the sidechain). */
function inlineSidechains(records: readonly SourceRecord[]): SourceRecord[][] {
  const chainOf = new Map<string, SourceRecord[]>();
  const ordered: SourceRecord[][] = [];
  for (const record of records) {
    if (record.value.isSidechain !== true) continue;
    const parent = stringOf(record.value.parentUuid);
    let chain = parent === undefined ? undefined : chainOf.get(parent);
    if (chain === undefined) {
      chain = [];
      ordered.push(chain);
    }
    chain.push(record);
    const uuid = stringOf(record.value.uuid);
    if (uuid !== undefined) chainOf.set(uuid, chain);
  }
  return ordered;
}

function promptOf(record: SourceRecord): string | undefined {
  const content = objectOf(record.value.message)?.content;
  if (typeof content === 'string') return content;
  const text = arrayOf(content).map((block) => stringOf(objectOf(block)?.text) ?? '');
  return text.length === 0 ? undefined : text.join('');
}

/** The summarizer's model, usage and end time, from its last answer. */
function summarizerLink(file: SourceFile, sessionId: string): SummarizerLink & { readonly endTime: string } {
  const answers = file.records.filter((record) => record.value.type === 'assistant');
  const last = answers[answers.length - 1];
  const message = objectOf(last?.value.message);
  const endRecord = file.records[file.records.length - 1];
  const endTime = typeof endRecord?.value.timestamp === 'string' ? new Date(endRecord.value.timestamp).toISOString() : '';
  return { sessionId, model: stringOf(message?.model) ?? 'unknown', usage: claudeUsage(message?.usage) ?? null, endTime };
}
