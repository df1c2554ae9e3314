// Plain-text renderings of events for people: the surface, the record, single events.

import {
  type ContentBlock,
  dataOf,
  inProcessRecording,
  isForeignType,
  isReplaceOp,
  isSurfaceType,
  type LogEvent,
  type ModelRequestData,
  offSurfaceReason,
  readableText,
  requestSurfaceLength,
} from '../log/index.js';
import { plural } from './plural.js';
import { clipText } from './terminal-text.js';
import { describeWhatIfLink } from './whatif-link-text.js';

export interface RenderOptions {
  /** Longest text shown per message before it is cut with a note (0 = no limit). */
  readonly maxChars: number;
  /** The sub-session a tool call spawned, by call id, for a session that has sub-sessions. */
  readonly subSessionOf?: (callId: string) => string | undefined;
}

const ROLE: Record<string, string> = {
  'system/message': 'system',
  'user/message': 'user',
  'assistant/message': 'assistant',
  'tool/result': 'tool',
};

export function contentText(blocks: readonly ContentBlock[], options: RenderOptions): string {
  // Blank lines at a part's edges are not text a person reads: a part that is only "\n\n" would
  // print as empty indented lines before the rest.
  const text = blocks
    .map((block) =>
      readableText(block)
        .replace(/^(?:[ \t]*\r?\n)+/, '')
        .replace(/(?:\r?\n[ \t]*)+$/, ''),
    )
    .filter((part) => part.trim() !== '')
    .join('\n');
  if (options.maxChars <= 0 || text.length <= options.maxChars) return text;
  return `${clipText(text, options.maxChars)}… [${text.length - options.maxChars} more characters; --full shows all]`;
}

function indent(text: string, prefix = '    '): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

/** A message event as a heading line and its indented text. */
export function renderMessage(event: LogEvent, options: RenderOptions, note = ''): string {
  let heading = `#${event.seq} ${ROLE[event.type] ?? event.type}`;
  if (event.type === 'tool/result') {
    const { callId, error } = dataOf(event, 'tool/result');
    heading += ` (${callId})${error === undefined ? '' : error === true ? ' error' : ` error: ${error.message}`}`;
  }
  const copyOf = (event.data as { copyOf?: unknown }).copyOf;
  if (typeof copyOf === 'number') heading += `  [copy of #${copyOf}]`;
  else if (typeof copyOf === 'object' && copyOf !== null) {
    const { sessionId, seq } = copyOf as { sessionId?: unknown; seq?: unknown };
    heading += `  [copy of ${String(sessionId)} #${String(seq)}]`;
  }
  const standsFor = (event.data as { standsFor?: { sessionId?: unknown; seqs?: unknown } }).standsFor;
  if (Array.isArray(standsFor?.seqs))
    heading +=
      standsFor.seqs.length === 0
        ? '  [made by the what-if]'
        : `  [made by the what-if, standing for ${plural(standsFor.seqs.length, 'message')} of ${String(standsFor.sessionId)}]`;
  if (note !== '') heading += `  ${note}`;
  const lines = [heading];
  const body = contentText(messageContent(event), options);
  if (body !== '') lines.push(indent(body));
  if (event.type === 'assistant/message') {
    for (const call of dataOf(event, 'assistant/message').toolCalls) {
      // The arguments as the model wrote them, when the log kept that text (not JSON, or not canonical).
      const args = call.argumentsText ?? JSON.stringify(call.arguments);
      const ids =
        call.providerCallId === undefined ? call.callId : `${call.callId}, sent by the provider as ${JSON.stringify(call.providerCallId)}`;
      const spawned = options.subSessionOf?.(call.callId);
      lines.push(indent(`→ calls ${call.name}(${args}) [${ids}]${spawned === undefined ? '' : `, which ran as sub-session ${spawned}`}`));
    }
  }
  return lines.join('\n');
}

