// A Codex CLI rollout (sessions/YYYY/MM/DD/rollout-….jsonl) as a shadowlog session. The
// session's instructions (session_meta) are its system message; response items are the
// conversation, each run of output items one model call with its token_count as usage and the
// model of the turn_context in force; `compacted` is a replacement (codex-replacement.ts);
// event messages, turn contexts and snapshots are kept whole as foreign lines.

import type { ContentBlock, LogEvent, SessionParent } from '../../log/event.js';
import { forkFromCopiedHistory, STORED_WHOLE } from '../copied-history.js';
import { importedSessionId } from '../derived-ids.js';
import type { SourceToolCall } from '../imported-call.js';
import type { ImportOptions } from '../importer-options.js';
import { firstTimeOf, SessionBuilder } from '../session-builder.js';
import type { SourceFile, SourceRecord } from '../source-file.js';
import { countOf, objectOf, type SourceObject, stringOf } from '../source-values.js';
import { type CodexCall, codexCalls, itemOf } from './codex-calls.js';
import { codexContent, codexUsage, outputContent, toolCallOf, toolOutput } from './codex-items.js';
import { CodexOriginals, mapCodexCompaction } from './codex-replacement.js';

export function importCodex(file: SourceFile, options: ImportOptions = {}): SessionBuilder[] {
  const records = file.records;
  const meta = records.find((record) => record.value.type === 'session_meta');
  const metaPayload = objectOf(meta?.value.payload);
  const sessionId = options.sessionId ?? importedSessionId('codex', stringOf(metaPayload?.id) ?? 'session');
  const parent = options.parent ?? spawnedBy(metaPayload);
  const provider = stringOf(metaPayload?.model_provider) ?? 'openai';
  const newBuilder = (prefix: readonly LogEvent[] = []) =>
    new SessionBuilder({
      sessionId,
      sourcePath: file.path,
      source: 'codex',
      time: firstTimeOf(records),
      ...(parent === undefined ? {} : { parent }),
      ...(options.window === undefined ? {} : { window: options.window }),
      ...(prefix.length === 0 ? {} : { prefix }),
    });
  const forkedFrom = parent === undefined ? codexForkOf(metaPayload) : undefined;
  const forked =
    forkedFrom === undefined || meta === undefined
      ? undefined
      : options.storedWhole?.(sessionId) === true
        ? { reason: STORED_WHOLE }
        : mapCodexFork(file, meta, forkedFrom, newBuilder, provider, options);
  if (forked !== undefined && 'builder' in forked) return [forked.builder];
  const builder = newBuilder();
  new CodexMapper(builder, records, provider).map();
  if (forkedFrom !== undefined && forked !== undefined && 'reason' in forked)
    builder.unlinkedFork = { parentSessionId: forkedFrom, reason: forked.reason };
  return [builder];
}

/** The session a rollout made by Codex's `/fork` copies (its session_meta's `forked_from_id`), as a shadowlog session id. */
export function codexForkOf(meta: SourceObject | undefined): string | undefined {
  const from = stringOf(meta?.forked_from_id);
  return from === undefined ? undefined : importedSessionId('codex', from);
}

/**
 * A forked rollout: its own session_meta, then the parent's lines replayed (its session_meta
 * too, with new timestamps), then its own turns. A branch of the parent where the copy ends,
 * when the parent is at hand and the copy matches it (copied-history.ts); its own
 * session_meta, the link, is kept whole after the session/fork.
 */
