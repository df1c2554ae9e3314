// One line's worth of facts about a session, for `shadowlog sessions`: where it came from (its
// origin), the models it called, its calls, compactions (shadowlog's or its source harness's,
// and the client's own rewrites the proxy recorded), the tokens its providers reported and what
// they cost at the dated price table. One pass over the log, a page of a thousand events at a time.

import { COMPACTION_SUMMARY } from '../compaction/index.js';
import {
  dataOf,
  type SessionContinuation,
  SessionOriginFold,
  type SessionParent,
  type SessionSource,
  type WhatIfLink,
} from '../log/index.js';
import { CostLedger, type PriceTable } from '../meter/index.js';
import type { LogStore, StoredSession } from '../store/index.js';
import { clientRewriteOf } from './stats-money.js';

export interface SessionOverview {
  readonly id: string;
  readonly events: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** A sub-session's parent (the session and tool call that spawned it), or a branch's parent (SPEC §14; forkSeq then set). */
  readonly parent?: SessionParent;
  /**
   * For a branch: the seq of its parent's event it forks after. Its events 0 … forkSeq are the
   * parent's, so its calls, compactions, tokens and cost count its own events only (the
   * prefix is counted once, in the parent).
   */
  readonly forkSeq?: number;
  /** The session the proxy judged this one likely continues (a client's compaction sent without a conversation id), never merged. */
  readonly continues?: SessionContinuation;
  /** A what-if session: the recorded call it asks again (SPEC §15). */
  readonly whatif?: WhatIfLink;
  /** The what-if sessions listed with it that ask its calls again. */
  readonly whatifs?: readonly string[];
  readonly source: SessionSource;
  /** The source harness's own id of the session, for an imported one. */
  readonly sourceId: string | null;
  /** The working directory its source recorded. */
  readonly project: string | null;
  /** The models it called, most calls first (then in the order of their first call). */
  readonly models: readonly string[];
  readonly firstRequest: string | null;
  /** The time of its last event. */
  readonly lastActivity: string;
  readonly calls: number;
  /** Replacements by compaction: shadowlog's, or, in an import, the source harness's own. */
  readonly compactions: number;
  /** Rewrites of its history by the client, recorded by the proxy: the client's own compactions. */
  readonly clientCompactions: number;
  readonly tokens: {
    readonly input: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
    readonly output: number;
    /** Input and output. */
    readonly total: number;
  };
  readonly cost: {
    /** Dollars of the priced calls; null when no call could be priced. */
    readonly usd: number | null;
    readonly pricedCalls: number;
    readonly unpricedCalls: number;
    readonly unpricedModels: readonly string[];
  };
}

export async function overviewOf(store: LogStore, session: StoredSession, prices: PriceTable): Promise<SessionOverview> {
  const origin = new SessionOriginFold(session.id);
  const ledger = new CostLedger(prices);
  const models = new Map<string, number>();
  let parent: SessionParent | undefined;
  let continues: SessionContinuation | undefined;
  let whatif: WhatIfLink | undefined;
  let calls = 0;
  let compactions = 0;
  let clientCompactions = 0;
  const forkSeq = session.parent?.forkSeq;
  for await (const page of store.read(session.id, { pageSize: 1_000 })) {
    for (const event of page) {
      if (!origin.complete) origin.apply(event);
      // A branch's prefix is its parent's, counted there.
      if (forkSeq !== undefined && event.seq <= forkSeq) {
        if (event.type === 'session/start') ({ continues, whatif } = dataOf(event, 'session/start'));
        continue;
      }
      ledger.apply(event);
      switch (event.type) {
        case 'session/start':
          ({ parent, continues, whatif } = dataOf(event, 'session/start'));
          break;
        case 'model/request': {
          calls++;
          const data = dataOf(event, 'model/request');
          models.set(data.model, (models.get(data.model) ?? 0) + 1);
          if (clientRewriteOf(event) !== undefined) clientCompactions++;
          break;
        }
        case COMPACTION_SUMMARY:
          compactions++;
          break;
        default:
      }
    }
  }
  const cost = ledger.summary();
  const tokens = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, total: 0 };
  for (const model of cost.byModel) {
    tokens.input += model.inputTokens;
    tokens.cacheRead += model.cacheReadTokens;
    tokens.cacheWrite += model.cacheWriteTokens;
    tokens.output += model.outputTokens;
  }
  tokens.total = tokens.input + tokens.output;
  return {
    id: session.id,
    events: session.events,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    ...(session.parent !== undefined
      ? { parent: { sessionId: session.parent.sessionId }, forkSeq: session.parent.forkSeq }
      : parent === undefined
        ? {}
        : { parent }),
    ...(continues === undefined ? {} : { continues }),
    ...(whatif === undefined ? {} : { whatif }),
    ...origin.origin(),
    models: [...models].sort((a, b) => b[1] - a[1]).map(([model]) => model),
    lastActivity: session.updatedAt,
    calls,
    compactions,
    clientCompactions,
    tokens,
    cost: {
      usd: cost.pricedCalls === 0 ? null : cost.total.total,
      pricedCalls: cost.pricedCalls,
      unpricedCalls: cost.unpricedCalls,
      unpricedModels: cost.unpricedModels,
    },
  };
}
