// `shadowlog show <id> [--surface|--record] [--at SEQ] [--follow] [--type T|--all]`: one of the
// two projections, or the record as it grows (follow.ts). The record in text leaves out the
// source's noise unless asked (record-filter.ts).

import { type Command, Option } from 'commander';
import {
  assertSessionId,
  canonicalJson,
  dataOf,
  isReplaceOp,
  isSurfaceType,
  SeqOutOfRangeError,
  SessionNotFoundError,
  type SessionParent,
} from '../../log/index.js';
import { type LogStore, resolveSessionId, SessionLog } from '../../store/index.js';
import { noteIgnoredCheckpoints } from '../checkpoint-notes.js';
import { integerArgument, type RunCommand, seqArgument } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { plural } from '../plural.js';
import { checkTypesPresent, collectTypes, HiddenEvents, isSelected, type RecordSelection, recordSelection } from '../record-filter.js';
import { createCliRegistry } from '../registry.js';
import { describeRange, type RenderOptions, renderMessage, renderRecordEvent } from '../render-text.js';
import { type SubSession, subSessionsOf } from '../sub-sessions.js';
import { UsageError } from '../usage-error.js';
import { type FollowCommandOptions, followCommand } from './follow.js';

export interface ShowOptions {
  readonly view: 'surface' | 'record';
  /** Show the projection after applying events 0..at. */
  readonly at?: number;
  readonly full?: boolean;
  /** Follow the record as it grows instead (view is then `record`). */
  readonly follow?: Omit<FollowCommandOptions, 'full' | 'types' | 'all'>;
  /** The record: only events of these types (`noun/*` names a namespace). */
  readonly types?: readonly string[];
  /** The record in text: the source's noise too. */
  readonly all?: boolean;
}

/** The options of `show` as the command line parses them. */
export interface ShowFlags {
  readonly record?: boolean;
  readonly at?: number;
  readonly full?: boolean;
  readonly follow?: boolean;
  readonly from?: number;
  readonly maxEvents?: number;
  readonly untilSeq?: number;
  readonly pollMs?: number;
  readonly type?: string[];
  readonly all?: boolean;
}

export function showOptionsOf(flags: ShowFlags): ShowOptions {
  const { from, maxEvents, untilSeq, pollMs } = flags;
  const base = {
    ...(flags.at === undefined ? {} : { at: flags.at }),
    full: flags.full === true,
    ...(flags.type === undefined ? {} : { types: flags.type }),
    ...(flags.all === true ? { all: true } : {}),
  };
  if (flags.follow !== true) {
    if (from !== undefined || maxEvents !== undefined || untilSeq !== undefined || pollMs !== undefined) {
      throw new UsageError('--from, --max-events, --until-seq and --poll-ms go with --follow');
    }
    if (flags.record !== true && (flags.type !== undefined || flags.all === true)) {
      throw new UsageError('--type and --all choose which events of the record are shown: they go with --record or --follow');
    }
    return { view: flags.record === true ? 'record' : 'surface', ...base };
  }
  const follow = {
    ...(from === undefined ? {} : { fromSeq: from }),
    ...(maxEvents === undefined ? {} : { maxEvents }),
    ...(untilSeq === undefined ? {} : { untilSeq }),
    ...(pollMs === undefined ? {} : { pollMs }),
  };
  return { view: 'record', ...base, follow };
}

