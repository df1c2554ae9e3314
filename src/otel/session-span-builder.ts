// Turns a session's events, in seq order, into spans as the operations they record end: a root
// `invoke_agent` span per session lifecycle, a span per turn, a `chat` span per model call, an
// `execute_tool` span per tool call, and a span per compaction and per prune or mask. It holds only
// what is still open (the lifecycle, its turn, the call in flight, tool calls without results,
// compactions without their end) and, with content, the messages of the latest surface; so a
// session of any length is read once, a page at a time, in bounded memory.

import { type AssistantMessageData, dataOf, type JsonObject, type LogEvent, RequestSurfaceDecoder } from '../log/index.js';
import { boundedJson, capString, type GenAiMessage, partsOfBlocks, partsOfToolCalls } from './genai-content.js';
import { genAiProviderName, jsonAttribute, openInferenceAttributes, requestAttributes, usageAttributes } from './span-attributes.js';
import { spanIdOf, traceIdOf } from './span-ids.js';
import type { SessionSpan, SessionSpanKind, SpanAttributes } from './span-types.js';

/** The default bound of one content attribute, in UTF-8 bytes. */
export const DEFAULT_CONTENT_MAX_BYTES = 65_536;

export interface SpanBuilderOptions {
  /** Add the GenAI content attributes (message text, tool arguments and results). Default false. */
  readonly content?: boolean;
  /** The bound of each content attribute, in UTF-8 bytes (default 65,536). */
  readonly contentMaxBytes?: number;
  /** Add the OpenInference attributes (Arize Phoenix). Default false. */
  readonly openInference?: boolean;
  /** Give only the spans that end at or after this seq (the others were sent by an earlier export). Default 0. */
  readonly sinceSeq?: number;
}

interface OpenSpan {
  readonly kind: SessionSpanKind;
  readonly name: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly startSeq: number;
  readonly startTime: string;
  attributes: SpanAttributes;
}

interface Lifecycle extends OpenSpan {
  readonly traceId: string;
  lastSeq: number;
  lastTime: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  provider?: string;
}

interface OpenCall extends OpenSpan {
  readonly params: JsonObject | undefined;
  readonly surfaceSeqs: readonly number[] | undefined;
}

const LIFECYCLE_TYPES = new Set(['session/start', 'session/end-seed', 'session/fork']);
const AGENT_NAME = 'shadowlog';

export class SessionSpanBuilder {
  private readonly sessionId: string;
  private readonly content: boolean;
  private readonly contentMaxBytes: number;
  private readonly openInference: boolean;
  private readonly sinceSeq: number;
  private lifecycle: Lifecycle | undefined;
  private turn: OpenSpan | undefined;
  private call: OpenCall | undefined;
  private readonly tools = new Map<string, OpenSpan>();
  private readonly compactions = new Map<string, OpenSpan>();
  private readonly decoder = new RequestSurfaceDecoder();
  /** With content: the surface-type events a later request may still send, by seq. */
  private readonly messages = new Map<number, LogEvent>();
  /** The seqs of replacement nodes (summaries, pruned results): a request whose surface holds one was sent a compacted view. */
  private readonly replacements = new Set<number>();
  private lastSeq = -1;

  constructor(sessionId: string, options: SpanBuilderOptions = {}) {
    this.sessionId = sessionId;
    this.content = options.content === true;
    this.contentMaxBytes = options.contentMaxBytes ?? DEFAULT_CONTENT_MAX_BYTES;
    this.openInference = options.openInference === true;
    this.sinceSeq = options.sinceSeq ?? 0;
  }

  /** The seq of the last event accepted, or -1. */
  get lastAcceptedSeq(): number {
    return this.lastSeq;
  }

