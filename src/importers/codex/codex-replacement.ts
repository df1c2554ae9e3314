// Codex's `compacted` record in shadowlog's terms. Its replacement_history is the new list of
// input items Codex sends from then on: copies of earlier user messages and answers, the
// developer messages again, and an encrypted `compaction` item that holds the summary. So it
// replaces the whole surface (all but the session's instructions, which Codex sends apart from
// the history) with those items: the first takes the place of the surface and lists every node
// it shadows, the rest follow it; each copy names the event it copies (`copyOf`), so that
// `origins` and `show` can follow it. A record without a replacement_history (older Codex) is
// replaced by its summary message.

import { canonicalJson } from '../../log/canonical-json.js';
import type { EventDraft } from '../../log/event.js';
import { derivedUuid } from '../derived-ids.js';
import type { SourceLineRef } from '../imported-call.js';
import { writeImportedCompaction } from '../imported-compaction.js';
import type { SessionBuilder } from '../session-builder.js';
import type { SourceRecord } from '../source-file.js';
import { arrayOf, objectOf, type SourceObject, stringOf } from '../source-values.js';
import { codexContent, outputContent } from './codex-items.js';

/** The events of earlier message items, by the item's canonical JSON, so that copies can name them. */
export class CodexOriginals {
  private readonly byKey = new Map<string, number[]>();
  private readonly claimed = new Set<number>();

  static keyOf(item: SourceObject): string {
    return canonicalJson({ role: item.role ?? null, content: item.content ?? null });
  }

  add(item: SourceObject, seq: number): void {
    const key = CodexOriginals.keyOf(item);
    this.byKey.set(key, [...(this.byKey.get(key) ?? []), seq]);
  }

  /** The original `item` copies: the earliest of its kind not yet copied by this compaction, else the latest. */
  originalOf(item: SourceObject): number | undefined {
    const seqs = this.byKey.get(CodexOriginals.keyOf(item));
    if (seqs === undefined) return undefined;
    const seq = seqs.find((candidate) => !this.claimed.has(candidate)) ?? seqs[seqs.length - 1];
    if (seq !== undefined) this.claimed.add(seq);
    return seq;
  }

  /** A new compaction copies afresh. */
  startCompaction(): void {
    this.claimed.clear();
  }
}

export interface CodexContext {
  readonly provider: string;
  readonly model: string;
  /** The system/message of the session's instructions, which the history's replacement leaves in place. */
  readonly instructionsSeq: number | undefined;
  readonly originals: CodexOriginals;
}

export function mapCodexCompaction(builder: SessionBuilder, record: SourceRecord, context: CodexContext): void {
  const payload = objectOf(record.value.payload) ?? {};
  const message = stringOf(payload.message);
  const history = Array.isArray(payload.replacement_history)
    ? arrayOf(payload.replacement_history)
    : message === undefined
      ? []
      : [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: message }] }];
  context.originals.startCompaction();
  const drafts: EventDraft[] = [];
  let keeper: SourceLineRef = { line: record.line, text: record.text };
  for (const [index, entry] of history.entries()) {
    const item = objectOf(entry);
    const draft = item === undefined ? undefined : copyDraft(builder, record.line, item, context, keeper);
    if (draft === undefined) {
      builder.note(
        record.line,
        `replacement_history item ${index} (type ${JSON.stringify(item?.type)}) is not one shadowlog maps; it is left out`,
      );
      continue;
    }
    drafts.push(draft);
    keeper = { line: record.line };
  }
  const shadowed = builder.surfaceSeqs();
  if (shadowed[0] !== undefined && shadowed[0] === context.instructionsSeq) shadowed.shift();
  else if (shadowed[0] !== undefined && builder.fold.node(shadowed[0])?.type === 'system/message') {
    shadowed.shift();
    builder.note(
      record.line,
      'the developer message at the head of the surface stays: shadowlog keeps a system message at position 0 in place',
    );
  }
  const [first, ...following] = drafts;
  if (first === undefined || shadowed.length === 0 || first.type === 'tool/result') {
    const why =
      first === undefined ? 'it has no replacement history shadowlog can map' : 'there is nothing on the surface for it to replace';
    builder.unmappedRecord(record, 'compacted', `a compaction that could not be mapped: ${why}`);
    return;
  }
  const written = writeImportedCompaction(builder, {
    compactionId: derivedUuid('codex', builder.sessionId, record.line),
    trigger: 'pressure',
    sourceTrigger: null,
    shadowed,
    replacement: { type: first.type as 'user/message', data: first.data as Record<string, unknown> },
    following,
    summarizer: { provider: context.provider, model: context.model, usage: null },
    startSourceLines: [{ line: record.line }],
  });
  if (!written.ok) builder.unmappedRecord(record, 'compacted', `the compaction could not be mapped: ${written.error.message}`);
}

/** One item of the replacement history as the draft of a surface event, a copy naming its original where there is one. */
function copyDraft(
  builder: SessionBuilder,
  line: number,
  item: SourceObject,
  context: CodexContext,
  keeper: SourceLineRef,
): EventDraft | undefined {
  const sourceLines = [keeper];
  if (item.type === 'compaction' || item.type === 'compaction_summary') {
    const data = stringOf(item.encrypted_content);
    if (data === undefined) return undefined;
    // No block holds a compaction as such: it is the provider's opaque summary, sent back as it came.
    const content = [{ type: 'reasoning', provider: context.provider, data }];
    return { type: 'user/message', data: { content, codexItem: item.type, sourceLines }, surfaceOp: 'append' };
  }
  if (item.type !== 'message') return undefined;
  const copyOf = context.originals.originalOf(item);
  const copy = copyOf === undefined ? {} : { copyOf };
  const role = stringOf(item.role);
  if (role === 'assistant') {
    const content = outputContent(item, context.provider, line, builder);
    return { type: 'assistant/message', data: { content, toolCalls: [], model: context.model, ...copy, sourceLines }, surfaceOp: 'append' };
  }
  const type = role === 'user' ? 'user/message' : role === 'developer' || role === 'system' ? 'system/message' : undefined;
  if (type === undefined) return undefined;
  return { type, data: { content: codexContent(item.content, line, builder), ...copy, sourceLines }, surfaceOp: 'append' };
}