export async function showCommand(context: CommandContext, given: string, options: ShowOptions): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  const sessionId = await resolveSessionId(await context.store(), given);
  if (options.follow !== undefined) {
    const { types, all } = options;
    return followCommand(context, sessionId, {
      ...options.follow,
      full: options.full === true,
      ...(types === undefined ? {} : { types }),
      ...(all === undefined ? {} : { all }),
    });
  }
  const store = await context.store();
  const head = await store.head(sessionId);
  if (head === undefined) throw new SessionNotFoundError(sessionId);
  if (options.at !== undefined && options.at >= head.nextSeq) throw new SeqOutOfRangeError(options.at, head.nextSeq);
  const atSeq = options.at ?? head.nextSeq - 1;
  const subSessions = await subSessionsOf(store, sessionId);
  const spawnedBy = new Map(subSessions.flatMap((sub) => (sub.callId === undefined ? [] : [[sub.callId, sub.sessionId] as const])));
  const render: RenderOptions = { maxChars: options.full === true ? 0 : 600, subSessionOf: (callId) => spawnedBy.get(callId) };
  return options.view === 'surface'
    ? showSurface(context, sessionId, atSeq, render, subSessions)
    : showRecord(context, sessionId, atSeq, render, subSessions, recordSelection(options, context.json));
}

/** The session's parent, for a sub-session (format 2). */
async function parentOf(store: LogStore, sessionId: string): Promise<SessionParent | undefined> {
  return dataOf(await store.readEvent(sessionId, 0), 'session/start').parent;
}

/** The header line that names a session's sub-sessions. */
function subSessionsLine(subSessions: readonly SubSession[]): string {
  const named = subSessions.map((sub) => (sub.callId === undefined ? sub.sessionId : `${sub.sessionId} (spawned by call ${sub.callId})`));
  return `sub-sessions: ${named.join(', ')}; \`shadowlog show ID\` shows one`;
}

/** The header line that links a sub-session to its parent. */
function parentLine(parent: SessionParent): string {
  const call = parent.callId === undefined ? '' : `, spawned by its tool call ${parent.callId}`;
  return `a sub-session of ${parent.sessionId}${call}; \`shadowlog show ${parent.sessionId}\` shows the parent`;
}

async function showSurface(
  context: CommandContext,
  sessionId: string,
  atSeq: number,
  render: RenderOptions,
  subSessions: readonly SubSession[],
): Promise<number> {
  const store = await context.store();
  const log = await SessionLog.open(store, sessionId, { toSeq: atSeq + 1, registry: createCliRegistry() });
  noteIgnoredCheckpoints(context, sessionId, log.checkpointReport);
  const nodes = log.fold.toArray();
  const { parent, continues } = dataOf(await store.readEvent(sessionId, 0), 'session/start');
  if (context.json) {
    context.printJson({
      sessionId,
      atSeq,
      ...(parent === undefined ? {} : { parent }),
      ...(continues === undefined ? {} : { continues }),
      ...(subSessions.length === 0 ? {} : { subSessions }),
      nodes: nodes.map((node) => {
        const copyOf = (node.event.data as { copyOf?: unknown }).copyOf;
        return { seq: node.seq, type: node.type, sourceEventSeqs: node.sourceEventSeqs, ...(typeof copyOf === 'number' ? { copyOf } : {}) };
      }),
    });
    return 0;
  }
  context.print(`surface of ${sessionId} after event #${atSeq}: ${plural(nodes.length, 'node')}, what the model is shown`);
  if (parent !== undefined) context.print(parentLine(parent));
  if (continues !== undefined)
    context.print(`likely continues ${continues.sessionId} (a link, not a merge: \`shadowlog show ${sessionId} --record\` says why)`);
  if (subSessions.length > 0) context.print(subSessionsLine(subSessions));
  for (const node of nodes) {
    const note = isReplaceOp(node.event.surfaceOp) ? `[REPLACEMENT: ${describeRange(node.event)}]` : '';
    context.print(renderMessage(node.event, render, note));
  }
  return 0;
}