  /** Takes the next event (seqs in order, none skipped); returns the spans it ended. */
  accept(event: LogEvent): SessionSpan[] {
    if (event.seq !== this.lastSeq + 1) {
      throw new RangeError(`the span builder of ${this.sessionId} expected seq ${this.lastSeq + 1}, found ${event.seq}`);
    }
    this.lastSeq = event.seq;
    const ended: SessionSpan[] = [];
    if (LIFECYCLE_TYPES.has(event.type) || this.lifecycle === undefined) {
      if (this.lifecycle !== undefined)
        ended.push(...this.closeLifecycle(event.type === 'session/end-seed' ? endSeedReason(event) : event.type));
      this.lifecycle = this.openLifecycle(event);
    }
    const lifecycle = this.lifecycle;
    lifecycle.lastSeq = event.seq;
    lifecycle.lastTime = event.time;
    if (typeof event.surfaceOp === 'object') this.replacements.add(event.seq);
    this.handle(event, lifecycle, ended);
    return ended.filter((span) => span.endSeq >= this.sinceSeq);
  }

  /** Ends what is still open at the last event (the lifecycle, an unfinished turn); returns those spans. */
  finish(): SessionSpan[] {
    if (this.lifecycle === undefined) return [];
    const ended = this.closeLifecycle(undefined);
    this.lifecycle = undefined;
    return ended.filter((span) => span.endSeq >= this.sinceSeq);
  }