function mapCodexFork(
  file: SourceFile,
  ownMeta: SourceRecord,
  parentSessionId: string,
  newBuilder: (prefix: readonly LogEvent[]) => SessionBuilder,
  provider: string,
  options: ImportOptions,
): { readonly builder: SessionBuilder } | { readonly reason: string } {
  const parentEvents = options.forkParentEvents?.(parentSessionId);
  if (parentEvents === undefined) {
    return {
      reason: `neither this import nor the store holds ${parentSessionId}; import it with this rollout, or before it, to link them`,
    };
  }
  const rest = file.records.filter((record) => record !== ownMeta);
  let mapper: CodexMapper | undefined;
  const result = forkFromCopiedHistory({
    parentSessionId,
    parentEvents,
    copied: rest[0]?.value.type === 'session_meta' ? 1 : 0,
    mapperFor: (prefix) => {
      const builder = newBuilder(prefix);
      mapper = new CodexMapper(builder, rest, provider);
      return { builder, mapper };
    },
    afterFork: (builder) => {
      builder.foreign(ownMeta, 'session-meta');
      if (mapper !== undefined) mapper.metaAsForeign = true;
    },
  });
  return result.kind === 'branch' ? { builder: result.builder } : { reason: result.reason };
}

/**
 * The thread that spawned a Codex sub-agent: its session_meta names it in
 * `source.subagent.thread_spawn.parent_thread_id` (and, in some versions, `parent_thread_id`).
 */
function spawnedBy(meta: SourceObject | undefined): SessionParent | undefined {
  const spawn = objectOf(objectOf(objectOf(meta?.source)?.subagent)?.thread_spawn);
  const parentThread = stringOf(spawn?.parent_thread_id) ?? stringOf(meta?.parent_thread_id);
  return parentThread === undefined ? undefined : { sessionId: importedSessionId('codex', parentThread) };
}

class CodexMapper {
  private model = 'unknown';
  /** The window the latest task_started named (newer rollouts), for calls whose count does not. */
  private window: number | undefined;
  private instructionsSeq: number | undefined;
  private readonly originals = new CodexOriginals();
  private readonly calls: Map<number, CodexCall>;
  private readonly consumed = new Set<number>();
  /** The first call that records still to come could change; what follows it is not settled either. */
  private readonly unsettled: number;
  /** The last record mapped (a call maps its items that come after its first). */
  private reach = -1;
  /** A branch's own session_meta lines (its own, repeated) are kept whole: its instructions are the prefix's. */
  metaAsForeign = false;

  constructor(
    private readonly builder: SessionBuilder,
    private readonly records: readonly SourceRecord[],
    private readonly provider: string,
  ) {
    this.calls = codexCalls(records);
    this.unsettled = [...this.calls].find(([, call]) => !call.settled)?.[0] ?? Number.POSITIVE_INFINITY;
  }

  map(): void {
    for (let index = 0; index < this.records.length; index++) this.feed(index);
    this.end();
  }

  get length(): number {
    return this.records.length;
  }

  feed(index: number): void {
    const record = this.records[index] as SourceRecord;
    if (!this.consumed.has(index)) {
      const call = this.calls.get(index);
      this.builder.guard(record, () => (call === undefined ? this.mapRecord(record) : this.mapCall(call, index)));
    }
    this.reach = Math.max(this.reach, index);
    if (index < this.unsettled) this.builder.settle();
  }

  /** Whether every record before `index` is mapped, and none after it yet (a call's items are mapped with its first). */
  settledBefore(index: number): boolean {
    return this.reach < index;
  }

  end(): void {
    this.builder.finish();
  }

  private consume(index: number): void {
    this.consumed.add(index);
    this.reach = Math.max(this.reach, index);
  }

  lineOf(index: number): number {
    return this.records[index]?.line ?? 0;
  }

  private mapRecord(record: SourceRecord): void {
    const builder = this.builder;
    builder.reading(record);
    const type = stringOf(record.value.type) ?? 'record';
    const payload = objectOf(record.value.payload) ?? {};
    switch (type) {
      case 'session_meta':
        if (this.metaAsForeign) builder.foreign(record, 'session-meta');
        else this.mapMeta(record, payload);
        return;
      case 'turn_context':
        this.model = stringOf(payload.model) ?? this.model;
        builder.foreign(record, type);
        return;
      case 'compacted':
        mapCodexCompaction(builder, record, {
          provider: this.provider,
          model: this.model,
          instructionsSeq: this.instructionsSeq,
          originals: this.originals,
        });
        return;
      case 'event_msg':
        if (payload.type === 'task_started') this.window = countOf(payload.model_context_window) ?? this.window;
        builder.foreign(record, stringOf(payload.type) ?? type);
        return;
      case 'response_item':
        this.mapInputItem(record, payload);
        return;
      default:
        builder.unmappedRecord(record, type, `a Codex record of type ${JSON.stringify(type)}, which shadowlog does not know`);
    }
  }