async function showRecord(
  context: CommandContext,
  sessionId: string,
  atSeq: number,
  render: RenderOptions,
  subSessions: readonly SubSession[],
  selection: RecordSelection,
): Promise<number> {
  const store = await context.store();
  const range = { toSeq: atSeq + 1 };
  const where = `the record of ${sessionId} up to event #${atSeq}`;
  // First pass: the types the record holds (to check --type against), and which replacement
  // shadowed each surface event (sources that are surface events are exactly the shadowed
  // nodes, SPEC §3).
  const types = new Map<string, number>();
  const surfaceSeqs = new Set<number>();
  const shadowedBy = new Map<number, number>();
  const needsFirstPass = !context.json || selection.kind === 'types';
  if (needsFirstPass) {
    for await (const page of store.read(sessionId, range)) {
      for (const event of page) {
        types.set(event.type, (types.get(event.type) ?? 0) + 1);
        if (context.json || !isSurfaceType(event.type)) continue;
        surfaceSeqs.add(event.seq);
        for (const source of event.sourceEventSeqs ?? []) if (surfaceSeqs.has(source)) shadowedBy.set(source, event.seq);
      }
    }
    checkTypesPresent(selection, types, where);
  }
  if (context.json) {
    // Streamed, so that a long log is never held in memory as one document.
    const chosen = selection.kind === 'types' ? `"types":${JSON.stringify(selection.types)},` : '';
    context.io.stdout.write(`{"sessionId":${JSON.stringify(sessionId)},"atSeq":${atSeq},${chosen}"events":[`);
    let first = true;
    for await (const page of store.read(sessionId, range)) {
      let chunk = '';
      for (const event of page) {
        if (!isSelected(selection, event.type)) continue;
        chunk += `${first ? '\n' : ',\n'}${canonicalJson(event)}`;
        first = false;
      }
      context.io.stdout.write(chunk);
    }
    context.io.stdout.write('\n]}\n');
    return 0;
  }
  context.print(`record of ${sessionId} up to event #${atSeq}: everything that happened, originals included`);
  const parent = await parentOf(store, sessionId);
  if (parent !== undefined) context.print(parentLine(parent));
  if (subSessions.length > 0) context.print(subSessionsLine(subSessions));
  const hidden = new HiddenEvents(selection);
  for await (const page of store.read(sessionId, range)) {
    for (const event of page) if (hidden.shows(event.type)) context.print(renderRecordEvent(event, render, shadowedBy.get(event.seq)));
  }
  const summary = hidden.summary();
  if (summary !== '') context.print(summary);
  return 0;
}

/** Registers `shadowlog show` on the program. */
export function registerShowCommand(program: Command, run: RunCommand): void {
  program
    .command('show <id>')
    .description('show what the model is shown (--surface, the default) or everything that happened (--record)')
    .addOption(new Option('--surface', 'the surface: the messages the model is sent').conflicts('record'))
    .addOption(new Option('--record', 'the record: every event, originals included, with replacements marked'))
    .option('--at <seq>', 'as of the position after event SEQ', seqArgument)
    .option('--full', 'do not shorten long messages')
    .addOption(
      new Option(
        '--type <types>',
        'with --record or --follow: only events of these types (comma-separated or repeated; compaction/* names a namespace), with --json too',
      ).argParser(collectTypes),
    )
    .addOption(
      new Option(
        '--all',
        "with --record or --follow: every event, the lines kept from another harness's files too (hidden in text by default)",
      ).conflicts('type'),
    )
    .addOption(
      new Option(
        '--follow',
        'print the record, then each new event as it lands, until Ctrl-C; with --json, one JSON event per line (JSONL), not one document',
      ).conflicts(['surface', 'at']),
    )
    .option('--from <seq>', 'with --follow: the first event to print (default 0)', seqArgument)
    .option('--max-events <n>', 'with --follow: stop after printing N events', (value) => integerArgument(value, 'a number of events', 1))
    .option('--until-seq <seq>', 'with --follow: stop once event SEQ is printed', seqArgument)
    .option('--poll-ms <ms>', 'with --follow on SQLite: how often to look for new events (default 200)', (value) =>
      integerArgument(value, 'milliseconds', 1),
    )
    .action((id: string, flags: ShowFlags) => run('read', (context) => showCommand(context, id, showOptionsOf(flags)))());
}