  private openLifecycle(event: LogEvent): Lifecycle {
    const traceId = traceIdOf(this.sessionId, event.seq);
    const attributes: SpanAttributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': AGENT_NAME,
      'gen_ai.conversation.id': this.sessionId,
      'shadowlog.session.id': this.sessionId,
      'shadowlog.lifecycle.start_event': event.type,
    };
    if (typeof event.data.harnessVersion === 'string') attributes['shadowlog.harness.version'] = event.data.harnessVersion;
    // A sub-session names the session (and the tool call) that spawned it; a branch its parent.
    const parent = event.data.parent ?? event.data.parentSessionId;
    if (typeof parent === 'string') attributes['shadowlog.session.parent_id'] = parent;
    else if (typeof parent === 'object' && parent !== null && !Array.isArray(parent)) {
      copyFields(parent, attributes, { sessionId: 'shadowlog.session.parent_id', callId: 'shadowlog.session.parent_call_id' });
    }
    if (typeof event.data.forkSeq === 'number') attributes['shadowlog.session.fork_seq'] = event.data.forkSeq;
    return {
      kind: 'invoke_agent',
      name: `invoke_agent ${AGENT_NAME}`,
      traceId,
      spanId: spanIdOf(this.sessionId, 'invoke_agent', event.seq),
      parentSpanId: undefined,
      startSeq: event.seq,
      startTime: event.time,
      attributes,
      lastSeq: event.seq,
      lastTime: event.time,
      calls: 0,
      inputTokens: 0,
      outputTokens: 0,
    };
  }

  private parentOf(lifecycle: Lifecycle): string {
    return this.turn?.spanId ?? lifecycle.spanId;
  }

  private open(
    kind: SessionSpanKind,
    name: string,
    event: LogEvent,
    parentSpanId: string,
    attributes: SpanAttributes,
    callId?: string,
  ): OpenSpan {
    return {
      kind,
      name,
      spanId: spanIdOf(this.sessionId, kind, event.seq, callId),
      parentSpanId,
      startSeq: event.seq,
      startTime: event.time,
      attributes,
    };
  }

  private end(
    span: OpenSpan,
    endSeq: number,
    endTime: string,
    extra: SpanAttributes = {},
    error?: string,
    params?: JsonObject,
  ): SessionSpan {
    const lifecycle = this.lifecycle as Lifecycle;
    let attributes: SpanAttributes = {
      ...span.attributes,
      ...extra,
      'gen_ai.conversation.id': this.sessionId,
      'shadowlog.seq.start': span.startSeq,
      'shadowlog.seq.end': endSeq,
    };
    if (this.openInference) attributes = { ...attributes, ...openInferenceAttributes(span.kind, this.sessionId, attributes, params) };
    return {
      kind: span.kind,
      name: span.name,
      traceId: lifecycle.traceId,
      spanId: span.spanId,
      ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
      startTime: span.startTime,
      endTime,
      attributes,
      ...(error === undefined ? {} : { error: { message: error } }),
      endSeq,
    };
  }

  private handle(event: LogEvent, lifecycle: Lifecycle, ended: SessionSpan[]): void {
    switch (event.type) {
      case 'turn/start': {
        if (this.turn !== undefined) ended.push(this.endUnfinished(this.turn, 'a new turn began'));
        const turn = dataOf(event, 'turn/start').turn;
        this.turn = this.open('turn', `turn ${turn}`, event, lifecycle.spanId, { 'shadowlog.turn': turn });
        return;
      }
      case 'turn/end': {
        if (this.turn === undefined) return;
        const { reason } = dataOf(event, 'turn/end');
        const turn = this.turn;
        this.turn = undefined;
        ended.push(
          this.end(
            turn,
            event.seq,
            event.time,
            { 'shadowlog.turn.end_reason': reason },
            reason === 'error' ? 'the turn ended with an error' : undefined,
          ),
        );
        return;
      }
      case 'model/request': {
        if (this.call !== undefined) ended.push(this.endCall(event, {}, 'no answer was recorded before the next request'));
        const data = dataOf(event, 'model/request');
        const surfaceSeqs = this.decoder.decode(event);
        const attributes = requestAttributes(data);
        attributes['gen_ai.conversation.compacted'] = this.replacements.size > 0 && surfaceSeqs.some((seq) => this.replacements.has(seq));
        this.call = {
          ...this.open('chat', `chat ${data.model}`, event, this.parentOf(lifecycle), attributes),
          params: data.params,
          surfaceSeqs: this.content ? surfaceSeqs : undefined,
        };
        lifecycle.calls += 1;
        lifecycle.provider ??= data.provider;
        if (this.content) this.keepOnly(surfaceSeqs, event.seq);
        return;
      }
      case 'assistant/message': {
        const data = dataOf(event, 'assistant/message');
        this.keepMessage(event);
        // A replacement written by a compaction is not an answer.
        if (event.surfaceOp !== 'append') return;
        if (this.call !== undefined) ended.push(this.endCall(event, this.answerAttributes(event, data), undefined));
        if (data.usage !== undefined) {
          lifecycle.inputTokens += data.usage.inputTokens;
          lifecycle.outputTokens += data.usage.outputTokens;
        }
        for (const call of data.toolCalls) {
          const attributes: SpanAttributes = {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': call.name,
            'gen_ai.tool.call.id': call.callId,
            'gen_ai.tool.type': 'function',
            'shadowlog.tool.call_seq': event.seq,
          };
          if (this.content) attributes['gen_ai.tool.call.arguments'] = this.bounded(jsonAttribute(call.arguments), attributes);
          this.tools.set(
            call.callId,
            this.open('execute_tool', `execute_tool ${call.name}`, event, this.parentOf(lifecycle), attributes, call.callId),
          );
        }
        return;
      }
      case 'model/error': {
        const data = dataOf(event, 'model/error');
        if (this.call !== undefined)
          ended.push(this.endCall(event, { 'error.type': data.code, 'shadowlog.error.retryable': data.retryable }, data.message));
        return;
      }
      case 'model/unrecorded-answer': {
        const data = dataOf(event, 'model/unrecorded-answer');
        if (this.call !== undefined) {
          ended.push(
            this.endCall(
              event,
              { ...usageAttributes(data.usage), 'error.type': data.code },
              `the answer was kept as it arrived, not recorded as a message: ${data.message}`,
            ),
          );
        }
        return;
      }
      case 'tool/result': {
        this.keepMessage(event);
        if (event.surfaceOp !== 'append') return;
        const data = dataOf(event, 'tool/result');
        const tool = this.tools.get(data.callId);
        if (tool === undefined) return;
        this.tools.delete(data.callId);
        const extra: SpanAttributes = { 'shadowlog.tool.result_seq': event.seq };
        if (data.error !== undefined) extra['error.type'] = 'tool_error';
        if (this.content) {
          const parts = partsOfBlocks(data.content);
          extra['gen_ai.tool.call.result'] = this.bounded(JSON.stringify(parts), extra, parts);
        }
        const message =
          data.error === undefined ? undefined : this.content && data.error !== true ? data.error.message : 'the tool reported an error';
        ended.push(this.end(tool, event.seq, event.time, extra, message));
        return;
      }
      case 'system/message':
      case 'user/message':
        this.keepMessage(event);
        return;
      case 'compaction/start': {
        const id = stringField(event.data, 'compactionId') ?? String(event.seq);
        const attributes: SpanAttributes = { 'shadowlog.compaction.id': id };
        copyFields(event.data, attributes, {
          trigger: 'shadowlog.compaction.trigger',
          strategy: 'shadowlog.compaction.strategy',
          turn: 'shadowlog.turn',
        });
        const strategy = stringField(event.data, 'strategy') ?? 'summary';
        this.compactions.set(id, this.open('compaction', `compaction ${strategy}`, event, this.parentOf(lifecycle), attributes));
        return;
      }
      case 'compaction/summary': {
        const open = this.compactions.get(stringField(event.data, 'compactionId') ?? '');
        if (open === undefined) return;
        const attributes = { ...open.attributes, 'shadowlog.compaction.summary_seq': event.seq };
        copyFields(event.data, attributes, {
          shadowedSeqs: 'shadowlog.compaction.shadowed_seqs',
          shadowedTokenCount: 'shadowlog.compaction.shadowed_tokens',
          tokensBefore: 'shadowlog.compaction.tokens_before',
          tokensAfter: 'shadowlog.compaction.tokens_after',
          summaryTokens: 'shadowlog.compaction.summary_tokens',
          provider: 'shadowlog.compaction.summarizer.provider',
          model: 'shadowlog.compaction.summarizer.model',
          requestDigest: 'shadowlog.compaction.request_digest',
          strategy: 'shadowlog.compaction.strategy',
        });
        const usage = event.data.usage;
        if (typeof usage === 'object' && usage !== null && !Array.isArray(usage)) {
          copyFields(usage, attributes, { inputTokens: 'gen_ai.usage.input_tokens', outputTokens: 'gen_ai.usage.output_tokens' });
        }
        open.attributes = attributes;
        return;
      }
      case 'compaction/end': {
        const id = stringField(event.data, 'compactionId') ?? '';
        const open = this.compactions.get(id);
        if (open === undefined) return;
        this.compactions.delete(id);
        const error = event.data.error;
        const message = error === undefined ? undefined : typeof error === 'string' ? error : jsonAttribute(error);
        ended.push(this.end(open, event.seq, event.time, message === undefined ? {} : { 'error.type': 'compaction_failed' }, message));
        return;
      }
      case 'compaction/prune':
      case 'compaction/mask': {
        const what = event.type === 'compaction/prune' ? 'prune' : 'mask';
        const attributes: SpanAttributes = { 'shadowlog.prune.kind': what };
        copyFields(event.data, attributes, {
          shadowedSeqs: 'shadowlog.prune.shadowed_seqs',
          shadowedTokenCount: 'shadowlog.prune.tokens_before',
          replacementTokenCount: 'shadowlog.prune.tokens_after',
          charsBefore: 'shadowlog.prune.chars_before',
          charsAfter: 'shadowlog.prune.chars_after',
          unseen: 'shadowlog.prune.unseen',
        });
        ended.push(this.end(this.open('prune', what, event, this.parentOf(lifecycle), attributes), event.seq, event.time));
        return;
      }
      default:
        return;
    }
  }

  private answerAttributes(event: LogEvent, data: AssistantMessageData): SpanAttributes {
    const attributes: SpanAttributes = {
      ...usageAttributes(data.usage),
      'gen_ai.response.model': data.model,
      'shadowlog.answer.seq': event.seq,
    };
    const extra = data as AssistantMessageData & { responseId?: unknown; finishReason?: unknown };
    if (typeof extra.responseId === 'string') attributes['gen_ai.response.id'] = extra.responseId;
    if (typeof extra.finishReason === 'string') attributes['gen_ai.response.finish_reasons'] = [genAiFinishReason(extra.finishReason)];
    if (this.content && this.call !== undefined) this.addContent(this.call, data, attributes);
    return attributes;
  }

  private addContent(call: OpenCall, data: AssistantMessageData, attributes: SpanAttributes): void {
    const extra = data as AssistantMessageData & { finishReason?: unknown };
    const input: GenAiMessage[] = [];
    const system: unknown[] = [];
    (call.surfaceSeqs ?? []).forEach((seq, position) => {
      const message = this.messages.get(seq);
      if (message === undefined) return;
      const converted = messageOf(message);
      if (position === 0 && converted.role === 'system') system.push(...converted.parts);
      else input.push(converted);
    });
    const output: GenAiMessage = {
      role: 'assistant',
      parts: [...partsOfBlocks(data.content), ...partsOfToolCalls(data.toolCalls)],
      ...(typeof extra.finishReason === 'string' ? { finish_reason: genAiFinishReason(extra.finishReason) } : {}),
    };
    if (system.length > 0) attributes['gen_ai.system_instructions'] = this.bounded(JSON.stringify(system), attributes, system);
    attributes['gen_ai.input.messages'] = this.bounded(JSON.stringify(input), attributes, input);
    attributes['gen_ai.output.messages'] = this.bounded(JSON.stringify([output]), attributes, [output]);
    if (this.openInference) {
      attributes['input.value'] = attributes['gen_ai.input.messages'] as string;
      attributes['input.mime_type'] = 'application/json';
      attributes['output.value'] = attributes['gen_ai.output.messages'] as string;
      attributes['output.mime_type'] = 'application/json';
      input.forEach((message, index) => {
        attributes[`llm.input_messages.${index}.message.role`] = message.role;
        attributes[`llm.input_messages.${index}.message.content`] = this.bounded(textOf(message), attributes);
      });
      attributes['llm.output_messages.0.message.role'] = 'assistant';
      attributes['llm.output_messages.0.message.content'] = this.bounded(textOf(output), attributes);
    }
  }

  /** A content value within the byte bound; marks the span when it was cut. */
  private bounded(json: string, attributes: SpanAttributes, list?: readonly unknown[]): string {
    if (Buffer.byteLength(json) <= this.contentMaxBytes) return json;
    attributes['shadowlog.content.truncated'] = true;
    if (list !== undefined) return boundedJson(list, this.contentMaxBytes).json;
    // A single value (tool arguments, a result, a message's text) is cut as text, its marker within the bound.
    return capString(json, Math.max(0, this.contentMaxBytes - 48));
  }

  private endCall(event: LogEvent, extra: SpanAttributes, error: string | undefined): SessionSpan {
    const call = this.call as OpenCall;
    this.call = undefined;
    return this.end(call, event.seq, event.time, extra, error, call.params);
  }

  private endUnfinished(span: OpenSpan, why: string): SessionSpan {
    const lifecycle = this.lifecycle as Lifecycle;
    return this.end(span, lifecycle.lastSeq, lifecycle.lastTime, { 'shadowlog.unfinished': why });
  }

  private closeLifecycle(reason: string | undefined): SessionSpan[] {
    const lifecycle = this.lifecycle as Lifecycle;
    const ended: SessionSpan[] = [];
    const why = reason === undefined ? 'open at the end of the log' : `the lifecycle ended (${reason})`;
    if (this.call !== undefined) {
      const call = this.call;
      this.call = undefined;
      ended.push(this.end(call, lifecycle.lastSeq, lifecycle.lastTime, { 'shadowlog.unfinished': why }, undefined, call.params));
    }
    for (const tool of this.tools.values()) ended.push(this.endUnfinished(tool, why));
    this.tools.clear();
    for (const compaction of this.compactions.values()) ended.push(this.endUnfinished(compaction, why));
    this.compactions.clear();
    if (this.turn !== undefined) ended.push(this.endUnfinished(this.turn, why));
    this.turn = undefined;
    const attributes: SpanAttributes = {
      'shadowlog.calls': lifecycle.calls,
      'gen_ai.usage.input_tokens': lifecycle.inputTokens,
      'gen_ai.usage.output_tokens': lifecycle.outputTokens,
      ...(reason === undefined ? {} : { 'shadowlog.lifecycle.end_reason': reason }),
    };
    if (lifecycle.provider !== undefined) attributes['gen_ai.provider.name'] = genAiProviderName(lifecycle.provider);
    ended.push(this.end(lifecycle, lifecycle.lastSeq, lifecycle.lastTime, attributes));
    return ended;
  }

  /** With content: keeps a surface-type event a later request may send. */
  private keepMessage(event: LogEvent): void {
    if (this.content) this.messages.set(event.seq, event);
  }

  /** With content: forgets the messages no later request can send (neither on this request's surface nor after it). */
  private keepOnly(surfaceSeqs: readonly number[], requestSeq: number): void {
    const keep = new Set(surfaceSeqs);
    for (const seq of this.messages.keys()) if (seq < requestSeq && !keep.has(seq)) this.messages.delete(seq);
  }
}

