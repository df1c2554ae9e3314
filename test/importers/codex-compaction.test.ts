// Codex's `compacted` records on variations of the older corpus rollout (made in a temporary
// copy): a replacement history replaces the whole surface, its copies naming their originals and
// its encrypted compaction item kept as the provider's opaque data; an older record with only a
// summary message is replaced by that message; a developer message at the head stays, reported.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileReport } from '../../src/importers/import-report.js';
import { isSurfaceType, type LogEvent } from '../../src/log/event.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const SESSION = 'codex-019a93b9-f380-7600-98ff-940e6b99603c';
const TIME = '2025-11-17T21:40:00.000Z';

type Row = { timestamp: string; type: string; payload: Record<string, unknown> };
const corpusRows = () =>
  readFileSync(corpusFile(CORPUS_FILES.codexOld), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Row);
const messageItem = (row: Row | undefined) => row?.payload as { type: string; role: string; content: unknown[] };

describe('Codex compacted records', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  async function importRows(rows: readonly Row[]): Promise<{ report: FileReport; events: LogEvent[] }> {
    writeFileSync(join(workspace.cwd, 'rollout.jsonl'), `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
    const imported = await workspace.run(['--store', 'sqlite:codex.db', '--json', 'import', 'rollout.jsonl']);
    expect(imported.code, imported.stderr).toBe(0);
    expect((await workspace.run(['--store', 'sqlite:codex.db', 'verify', SESSION])).code).toBe(0);
    const store = await openSqliteStore(join(workspace.cwd, 'codex.db'), { readOnly: true });
    const events: LogEvent[] = [];
    for await (const page of store.read(SESSION)) events.push(...page);
    await store.close();
    return { report: (JSON.parse(imported.stdout) as { files: FileReport[] }).files[0] as FileReport, events };
  }

  it('replaces the whole surface with the replacement history, copies naming their originals', async () => {
    const rows = corpusRows();
    const [context, task] = [messageItem(rows[1]), messageItem(rows[2])];
    const compaction = { type: 'compaction', encrypted_content: 'gAAAAB-encrypted-summary' };
    rows.push({ timestamp: TIME, type: 'compacted', payload: { message: '', replacement_history: [context, task, compaction] } });
    rows.push({
      timestamp: TIME,
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go on' }] },
    });
    const { report, events } = await importRows(rows);
    expect(report.sessions[0]?.compactions).toBe(1);

    const summary = events.find((event) => event.type === 'compaction/summary') as LogEvent;
    const appended = events.filter((event) => event.seq < summary.seq && isSurfaceType(event.type) && event.surfaceOp === 'append');
    const [replacement, copy, opaque, next] = events.slice(summary.seq + 1).filter((event) => isSurfaceType(event.type));
    // Nothing in this rollout is sent apart from the history: everything on the surface is shadowed.
    expect(summary.data.shadowedSeqs).toEqual(appended.map((event) => event.seq));
    expect(replacement?.sourceEventSeqs).toEqual([...(summary.data.shadowedSeqs as number[]), summary.seq]);
    // The earlier message of the same text: what a copy copies.
    const textOf = (item: ReturnType<typeof messageItem>) => (item.content[0] as { text: string }).text;
    const originalOf = (item: ReturnType<typeof messageItem>) =>
      events.find(
        (event) =>
          event.seq < summary.seq &&
          event.type === 'user/message' &&
          (event.data.content as Array<{ text?: string }>)[0]?.text === textOf(item),
      );
    expect(originalOf(context)).toBeDefined();
    expect(replacement?.data.copyOf).toBe(originalOf(context)?.seq);
    expect(copy?.data.copyOf).toBe(originalOf(task)?.seq);
    expect(opaque?.data).toMatchObject({
      content: [{ type: 'reasoning', provider: 'openai', data: 'gAAAAB-encrypted-summary' }],
      codexItem: 'compaction',
    });
    expect(next?.data.content).toEqual([{ type: 'text', text: 'go on' }]);

    const surface = JSON.parse((await workspace.run(['--store', 'sqlite:codex.db', '--json', 'show', SESSION, '--surface'])).stdout) as {
      nodes: Array<{ seq: number; copyOf?: number }>;
    };
    expect(surface.nodes.map((node) => node.seq)).toEqual([replacement?.seq, copy?.seq, opaque?.seq, next?.seq]);
    expect(surface.nodes[1]?.copyOf).toBe(originalOf(task)?.seq);
    const origins = async (seq: number | undefined) =>
      (
        JSON.parse((await workspace.run(['--store', 'sqlite:codex.db', '--json', 'origins', SESSION, String(seq)])).stdout) as {
          origins: number[];
        }
      ).origins;
    expect(await origins(copy?.seq)).toEqual([originalOf(task)?.seq]);
    expect(await origins(replacement?.seq)).toEqual(appended.map((event) => event.seq));
    const shown = await workspace.run(['--store', 'sqlite:codex.db', 'show', SESSION, '--record']);
    expect(shown.stdout).toContain(`#${copy?.seq} user  [copy of #${originalOf(task)?.seq}]`);
  });

  it('replaces the surface with the summary message of a record without a replacement history', async () => {
    const rows = corpusRows();
    rows.push({
      timestamp: TIME,
      type: 'compacted',
      payload: { message: 'What happened so far: the endpoints were switched to LM Studio.' },
    });
    const { report, events } = await importRows(rows);
    expect(report.sessions[0]?.compactions).toBe(1);
    const summary = events.find((event) => event.type === 'compaction/summary') as LogEvent;
    const replacement = events[summary.seq + 1] as LogEvent;
    expect(replacement.data.content).toEqual([{ type: 'text', text: 'What happened so far: the endpoints were switched to LM Studio.' }]);
    expect(replacement.data.copyOf).toBeUndefined();
  });

  it('leaves a developer message at the head in place, and says so', async () => {
    const rows = corpusRows();
    const developer = { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Work carefully.' }] };
    rows.splice(1, 0, { timestamp: rows[1]?.timestamp as string, type: 'response_item', payload: developer });
    rows.push({ timestamp: TIME, type: 'compacted', payload: { message: '', replacement_history: [messageItem(rows[3])] } });
    const { report, events } = await importRows(rows);
    expect(report.sessions[0]?.compactions).toBe(1);
    const compactedLine = rows.length;
    expect(report.sessions[0]?.unmapped).toEqual([
      {
        line: compactedLine,
        reason: 'the developer message at the head of the surface stays: shadowlog keeps a system message at position 0 in place',
      },
    ]);
    const surface = JSON.parse((await workspace.run(['--store', 'sqlite:codex.db', '--json', 'show', SESSION, '--surface'])).stdout) as {
      nodes: Array<{ seq: number; type: string }>;
    };
    expect(surface.nodes.map((node) => node.type)).toEqual(['system/message', 'user/message']);
    expect(events[surface.nodes[0]?.seq as number]?.data.content).toEqual([{ type: 'text', text: 'Work carefully.' }]);
  });
});
