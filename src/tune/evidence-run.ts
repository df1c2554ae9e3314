// The evidence behind shadowlog's compaction defaults: tune's replay of every session at each
// window of the evidence grid, kept as a table (one cell per session and window, each policy's
// figures in the grid's order), and the selection rule applied to the corpus cells of it.

import { BUILT_IN_PRICES, type PriceTable } from '../meter/prices.js';
import type { LogStore } from '../store/log-store.js';
import {
  EVIDENCE_GRID,
  EVIDENCE_WINDOWS,
  type EvidenceGrid,
  type EvidencePolicy,
  evidencePolicies,
  evidenceTunePolicy,
} from './evidence-grid.js';
import { type TuneProgress, tuneSessions } from './run-tune.js';
import { type RuleCell, type Selection, selectDefaults } from './selection-rule.js';
import { EvidenceRuleError } from './tune-errors.js';
import type { TuneReport } from './tune-report.js';

/** A session to replay: one of the shared corpus (the rule judges on these), or a scripted one (reported beside them). */
export interface EvidenceSession {
  readonly store: LogStore;
  readonly sessionId: string;
  readonly source: 'corpus' | 'scripted';
}

/** One session at one window: each policy's figures, in the order of the table's policies. */
export interface EvidenceCell {
  readonly session: string;
  readonly source: 'corpus' | 'scripted';
  readonly harness: string | null;
  readonly window: number;
  readonly reserve: number;
  readonly calls: number;
  /** Every call's model has a price, so costUsd is the whole cost. */
  readonly priced: boolean;
  readonly feasible: readonly boolean[];
  readonly compactions: readonly number[];
  readonly prunes: readonly number[];
  readonly costUsd: readonly number[];
  readonly tokensSent: readonly number[];
  readonly used: readonly number[];
  readonly kept: readonly number[];
  /** After each compaction: artifacts the next 10 calls use, and of them those the surface held. */
  readonly aheadUsed: readonly number[];
  readonly aheadKept: readonly number[];
}

export interface EvidenceTable {
  readonly version: 1;
  readonly command: string;
  readonly prices: { readonly date: string };
  readonly estimator: string;
  readonly windows: readonly number[];
  readonly grid: EvidenceGrid;
  readonly policies: readonly EvidencePolicy[];
  readonly cells: readonly EvidenceCell[];
  /** Wall-clock seconds of the replay. */
  readonly seconds: number;
}

export interface EvidenceRunOptions {
  readonly windows?: readonly number[];
  readonly grid?: EvidenceGrid;
  readonly prices?: PriceTable;
  readonly command?: string;
  readonly onProgress?: (window: number, progress: TuneProgress) => void;
}

export interface EvidenceRun {
  readonly table: EvidenceTable;
  /** tune's report at each window, for the plots. */
  readonly reports: ReadonlyMap<number, TuneReport>;
}

const micro = (value: number) => Math.round(value * 1e6) / 1e6;

/** Every session replayed under every grid point at each window, with tune's replay. */
export async function runEvidence(sessions: readonly EvidenceSession[], options: EvidenceRunOptions = {}): Promise<EvidenceRun> {
  const grid = options.grid ?? EVIDENCE_GRID;
  const windows = options.windows ?? EVIDENCE_WINDOWS;
  const policies = evidencePolicies(grid);
  const tunePolicies = policies.map(evidenceTunePolicy);
  const prices = options.prices ?? BUILT_IN_PRICES;
  const started = performance.now();
  const cells: EvidenceCell[] = [];
  const reports = new Map<number, TuneReport>();
  let estimator = '';
  for (const window of windows) {
    const report = await tuneSessions(sessions, {
      policies: tunePolicies,
      window,
      prices,
      harnessSettings: false,
      ...(options.onProgress === undefined ? {} : { onProgress: (progress: TuneProgress) => options.onProgress?.(window, progress) }),
    });
    reports.set(window, report);
    estimator = report.estimator;
    for (const session of report.sessions) {
      const source = sessions.find((input) => input.sessionId === session.sessionId)?.source ?? 'corpus';
      const results = session.policies;
      cells.push({
        session: session.sessionId,
        source,
        harness: session.harness,
        window,
        reserve: session.reserve,
        calls: session.calls,
        priced: results.every((result) => result.unpricedCalls === 0),
        feasible: results.map((result) => result.feasible),
        compactions: results.map((result) => result.compactions),
        prunes: results.map((result) => result.prunes),
        costUsd: results.map((result) => micro(result.costUsd)),
        tokensSent: results.map((result) => result.tokensSent),
        used: results.map((result) => result.retention.used),
        kept: results.map((result) => result.retention.kept),
        aheadUsed: results.map((result) => result.afterCompaction.aheadUsed),
        aheadKept: results.map((result) => result.afterCompaction.aheadKept),
      });
    }
  }
  const table: EvidenceTable = {
    version: 1,
    command: options.command ?? 'npm run evidence',
    prices: { date: prices.date },
    estimator,
    windows,
    grid,
    policies,
    cells,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
  return { table, reports };
}

/** The unit the rule compares cost in: dollars when every corpus cell is priced, else input tokens. */
export function evidenceCostUnit(table: EvidenceTable): 'usd' | 'tokens' {
  return table.cells.filter((cell) => cell.source === 'corpus').every((cell) => cell.priced) ? 'usd' : 'tokens';
}

/** The corpus cells as the rule reads them. */
export function evidenceRuleCells(table: EvidenceTable): RuleCell[] {
  const unit = evidenceCostUnit(table);
  return table.cells
    .filter((cell) => cell.source === 'corpus')
    .map((cell) => ({
      session: cell.session,
      window: cell.window,
      calls: cell.calls,
      outcomes: table.policies.map((_, index) => {
        const figures = [
          cell.feasible[index],
          cell.compactions[index],
          cell.costUsd[index],
          cell.tokensSent[index],
          cell.used[index],
          cell.kept[index],
        ];
        if (figures.some((figure) => figure === undefined))
          throw new EvidenceRuleError(
            'misaligned',
            `${cell.session} @ ${cell.window} lacks figures for policy ${index + 1} of ${table.policies.length}`,
          );
        return {
          feasible: cell.feasible[index] as boolean,
          compactions: cell.compactions[index] as number,
          cost: (unit === 'usd' ? cell.costUsd[index] : cell.tokensSent[index]) as number,
          used: cell.used[index] as number,
          kept: cell.kept[index] as number,
        };
      }),
    }));
}

export interface EvidenceChoice {
  readonly selection: Selection;
  readonly policy: EvidencePolicy;
  readonly costUnit: 'usd' | 'tokens';
}

/** The rule applied to the table's corpus cells: what the defaults must be. */
export function selectFromEvidence(table: EvidenceTable): EvidenceChoice {
  const selection = selectDefaults({ policies: table.policies.map((policy) => policy.name), cells: evidenceRuleCells(table) });
  return { selection, policy: table.policies[selection.index] as EvidencePolicy, costUnit: evidenceCostUnit(table) };
}
