// What a corpus file holds, counted straight from its lines with no importer code, so that the
// import's figures are checked against an independent count: the model calls each harness made,
// its compactions, and the lines that have no core meaning.

import { readFileSync } from 'node:fs';

export interface SourceCounts {
  readonly lines: number;
  readonly modelCalls: number;
  readonly compactions: number;
  readonly foreignLines: number;
}

type Row = Record<string, unknown> & { payload?: Record<string, unknown>; message?: Record<string, unknown> };

export function rowsOf(path: string): Row[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Row);
}

/** Claude Code: one call per distinct message id of the main transcript; lines that are neither messages nor a compact boundary are foreign. */
export function claudeCounts(path: string): SourceCounts {
  const rows = rowsOf(path).filter((row) => row.isSidechain !== true);
  const ids = new Set(rows.filter((row) => row.type === 'assistant').map((row) => row.message?.id));
  const boundaries = rows.filter((row) => row.type === 'system' && row.subtype === 'compact_boundary').length;
  const foreign = rows.filter((row) => row.type !== 'user' && row.type !== 'assistant' && row.subtype !== 'compact_boundary').length;
  return { lines: rows.length, modelCalls: ids.size, compactions: boundaries, foreignLines: foreign };
}

/**
 * Codex: one call per token_count whose totals moved; event messages, turn contexts, snapshots,
 * and a session_meta with no instructions (they become the system message) are foreign.
 */
export function codexCounts(path: string): SourceCounts {
  const rows = rowsOf(path);
  const totals = new Set(
    rows
      .filter((row) => row.payload?.type === 'token_count' && row.payload.info !== null)
      .map((row) => JSON.stringify((row.payload?.info as Record<string, unknown> | undefined)?.total_token_usage)),
  );
  const hasInstructions = (row: Row) =>
    typeof (row.payload?.base_instructions as { text?: unknown } | undefined)?.text === 'string' ||
    typeof row.payload?.instructions === 'string';
  const foreign = rows.filter(
    (row) =>
      row.type === 'event_msg' ||
      row.type === 'turn_context' ||
      (row.type === 'session_meta' && !hasInstructions(row)) ||
      (row.type === 'response_item' && row.payload?.type === 'ghost_snapshot'),
  ).length;
  return {
    lines: rows.length,
    modelCalls: totals.size,
    compactions: rows.filter((row) => row.type === 'compacted').length,
    foreignLines: foreign,
  };
}

/** pi: one call per assistant message; the header and the entries that are not messages are foreign. */
export function piCounts(path: string): SourceCounts {
  const rows = rowsOf(path);
  return {
    lines: rows.length,
    modelCalls: rows.filter((row) => row.type === 'message' && row.message?.role === 'assistant').length,
    compactions: rows.filter((row) => row.type === 'compaction').length,
    foreignLines: rows.filter((row) => row.type !== 'message' && row.type !== 'compaction').length,
  };
}