function messageContent(event: LogEvent): readonly ContentBlock[] {
  switch (event.type) {
    case 'system/message':
    case 'user/message':
    case 'assistant/message':
    case 'tool/result':
      return dataOf(event, event.type).content;
    default:
      return [];
  }
}

/** The parent line of a sub-session's session/start ('' for a session that has none). */
export function describeParent(event: LogEvent): string {
  const parent = dataOf(event, 'session/start').parent;
  if (parent === undefined) return '';
  return `a sub-session of ${parent.sessionId}${parent.callId === undefined ? '' : `, spawned by its tool call ${parent.callId}`}`;
}

/** One line for an event that is not a message. */
export function renderLogOnlyEvent(event: LogEvent): string {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'session/start': {
      const start = dataOf(event, 'session/start');
      const parent = describeParent(event);
      const continues = start.continues === undefined ? '' : `; likely continues ${start.continues.sessionId}: ${start.continues.reason}`;
      const whatif = start.whatif === undefined ? '' : `; ${describeWhatIfLink(start.whatif)}`;
      return `#${event.seq} ── session started (format ${start.formatVersion}, shadowlog ${start.harnessVersion}) at ${event.time}${parent === '' ? '' : `; ${parent}`}${continues}${whatif}`;
    }
    case 'session/end-seed':
      return `#${event.seq} ── new lifecycle: ${dataOf(event, 'session/end-seed').reason}`;
    case 'session/fork': {
      const fork = dataOf(event, 'session/fork');
      return `#${event.seq} ── branch of ${fork.parentSessionId} after its event #${fork.forkSeq}: events 0–${fork.forkSeq} above are ${fork.parentSessionId}'s, the rest this branch's own`;
    }
    case 'turn/start':
      return `#${event.seq} ── turn ${dataOf(event, 'turn/start').turn} starts`;
    case 'turn/end': {
      const end = dataOf(event, 'turn/end');
      return `#${event.seq} ── turn ${end.turn} ends: ${end.reason}`;
    }
    case 'model/request':
      return `#${event.seq} ·· ${describeRequest(dataOf(event, 'model/request'))}`;
    case 'model/error': {
      const error = dataOf(event, 'model/error');
      return `#${event.seq} !! model error, turn ${error.turn} step ${error.step}: ${error.code}: ${error.message}`;
    }
    case 'model/unrecorded-answer': {
      const answer = dataOf(event, 'model/unrecorded-answer');
      return `#${event.seq} !! answer kept as it arrived, turn ${answer.turn} step ${answer.step} (it could not be recorded as a message): ${answer.code}: ${answer.message}; ${answer.raw.text.length} characters of ${answer.raw.format} below\n    ${clipText(answer.raw.text, 600)}`;
    }
    case 'compaction/start':
      if (data.provenance === 'imported') return describeImportedStart(event.seq, data);
      return `#${event.seq} ── compaction ${shortId(data.compactionId)} starts (trigger: ${String(data.trigger)}${data.turn === null ? '' : `, turn ${String(data.turn)}`}${data.policySeq === undefined ? '' : `, policy #${String(data.policySeq)}`}); the lock is taken`;
    case 'compaction/policy':
      return `#${event.seq} ── compaction policy for ${String(data.provider)}/${String(data.model)}: ${describePolicy(data)}`;
    case 'compaction/summary': {
      if (data.provenance === 'imported') return describeImportedSummary(event.seq, data);
      const usage = data.usage as { inputTokens: number; outputTokens: number } | null | undefined;
      const cost = usage === null || usage === undefined ? 'no model call' : `${usage.inputTokens} in / ${usage.outputTokens} out tokens`;
      return `#${event.seq} ── compaction ${shortId(data.compactionId)} (${String(data.trigger ?? 'unknown trigger')}): surface ${String(data.tokensBefore ?? '?')} → ${String(data.tokensAfter ?? '?')} tokens; ${(data.shadowedSeqs as unknown[]).length} nodes (${String(data.shadowedTokenCount)} tokens) summarized by ${String(data.provider)}/${String(data.model)} (${String(data.summarizer ?? 'model')}, ${cost}, ${String(data.durationMs ?? '?')} ms)`;
    }
    case 'compaction/prune':
      return `#${event.seq} ── pruned tool result #${String((data.shadowedSeqs as unknown[])[0])}: ${String(data.charsBefore)} → ${String(data.charsAfter)} characters (${String(data.shadowedTokenCount)} → ${String(data.replacementTokenCount ?? '?')} tokens)${data.unseen === true ? '; before its first send: the model never saw it whole' : ''}`;
    case 'compaction/mask':
      return `#${event.seq} ── compaction ${shortId(data.compactionId)} masked tool result #${String((data.shadowedSeqs as unknown[])[0])} (${String(data.tool)}, ${String(data.chars)} characters): ${String(data.shadowedTokenCount)} → ${String(data.replacementTokenCount)} tokens`;
    case 'compaction/end':
      return data.error === undefined
        ? `#${event.seq} ── compaction ${shortId(data.compactionId)} ends; the lock is released`
        : `#${event.seq} !! compaction ${shortId(data.compactionId)} FAILED (${String((data.error as { reason?: string }).reason ?? 'error')}): ${String((data.error as { message?: string }).message)}; the surface is unchanged`;
    case 'compaction/over-threshold':
      return `#${event.seq} !! still over the threshold after compacting: ${String(data.tokens)} ≥ ${String(data.threshold)} tokens; the turn went on with the full surface`;
    default:
      if (isForeignType(event.type) && typeof data.text === 'string') return renderForeignEvent(event, data.text, data.line);
      return `#${event.seq} ·· ${event.type} ${clipText(JSON.stringify(event.data), 160)}`;
  }
}

