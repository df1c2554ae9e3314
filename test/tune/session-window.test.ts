// The window each corpus session ran in, and the rule that gave it: Codex states it, Claude
// Code's compaction implies it, Claude Code's default covers a session that never compacted,
// pi falls to the model table, and --window overrides them all.

import { describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { impliedWindow, readSessionWindow, resolveSessionWindow } from '../../src/compaction/session-window.js';
import { importFiles, readImportInputs } from '../../src/importers/index.js';
import type { LogEvent } from '../../src/log/event.js';
import { MemoryLogStore } from '../../src/store/index.js';

const CORPUS = 'test/fixtures/corpus/sessions';

async function imported(path: string): Promise<{ store: MemoryLogStore; ids: string[] }> {
  const store = new MemoryLogStore();
  const summary = await importFiles(store, await readImportInputs([path], process.cwd()), {
    format: 'auto',
    registry: createCliRegistry(),
  });
  return { store, ids: summary.files.flatMap((file) => file.sessions.map((session) => session.sessionId)) };
}

describe('the window a session ran in', () => {
  it('reads Claude Code compactions under its rule: 167,094 and 170,251 tokens imply 200,000; 960,000 implies 1,000,000', () => {
    expect(impliedWindow('claude-code', 167_094)).toBe(200_000);
    expect(impliedWindow('claude-code', 170_251)).toBe(200_000);
    expect(impliedWindow('claude-code', 960_000)).toBe(1_000_000);
    // A count no window's rule reaches (far below 200,000's threshold) implies nothing.
    expect(impliedWindow('claude-code', 90_000)).toBeUndefined();
    expect(impliedWindow('pi', 183_000, 200_000)).toBe(200_000);
    expect(impliedWindow('codex', 232_000, 258_400)).toBe(258_400);
  });

  it("gives the long Claude Code session 200,000 from its compaction, not the model table's 1,000,000", async () => {
    const { store } = await imported(`${CORPUS}/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl`);
    const window = await readSessionWindow(store, 'claude-code-4d5611e5-241a-462a-8d15-5122611a9569');
    expect(window.harness).toBe('claude-code');
    expect(window.primary).toMatchObject({ model: 'claude-opus-4-6', window: 200_000, rule: 'harness-compaction', guessed: false });
    expect(window.primary?.evidence).toContain('170,251');
  });

  it("gives a Claude Code session that never compacted the client's default, marked as guessed", async () => {
    const { store } = await imported(`${CORPUS}/claude-code/subagents/agent-acompact-4d5611e5.jsonl`);
    const [id] = (await store.listSessions()).map((session) => session.id);
    const window = await readSessionWindow(store, id as string);
    expect(window.primary).toMatchObject({ model: 'claude-opus-4-6', window: 200_000, rule: 'client-default', guessed: true });
  });

  it('takes the window Codex states, pi falls to the model table, and --window overrides every rule', async () => {
    const codex = await imported(`${CORPUS}/codex/rollout-2025-11-17T15-30-28.jsonl`);
    const stated = await readSessionWindow(codex.store, codex.ids[0] as string);
    expect(stated.primary).toMatchObject({ window: 258_400, rule: 'recorded', guessed: false });
    const pi = await imported(`${CORPUS}/pi/large-session.jsonl`);
    const table = await readSessionWindow(pi.store, pi.ids[0] as string);
    expect(table.harness).toBe('pi');
    expect(table.primary).toMatchObject({ model: 'claude-sonnet-4-5', window: 200_000, rule: 'model-table', guessed: true });
    expect(table.models.get('gpt-5.1-codex')).toMatchObject({ window: 400_000, rule: 'model-table' });
    const forced = await readSessionWindow(pi.store, pi.ids[0] as string, { window: 64_000 });
    expect(forced.primary).toMatchObject({ window: 64_000, rule: 'option', guessed: false });
  });

  it("takes an imported window that differs from the table's as stated, and leaves a model no rule knows unknown", () => {
    const request = (seq: number, model: string, contextWindow?: number) =>
      ({
        seq,
        type: 'model/request',
        time: '2026-01-01T00:00:00.000Z',
        surfaceOp: null,
        data: {
          turn: 1,
          step: seq,
          provider: 'openai',
          model,
          provenance: 'imported',
          surfaceSeqs: [],
          ...(contextWindow === undefined ? {} : { contextWindow }),
        },
      }) as unknown as LogEvent;
    const window = resolveSessionWindow('own', [request(1, 'gpt-4o', 100_000), request(2, 'my-local-model')]);
    expect(window.harness).toBeNull();
    expect(window.models.get('gpt-4o')).toMatchObject({ window: 100_000, rule: 'recorded' });
    expect(window.unknown).toEqual(['my-local-model']);
  });
});
