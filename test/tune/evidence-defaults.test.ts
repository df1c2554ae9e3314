// The defaults in code are what the selection rule picks on the checked-in evidence table
// (docs/evidence/evidence.json, made by `npm run evidence`). The rule is applied again to the
// table, not the grid replayed: a change of the defaults, of the rule or of the table that
// disagrees with the others fails here.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPACTION_DEFAULTS } from '../../src/compaction/policy.js';
import { PRUNER_DEFAULTS } from '../../src/compaction/pruner-config.js';
import { EVIDENCE_GRID, EVIDENCE_WINDOWS } from '../../src/tune/evidence-grid.js';
import { presetIndex } from '../../src/tune/evidence-report.js';
import { type EvidenceTable, selectFromEvidence } from '../../src/tune/evidence-run.js';

const table = JSON.parse(readFileSync(new URL('../../docs/evidence/evidence.json', import.meta.url), 'utf8')) as EvidenceTable;

describe('the compaction defaults and their evidence', () => {
  it('the table was made with the grid and windows in code, over the corpus and the demo', () => {
    expect(table.version).toBe(1);
    expect(table.grid).toEqual(EVIDENCE_GRID);
    expect(table.windows).toEqual(EVIDENCE_WINDOWS);
    expect(new Set(table.cells.map((cell) => cell.source))).toEqual(new Set(['corpus', 'scripted']));
    expect(presetIndex(table)).toBeGreaterThanOrEqual(0);
  });

  it('the defaults in code are what the rule picks on the table', () => {
    const { policy } = selectFromEvidence(table);
    const retain = COMPACTION_DEFAULTS.retain;
    expect({
      thresholdRatio: COMPACTION_DEFAULTS.thresholdRatio,
      headroomTokens: COMPACTION_DEFAULTS.headroomTokens,
      retainRatio: retain.kind === 'ratio' ? retain.ratio : `retainTokens ${retain.tokens}`,
    }).toEqual(policy.config);
    expect(policy.pruner).toEqual({ ...PRUNER_DEFAULTS });
  });
});
