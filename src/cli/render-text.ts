// Plain-text renderings of events for people: the surface, the record, single events.

import type { AssistantMessageData, ContentBlock, LogEvent, ToolResultData } from '../log/event.js';
import { isSurfaceType } from '../log/event.js';
import { isReplaceOp } from '../log/surface-op.js';

export interface RenderOptions {
  /** Longest text shown per message before it is cut with a note (0 = no limit). */
  readonly maxChars: number;
}

const ROLE: Record<string, string> = {
  'system/message': 'system',
  'user/message': 'user',
  'assistant/message': 'assistant',
  'tool/result': 'tool',
};

export function contentText(blocks: readonly ContentBlock[], options: RenderOptions): string {
  const text = blocks
    .map((block) => (block.type === 'text' ? block.text : `[image ${block.mediaType}, ${block.data.length} base64 chars]`))
    .join('\n');
  if (options.maxChars <= 0 || text.length <= options.maxChars) return text;
  return `${text.slice(0, options.maxChars)}… [${text.length - options.maxChars} more characters; --full shows all]`;
}

function indent(text: string, prefix = '    '): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

/** A message event as a heading line and its indented text. */
export function renderMessage(event: LogEvent, options: RenderOptions, note = ''): string {
  const data = event.data as unknown as { content: ContentBlock[] };
  let heading = `#${event.seq} ${ROLE[event.type] ?? event.type}`;
  if (event.type === 'tool/result') {
    const result = event.data as unknown as ToolResultData;
    heading += ` (${result.callId})${result.error === undefined ? '' : ` error: ${result.error.message}`}`;
  }
  if (note !== '') heading += `  ${note}`;
  const lines = [heading];
  const body = contentText(data.content, options);
  if (body !== '') lines.push(indent(body));
  if (event.type === 'assistant/message') {
    for (const call of (event.data as unknown as AssistantMessageData).toolCalls) {
      // The arguments as the model wrote them, when the log kept that text (not JSON, or not canonical).
      const args = call.argumentsText ?? JSON.stringify(call.arguments);
      const ids =
        call.providerCallId === undefined ? call.callId : `${call.callId}, sent by the provider as ${JSON.stringify(call.providerCallId)}`;
      lines.push(indent(`→ calls ${call.name}(${args}) [${ids}]`));
    }
  }
  return lines.join('\n');
}

/** One line for an event that is not a message. */
export function renderLogOnlyEvent(event: LogEvent): string {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'session/start':
      return `#${event.seq} ── session started (format ${String(data.formatVersion)}, shadowlog ${String(data.harnessVersion)}) at ${event.time}`;
    case 'session/end-seed':
      return `#${event.seq} ── new lifecycle: ${String(data.reason)}`;
    case 'turn/start':
      return `#${event.seq} ── turn ${String(data.turn)} starts`;
    case 'turn/end':
      return `#${event.seq} ── turn ${String(data.turn)} ends: ${String(data.reason)}`;
    case 'model/request':
      return `#${event.seq} ·· model request, turn ${String(data.turn)} step ${String(data.step)}: ${String(data.provider)}/${String(data.model)}, ${(data.surfaceSeqs as unknown[]).length} surface nodes, ~${String(data.estimatedTokens)} tokens`;
    case 'model/error':
      return `#${event.seq} !! model error, turn ${String(data.turn)} step ${String(data.step)}: ${String(data.code)}: ${String(data.message)}`;
    case 'model/unrecorded-answer': {
      const raw = data.raw as { format?: string; text?: string } | undefined;
      return `#${event.seq} !! answer kept as it arrived, turn ${String(data.turn)} step ${String(data.step)} (it could not be recorded as a message): ${String(data.code)}: ${String(data.message)}; ${String(raw?.text?.length ?? 0)} characters of ${String(raw?.format ?? 'raw')} below\n    ${String(raw?.text ?? '').slice(0, 600)}`;
    }
    case 'compaction/start':
      return `#${event.seq} ── compaction ${shortId(data.compactionId)} starts (trigger: ${String(data.trigger)}${data.turn === null ? '' : `, turn ${String(data.turn)}`}); the lock is taken`;
    case 'compaction/summary': {
      const usage = data.usage as { inputTokens: number; outputTokens: number } | null | undefined;
      const cost = usage === null || usage === undefined ? 'no model call' : `${usage.inputTokens} in / ${usage.outputTokens} out tokens`;
      return `#${event.seq} ── compaction ${shortId(data.compactionId)} (${String(data.trigger ?? 'unknown trigger')}): surface ${String(data.tokensBefore ?? '?')} → ${String(data.tokensAfter ?? '?')} tokens; ${(data.shadowedSeqs as unknown[]).length} nodes (${String(data.shadowedTokenCount)} tokens) summarized by ${String(data.provider)}/${String(data.model)} (${String(data.summarizer ?? 'model')}, ${cost}, ${String(data.durationMs ?? '?')} ms)`;
    }
    case 'compaction/prune':
      return `#${event.seq} ── pruned tool result #${String((data.shadowedSeqs as unknown[])[0])}: ${String(data.charsBefore)} → ${String(data.charsAfter)} characters (${String(data.shadowedTokenCount)} → ${String(data.replacementTokenCount ?? '?')} tokens)${data.unseen === true ? '; before its first send: the model never saw it whole' : ''}`;
    case 'compaction/end':
      return data.error === undefined
        ? `#${event.seq} ── compaction ${shortId(data.compactionId)} ends; the lock is released`
        : `#${event.seq} !! compaction ${shortId(data.compactionId)} FAILED (${String((data.error as { reason?: string }).reason ?? 'error')}): ${String((data.error as { message?: string }).message)}; the surface is unchanged`;
    case 'compaction/over-threshold':
      return `#${event.seq} !! still over the threshold after compacting: ${String(data.tokens)} ≥ ${String(data.threshold)} tokens; the turn went on with the full surface`;
    default:
      return `#${event.seq} ·· ${event.type} ${JSON.stringify(event.data).slice(0, 160)}`;
  }
}

export function describeRange(event: LogEvent): string {
  if (!isReplaceOp(event.surfaceOp)) return '';
  const sources = event.sourceEventSeqs ?? [];
  const { startSeq, endSeq } = event.surfaceOp;
  const range = startSeq === endSeq ? `#${startSeq}` : `#${startSeq}–#${endSeq}`;
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

function shortId(value: unknown): string {
  return String(value).slice(0, 8);
}
