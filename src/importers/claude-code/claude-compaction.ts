// Claude Code's compaction in shadowlog's terms: a `compact_boundary` (its trigger and the
// tokens before) and the `isCompactSummary` user message after it, which Claude Code sends in
// place of everything before: so that message replaces the whole surface. When the import holds
// the summarizer's sidechain transcript (subagents/agent-acompact-*.jsonl), the summary names it
// as a sub-session and takes its model and usage.

import type { CompactionTrigger } from '../../compaction/event-types.js';
import { derivedUuid } from '../derived-ids.js';
import { writeImportedCompaction } from '../imported-compaction.js';
import type { SessionBuilder } from '../session-builder.js';
import type { SourceRecord } from '../source-file.js';
import { countOf, objectOf, stringOf } from '../source-values.js';
import { claudeContent } from './claude-content.js';
import type { ClaudeSessionLinks } from './claude-session.js';

export interface ClaudeCompaction {
  readonly boundary: SourceRecord | undefined;
  readonly summary: SourceRecord;
  /** The session's model at the time (Claude Code summarizes with it). */
  readonly model: string;
  readonly links: ClaudeSessionLinks;
}

export function mapClaudeCompaction(builder: SessionBuilder, { boundary, summary, model, links }: ClaudeCompaction): void {
  const content = claudeContent(objectOf(summary.value.message)?.content, summary.line, builder);
  const data = { content, sourceLines: [{ line: summary.line, text: summary.text }] };
  const shadowed = builder.surfaceSeqs();
  if (shadowed.length === 0) {
    builder.message('user/message', data, { startsTurn: false });
    builder.note(summary.line, 'a compact summary over an empty surface: appended as a message, there was nothing for it to replace');
    if (boundary !== undefined) builder.foreign(boundary, 'system-compact-boundary');
    return;
  }
  const metadata = objectOf(boundary?.value.compactMetadata);
  const sourceTrigger = stringOf(metadata?.trigger) ?? null;
  const trigger: CompactionTrigger = sourceTrigger === 'manual' ? 'manual' : 'pressure';
  const summarizer = boundary === undefined ? undefined : links.summarizerFor(builder.at(boundary.value.timestamp));
  builder.at(summary.value.timestamp);
  const preTokens = countOf(metadata?.preTokens);
  const written = writeImportedCompaction(builder, {
    compactionId:
      stringOf(boundary?.value.uuid) ?? stringOf(summary.value.uuid) ?? derivedUuid('claude-code', builder.sessionId, summary.line),
    trigger,
    sourceTrigger,
    shadowed,
    replacement: { type: 'user/message', data },
    following: [],
    summarizer:
      summarizer === undefined
        ? { provider: 'anthropic', model, usage: null }
        : { provider: 'anthropic', model: summarizer.model, usage: summarizer.usage, sessionId: summarizer.sessionId },
    ...(preTokens === undefined ? {} : { sourceTokensBefore: preTokens }),
    startSourceLines: boundary === undefined ? [] : [{ line: boundary.line, text: boundary.text }],
  });
  if (!written.ok) {
    if (boundary !== undefined)
      builder.unmappedRecord(boundary, 'system-compact-boundary', `the compaction could not be mapped: ${written.error.message}`);
    builder.unmappedRecord(summary, 'compact-summary', `the compaction could not be mapped: ${written.error.message}`);
  }
}
