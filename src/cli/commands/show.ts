// `shadowlog show <id> [--surface|--record] [--at SEQ] [--follow]`: one of the two projections,
// or the record as it grows (follow.ts).

import { canonicalJson } from '../../log/canonical-json.js';
import { SeqOutOfRangeError, SessionNotFoundError } from '../../log/errors.js';
import { isSurfaceType, type SessionParent } from '../../log/event.js';
import { dataOf } from '../../log/event-data.js';
import { assertSessionId } from '../../log/session-id.js';
import { isReplaceOp } from '../../log/surface-op.js';
import type { LogStore } from '../../store/log-store.js';
import { SessionLog } from '../../store/session-log.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';
import { describeRange, type RenderOptions, renderMessage, renderRecordEvent } from '../render-text.js';
import { UsageError } from '../usage-error.js';
import { type FollowCommandOptions, followCommand } from './follow.js';

export interface ShowOptions {
  readonly view: 'surface' | 'record';
  /** Show the projection after applying events 0..at. */
  readonly at?: number;
  readonly full?: boolean;
  /** Follow the record as it grows instead (view is then `record`). */
  readonly follow?: Omit<FollowCommandOptions, 'full'>;
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
}

export function showOptionsOf(flags: ShowFlags): ShowOptions {
  const { from, maxEvents, untilSeq, pollMs } = flags;
  const base = { ...(flags.at === undefined ? {} : { at: flags.at }), full: flags.full === true };
  if (flags.follow !== true) {
    if (from !== undefined || maxEvents !== undefined || untilSeq !== undefined || pollMs !== undefined) {
      throw new UsageError('--from, --max-events, --until-seq and --poll-ms go with --follow');
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

export async function showCommand(context: CommandContext, sessionId: string, options: ShowOptions): Promise<number> {
  assertSessionId(sessionId);
  if (options.follow !== undefined) return followCommand(context, sessionId, { ...options.follow, full: options.full === true });
  const store = await context.store();
  const head = await store.head(sessionId);
  if (head === undefined) throw new SessionNotFoundError(sessionId);
  if (options.at !== undefined && options.at >= head.nextSeq) throw new SeqOutOfRangeError(options.at, head.nextSeq);
  const atSeq = options.at ?? head.nextSeq - 1;
  const render: RenderOptions = { maxChars: options.full === true ? 0 : 600 };
  return options.view === 'surface' ? showSurface(context, sessionId, atSeq, render) : showRecord(context, sessionId, atSeq, render);
}

/** The session's parent, for a sub-session (format 2). */
async function parentOf(store: LogStore, sessionId: string): Promise<SessionParent | undefined> {
  return dataOf(await store.readEvent(sessionId, 0), 'session/start').parent;
}

/** The header line that links a sub-session to its parent. */
function parentLine(parent: SessionParent): string {
  const call = parent.callId === undefined ? '' : `, spawned by its tool call ${parent.callId}`;
  return `a sub-session of ${parent.sessionId}${call}; \`shadowlog show ${parent.sessionId}\` shows the parent`;
}

async function showSurface(context: CommandContext, sessionId: string, atSeq: number, render: RenderOptions): Promise<number> {
  const store = await context.store();
  const log = await SessionLog.open(store, sessionId, { toSeq: atSeq + 1, registry: createCliRegistry() });
  const nodes = log.fold.toArray();
  const parent = await parentOf(store, sessionId);
  if (context.json) {
    context.printJson({
      sessionId,
      atSeq,
      ...(parent === undefined ? {} : { parent }),
      nodes: nodes.map((node) => ({ seq: node.seq, type: node.type, sourceEventSeqs: node.sourceEventSeqs })),
    });
    return 0;
  }
  context.print(`surface of ${sessionId} after event #${atSeq}: ${nodes.length} nodes, what the model is shown`);
  if (parent !== undefined) context.print(parentLine(parent));
  for (const node of nodes) {
    const note = isReplaceOp(node.event.surfaceOp) ? `[REPLACEMENT: ${describeRange(node.event)}]` : '';
    context.print(renderMessage(node.event, render, note));
  }
  return 0;
}

async function showRecord(context: CommandContext, sessionId: string, atSeq: number, render: RenderOptions): Promise<number> {
  const store = await context.store();
  const range = { toSeq: atSeq + 1 };
  if (context.json) {
    // Streamed, so that a long log is never held in memory as one document.
    context.io.stdout.write(`{"sessionId":${JSON.stringify(sessionId)},"atSeq":${atSeq},"events":[`);
    let first = true;
    for await (const page of store.read(sessionId, range)) {
      let chunk = '';
      for (const event of page) {
        chunk += `${first ? '\n' : ',\n'}${canonicalJson(event)}`;
        first = false;
      }
      context.io.stdout.write(chunk);
    }
    context.io.stdout.write('\n]}\n');
    return 0;
  }
  // First pass: which replacement shadowed each surface event (sources that are surface
  // events are exactly the shadowed nodes, SPEC §3).
  const surfaceSeqs = new Set<number>();
  const shadowedBy = new Map<number, number>();
  for await (const page of store.read(sessionId, range)) {
    for (const event of page) {
      if (!isSurfaceType(event.type)) continue;
      surfaceSeqs.add(event.seq);
      for (const source of event.sourceEventSeqs ?? []) if (surfaceSeqs.has(source)) shadowedBy.set(source, event.seq);
    }
  }
  context.print(`record of ${sessionId} up to event #${atSeq}: everything that happened, originals included`);
  const parent = await parentOf(store, sessionId);
  if (parent !== undefined) context.print(parentLine(parent));
  for await (const page of store.read(sessionId, range)) {
    for (const event of page) context.print(renderRecordEvent(event, render, shadowedBy.get(event.seq)));
  }
  return 0;
}