/** The start of a compaction another harness made, as the import recorded it. */
function describeImportedStart(seq: number, data: Record<string, unknown>): string {
  const trigger =
    data.sourceTrigger === null || data.sourceTrigger === undefined
      ? 'not recorded by the source'
      : `${String(data.sourceTrigger)} in the source`;
  return `#${seq} ── compaction ${shortId(data.compactionId)} imported (trigger: ${String(data.trigger)}, ${trigger}${data.turn === null ? '' : `, turn ${String(data.turn)}`})`;
}

/** A compaction another harness made: who summarized, what the source counted, and that nothing of it can be byte-verified. */
function describeImportedSummary(seq: number, data: Record<string, unknown>): string {
  const usage = data.usage as { inputTokens: number; outputTokens: number } | null | undefined;
  const cost =
    usage === null || usage === undefined
      ? 'its cost not recorded'
      : `${grouped(usage.inputTokens)} in / ${plural(usage.outputTokens, 'out token', separators)}`;
  const counted =
    typeof data.sourceTokensBefore === 'number'
      ? `; the source counted ${plural(data.sourceTokensBefore, 'token', separators)} before it`
      : '';
  const transcript = typeof data.summarizerSessionId === 'string' ? `; its transcript is sub-session ${data.summarizerSessionId}` : '';
  const after = typeof data.summaryTokens === 'number' ? plural(data.summaryTokens, 'token', separators) : 'an unrecorded number of tokens';
  return `#${seq} ── compaction ${shortId(data.compactionId)} imported from ${String(data.source ?? 'another harness')}: ${plural((data.shadowedSeqs as unknown[]).length, 'node', separators)} (${grouped(data.shadowedTokenCount)} tokens by shadowlog's meter) → ${after}${counted}; summarized by ${String(data.provider)}/${String(data.model)} in that harness (${cost})${transcript}; not byte-verifiable, no request of it went through shadowlog`;
}

const separators = { separators: true } as const;

/** A figure of the record with its thousands separators (a missing one as the record has it). */
function grouped(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
}