  private mapMeta(record: SourceRecord, payload: SourceObject): void {
    const text = stringOf(objectOf(payload.base_instructions)?.text) ?? stringOf(payload.instructions);
    if (text === undefined || text === '') {
      this.builder.foreign(record, 'session-meta');
      return;
    }
    // The instructions Codex sends with every request, apart from the history.
    const data = { content: [{ type: 'text', text }], sourceLines: [{ line: record.line, text: record.text }] };
    this.instructionsSeq = this.builder.message('system/message', data, { startsTurn: false });
  }

  private mapInputItem(record: SourceRecord, item: SourceObject): void {
    const builder = this.builder;
    const sourceLines = [{ line: record.line, text: record.text }];
    const itemType = stringOf(item.type) ?? 'item';
    if (item.type === 'message') {
      const role = stringOf(item.role);
      const type = role === 'user' ? 'user/message' : role === 'developer' || role === 'system' ? 'system/message' : undefined;
      if (type === undefined) {
        builder.unmappedRecord(record, 'response-item', `a message of role ${JSON.stringify(role)} outside a model call`);
        return;
      }
      const seq = builder.message(
        type,
        { content: codexContent(item.content, record.line, builder), sourceLines },
        { startsTurn: role === 'user' },
      );
      this.originals.add(item, seq);
      return;
    }
    if (itemType.endsWith('_output')) {
      const callId = stringOf(item.call_id) ?? '';
      if (!builder.toolResult(callId, toolOutput(item.output, record.line, builder), sourceLines)) {
        builder.unmappedRecord(
          record,
          itemType,
          `the output of tool call ${JSON.stringify(callId)}, which no message on the surface is waiting for`,
        );
      }
      return;
    }
    builder.foreign(record, itemType);
  }

  private mapCall(call: CodexCall, start: number): void {
    const builder = this.builder;
    builder.reading(...call.items.map((index) => this.records[index] as SourceRecord));
    const content: ContentBlock[] = [];
    const toolCalls: SourceToolCall[] = [];
    const messages: SourceObject[] = [];
    for (const index of call.items) {
      const record = this.records[index] as SourceRecord;
      const item = itemOf(record) as SourceObject;
      const toolCall = toolCallOf(item);
      if (toolCall !== undefined) toolCalls.push(toolCall);
      else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
        builder.note(record.line, `a ${String(item.type)} without a name; it is left out`);
      } else content.push(...outputContent(item, this.provider, record.line, builder));
      if (item.type === 'message') messages.push(item);
      this.consume(index);
    }
    const usage = codexUsage(call.usage);
    const contextWindow = countOf(call.usage?.model_context_window) ?? this.window;
    const seq = builder.call({
      provider: this.provider,
      model: this.model,
      content,
      toolCalls,
      ...(usage === undefined ? {} : { usage }),
      ...(contextWindow === undefined ? {} : { contextWindow }),
      sourceLines: call.items.map((index) => {
        const record = this.records[index] as SourceRecord;
        return { line: record.line, text: record.text };
      }),
    });
    for (const message of messages) this.originals.add(message, seq);
    // What came between the call's items (reasoning events, counts) follows the call.
    const last = call.items[call.items.length - 1] as number;
    for (let index = start + 1; index < last; index++) {
      if (this.consumed.has(index)) continue;
      this.consume(index);
      this.mapRecord(this.records[index] as SourceRecord);
    }
  }
}
