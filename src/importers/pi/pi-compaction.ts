// pi's `compaction` entry in shadowlog's terms. After it, pi shows the model its summary, then
// the entries from `firstKeptEntryId` on (version 1: `firstKeptEntryIndex`, an index into the
// file's entries): so the summary replaces every surface node before the first kept one, an
// earlier summary among them when compactions nest, and its sourceEventSeqs list them all.

import { derivedUuid } from '../derived-ids.js';
import { writeImportedCompaction } from '../imported-compaction.js';
import type { SessionBuilder } from '../session-builder.js';
import type { SourceRecord } from '../source-file.js';
import { countOf, stringOf } from '../source-values.js';
import { sourceLineOf } from '../surface-lines.js';

/** What pi put before a summary when it sent it to the model (coding-agent messages.ts, COMPACTION_SUMMARY_PREFIX). */
export const PI_SUMMARY_PREFIX = 'The conversation history before this point was compacted into the following summary:\n\n<summary>\n';
export const PI_SUMMARY_SUFFIX = '\n</summary>';

export interface PiModel {
  readonly provider: string;
  readonly model: string;
}

/**
 * Maps the compaction entry `record`; `lineOfEntry` finds the line of an entry id. A compaction
 * whose first kept entry cannot be placed, or that would keep everything, is kept as a foreign
 * line and reported.
 */
export function mapPiCompaction(
  builder: SessionBuilder,
  record: SourceRecord,
  lineOfEntry: (id: string) => number | undefined,
  model: PiModel | undefined,
): void {
  const entry = record.value;
  const summary = stringOf(entry.summary);
  if (summary === undefined) {
    builder.unmappedRecord(record, 'compaction', 'a compaction entry without a summary');
    return;
  }
  const keptId = stringOf(entry.firstKeptEntryId);
  const keptIndex = countOf(entry.firstKeptEntryIndex);
  const keptLine = keptId !== undefined ? lineOfEntry(keptId) : keptIndex === undefined ? undefined : keptIndex + 1;
  if (keptLine === undefined) {
    const named = keptId === undefined ? 'no first kept entry' : `first kept entry ${keptId}, which is not in the file`;
    builder.unmappedRecord(record, 'compaction', `a compaction entry naming ${named}: what it kept cannot be told`);
    return;
  }
  const shadowed: number[] = [];
  for (const node of builder.fold.nodes()) {
    const line = sourceLineOf(node);
    // The first appended node from the kept entry on stays, and everything after it.
    if (node.sourceEventSeqs.length === 0 && line !== undefined && line >= keptLine) break;
    shadowed.push(node.seq);
  }
  if (shadowed.length === 0) {
    builder.unmappedRecord(
      record,
      'compaction',
      `a compaction that keeps every message (its first kept entry, line ${keptLine}, is the first on the surface): there is nothing for its summary to replace`,
    );
    return;
  }
  const written = writeImportedCompaction(builder, {
    compactionId: stringOf(entry.id) ?? derivedUuid('pi', builder.sessionId, record.line),
    trigger: 'pressure',
    sourceTrigger: null,
    shadowed,
    replacement: {
      type: 'user/message',
      data: {
        content: [{ type: 'text', text: `${PI_SUMMARY_PREFIX}${summary}${PI_SUMMARY_SUFFIX}` }],
        sourceLines: [{ line: record.line, text: record.text }],
      },
    },
    following: [],
    summarizer: { provider: model?.provider ?? 'unknown', model: model?.model ?? 'unknown', usage: null },
    ...(countOf(entry.tokensBefore) === undefined ? {} : { sourceTokensBefore: countOf(entry.tokensBefore) as number }),
    startSourceLines: [{ line: record.line }],
  });
  if (!written.ok) builder.unmappedRecord(record, 'compaction', `the compaction could not be mapped: ${written.error.message}`);
}