function describeRequest(request: ModelRequestData): string {
  const nodes = requestSurfaceLength(request);
  const change = request.surfaceChange;
  const changed =
    change === undefined
      ? ''
      : ` (${change.splices.reduce((sum, splice) => sum + splice.length - 2, 0)} new since #${change.base}, ${change.splices.reduce((sum, splice) => sum + splice[1], 0)} gone)`;
  const estimate = request.estimatedTokens === undefined ? '' : `, ~${request.estimatedTokens} tokens`;
  const inProcess = inProcessRecording(request);
  const origin =
    inProcess !== undefined
      ? `, recorded in process by ${inProcess.by}${inProcess.bytes === 'captured' ? '' : ' (bytes not captured)'}`
      : request.provenance === 'imported'
        ? ', imported (not sent by shadowlog)'
        : request.provenance === 'proxied'
          ? ', received by the proxy'
          : '';
  const offSurface = offSurfaceReason(request);
  if (offSurface !== undefined) {
    // The surface it records is the session's, not what it sent: say so instead of counting it.
    return `model request, turn ${request.turn} step ${request.step}: ${request.provider}/${request.model}${origin}, NOT ON THE SESSION'S SURFACE: ${offSurface} (\`replay\` lists what its body held)`;
  }
  return `model request, turn ${request.turn} step ${request.step}: ${request.provider}/${request.model}, ${plural(nodes, 'surface node')}${changed}${estimate}${origin}`;
}

/** A foreign line, compactly: its type, where it was in the source, and its start. */
function renderForeignEvent(event: LogEvent, text: string, line: unknown): string {
  const where = typeof line === 'number' ? `line ${line}, ` : '';
  const shown = text.length > 120 ? `${clipText(text, 120)}…` : text;
  return `#${event.seq} ·· ${event.type} (${where}${text.length} characters, kept from the source): ${shown}`;
}

export function describeRange(event: LogEvent): string {
  if (!isReplaceOp(event.surfaceOp)) return '';
  const sources = event.sourceEventSeqs ?? [];
  const { startSeq, endSeq } = event.surfaceOp;
  // A range is named by its first and last node on the surface; when the first is an earlier
  // replacement its seq is the higher one, which "#83–#80" would make look reversed.
  const range =
    startSeq === endSeq
      ? `#${startSeq}`
      : startSeq < endSeq
        ? `#${startSeq}–#${endSeq}`
        : `#${startSeq} (first on the surface) to #${endSeq}`;
  return `replaces ${range} (sources ${sources.map((seq) => `#${seq}`).join(' ')})`;
}

/** The record as a transcript: every event in order, replacements marked where they landed. */
export function renderRecordEvent(event: LogEvent, options: RenderOptions, shadowedBy: number | undefined): string {
  if (!isSurfaceType(event.type)) return renderLogOnlyEvent(event);
  if (isReplaceOp(event.surfaceOp)) {
    const kind = event.type === 'tool/result' ? 'PRUNED' : 'COMPACTED';
    const marker = `#${event.seq} ══ ${kind}: ${describeRange(event)} ══`;
    return `${marker}\n${renderMessage(event, options, shadowedBy === undefined ? '' : `[later shadowed by #${shadowedBy}]`)}`;
  }
  return renderMessage(event, options, shadowedBy === undefined ? '' : `[shadowed by #${shadowedBy}]`);
}

/** The resolved numbers of a compaction/policy event, in one line. */
export function describePolicy(data: Record<string, unknown>): string {
  const config = (data.config ?? {}) as Record<string, unknown>;
  const ratio =
    config.thresholdRatio === undefined ? '' : ` (ratio ${String(config.thresholdRatio)}, headroom ${String(config.headroomTokens)})`;
  const tokens = (value: unknown) => (typeof value === 'number' ? value.toLocaleString('en-US') : String(value));
  return `window ${tokens(data.contextWindow)}, reserve ${tokens(data.reserve)}, fixed part ${tokens(data.fixedTokens)} tokens → threshold ${tokens(data.threshold)} set by the ${String(data.decidedBy)} term${ratio}, retained tail ${tokens(data.retain)}; estimator ${String(data.estimator)}`;
}

function shortId(value: unknown): string {
  return String(value).slice(0, 8);
}
