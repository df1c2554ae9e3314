// The evidence run on a hand-built session: one cell per session and window with each grid
// point's figures in the grid's order, the rule applied to the corpus cells only, and the report
// (its sessions table, its rule, its table and its plots) computed from that table.

import { describe, expect, it } from 'vitest';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { type EvidenceGrid, evidencePolicies } from '../../src/tune/evidence-grid.js';
import { evidenceReportFiles, presetIndex } from '../../src/tune/evidence-report.js';
import { evidenceRuleCells, runEvidence, selectFromEvidence } from '../../src/tune/evidence-run.js';
import { buildSession, prose, type TurnSpec } from './support/hand-built.js';

const GRID: EvidenceGrid = {
  thresholdRatio: [0.5, 0.8],
  headroomTokens: [0, 65_536],
  retainRatio: [0.16],
  pruner: [{ thresholdChars: 8_192, headChars: 4_096, tailChars: 1_024 }],
};

function turns(count: number): TurnSpec[] {
  return Array.from({ length: count }, (_, turn) => ({
    user: `step ${turn}: look at parseConfig${turn} in src/file${turn}.ts`,
    steps: [{ answer: `parseConfig${turn - 1} and src/file${turn - 1}.ts: ${prose(1_200, turn)}` }],
  }));
}

describe('runEvidence', () => {
  it('replays every session at every window under the grid, and the rule judges the corpus cells only', async () => {
    const store = new MemoryLogStore();
    await store.append('long', buildSession(turns(40)), { expectedSeq: 0 });
    await store.append('short', buildSession(turns(3)), { expectedSeq: 0 });
    const sessions = [
      { store, sessionId: 'long', source: 'corpus' as const },
      { store, sessionId: 'short', source: 'scripted' as const },
    ];
    const { table } = await runEvidence(sessions, { grid: GRID, windows: [8_192, 1_000_000], command: 'test' });
    expect(table.policies.map((policy) => policy.name)).toEqual(evidencePolicies(GRID).map((policy) => policy.name));
    expect(table.cells.map((cell) => `${cell.session}@${cell.window}`)).toEqual([
      'long@8192',
      'short@8192',
      'long@1000000',
      'short@1000000',
    ]);
    for (const cell of table.cells)
      for (const figures of [cell.feasible, cell.compactions, cell.costUsd, cell.used]) expect(figures).toHaveLength(4);
    // DSH's headroom leaves an 8,192-token window no pressure budget: refused there, never over a window elsewhere.
    const dsh = presetIndex(table);
    expect(table.policies[dsh]?.config).toEqual({ thresholdRatio: 0.8, headroomTokens: 65_536, retainRatio: 0.16 });
    expect(table.cells[0]?.feasible[dsh]).toBe(false);
    // In a 1M window nothing compacts.
    expect(table.cells.filter((cell) => cell.window === 1_000_000).every((cell) => cell.compactions.every((count) => count === 0))).toBe(
      true,
    );
    // The long session compacts in 8,192 tokens.
    expect(Math.max(...(table.cells[0]?.compactions ?? []))).toBeGreaterThan(0);

    expect(evidenceRuleCells(table).map((cell) => cell.session)).toEqual(['long', 'long']);
    const { selection, policy } = selectFromEvidence(table);
    expect(policy.config.headroomTokens).toBe(0);
    expect(selection.standings[dsh]?.feasible).toBe(false);

    const files = await evidenceReportFiles(table, sessions);
    expect([...files.keys()].sort()).toEqual(['evidence.md', 'evidence/cost-retention.svg']);
    const page = files.get('evidence.md') ?? '';
    expect(page).toContain(`Chosen: **${policy.name}**.`);
    expect(page).toContain(`| thresholdRatio | ${policy.config.thresholdRatio} | 0.8 |`);
    expect(page).toMatch(/\| short \| scripted \| shadowlog \| 3 \| /);
    expect(page).toContain('(`--preset dsh`) | no |');
    expect(page).not.toMatch(/NaN|undefined|Infinity/);
    expect(files.get('evidence/cost-retention.svg')).toMatch(/^<svg /);
  });
});
