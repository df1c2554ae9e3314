// Which harness wrote a file, told by its content, never by its name: the first record that
// only one format writes decides, and the evidence is named so that the user can check it.

import { isPlainObject } from '../log/shape.js';
import type { ImportFormat } from './import-errors.js';
import type { SourceRecord } from './source-file.js';

export interface DetectedFormat {
  readonly format: Exclude<ImportFormat, 'shadowlog'>;
  /** What decided it, for the report: "line 1 is a pi session header (version 3)". */
  readonly evidence: string;
}

/** How many records are looked at before giving up. */
const RECORDS_LOOKED_AT = 50;

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CLAUDE_MESSAGE_TYPES = new Set(['user', 'assistant', 'system', 'progress', 'attachment']);

export function detectFormat(records: readonly SourceRecord[]): DetectedFormat | undefined {
  for (const record of records.slice(0, RECORDS_LOOKED_AT)) {
    const found = formatOf(record);
    if (found !== undefined) return found;
  }
  return undefined;
}

function formatOf({ line, value }: SourceRecord): DetectedFormat | undefined {
  const type = value.type;
  if (typeof type !== 'string') return undefined;
  if (type === 'session' && typeof value.id === 'string' && !('payload' in value)) {
    const version = typeof value.version === 'number' ? `version ${value.version}` : 'version 1, no version field';
    return { format: 'pi', evidence: `line ${line} is a pi session header (${version})` };
  }
  if (CODEX_TYPES.has(type) && isPlainObject(value.payload)) {
    const version = type === 'session_meta' && typeof value.payload.cli_version === 'string' ? ` (Codex ${value.payload.cli_version})` : '';
    return { format: 'codex', evidence: `line ${line} is a Codex ${type} record${version}` };
  }
  if (CLAUDE_MESSAGE_TYPES.has(type) && typeof value.uuid === 'string' && typeof value.sessionId === 'string') {
    const version = typeof value.version === 'string' ? ` (Claude Code ${value.version})` : '';
    return { format: 'claude-code', evidence: `line ${line} is a Claude Code ${type} record${version}` };
  }
  if (type === 'file-history-snapshot' && 'snapshot' in value) {
    return { format: 'claude-code', evidence: `line ${line} is a Claude Code file-history-snapshot record` };
  }
  if (type === 'summary' && typeof value.leafUuid === 'string') {
    return { format: 'claude-code', evidence: `line ${line} is a Claude Code summary record` };
  }
  return undefined;
}

/**
 * The first record that only a format other than `format` writes, when there is one: a file
 * holds one harness's session, and a file that mixes two (say a Claude Code line followed by a
 * Codex rollout) would otherwise import with the other harness's lines kept as foreign events.
 */
export function findOtherFormat(
  records: readonly SourceRecord[],
  format: DetectedFormat['format'],
): (DetectedFormat & { readonly line: number }) | undefined {
  for (const record of records) {
    const found = formatOf(record);
    if (found !== undefined && found.format !== format) return { ...found, line: record.line };
  }
  return undefined;
}

/** A short description of a file's first record, for an error that says what was found. */
export function describeFirstRecord(records: readonly SourceRecord[]): string {
  const first = records[0];
  if (first === undefined) return 'no records at all';
  const keys = Object.keys(first.value).slice(0, 8).join(', ');
  const type = typeof first.value.type === 'string' ? ` of type ${JSON.stringify(first.value.type)}` : '';
  return `line ${first.line} is a record${type} with keys ${keys}`;
}