/** shadowlog's finish reason (tool-calls, content-filter, …) in the conventions' spelling (tool_call, content_filter, …). */
function genAiFinishReason(reason: string): string {
  return reason === 'tool-calls' ? 'tool_call' : reason.replaceAll('-', '_');
}

function endSeedReason(event: LogEvent): string {
  return `session/end-seed: ${stringField(event.data, 'reason') ?? 'no reason'}`;
}

function stringField(data: JsonObject, key: string): string | undefined {
  const value = data[key];
  return typeof value === 'string' ? value : undefined;
}

/** Copies the scalar and number-list fields of `data` named in `names` to their attribute keys. */
function copyFields(data: JsonObject, attributes: SpanAttributes, names: Record<string, string>): void {
  for (const [field, key] of Object.entries(names)) {
    const value = data[field];
    if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))
      attributes[key] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === 'number')) attributes[key] = value as number[];
  }
}

function messageOf(event: LogEvent): GenAiMessage {
  switch (event.type) {
    case 'system/message':
      return { role: 'system', parts: partsOfBlocks(dataOf(event, 'system/message').content) };
    case 'user/message':
      return { role: 'user', parts: partsOfBlocks(dataOf(event, 'user/message').content) };
    case 'assistant/message': {
      const data = dataOf(event, 'assistant/message');
      return { role: 'assistant', parts: [...partsOfBlocks(data.content), ...partsOfToolCalls(data.toolCalls)] };
    }
    default: {
      const data = dataOf(event, 'tool/result');
      const parts = partsOfBlocks(data.content);
      // A result of text only is its text, as the conventions' examples send it; anything else its parts.
      const response = parts.every((part) => part.type === 'text') ? parts.map((part) => String(part.content)).join('\n') : parts;
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: data.callId, response }] };
    }
  }
}

function textOf(message: GenAiMessage): string {
  return message.parts
    .map((part) =>
      typeof part.content === 'string'
        ? part.content
        : part.type === 'tool_call'
          ? `${String(part.name)}(${JSON.stringify(part.arguments)})`
          : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}
