// What a session's model calls cost, from the usage the providers reported and a dated price
// table (the one `tune` prices its replays with). Each answer is priced at its model's price:
// uncached input, cache reads, cache writes and output apart. A model the table does not know is
// counted and named as unpriced, never priced at 0; an answer without usage is counted too.

import type { LogEvent, Usage } from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import { type PriceTable, priceOf, type UsageCost, usageCost } from './prices.js';

/** One model call and what it cost. */
export interface CallCost {
  /** The seq of its model/request. */
  readonly seq: number;
  readonly turn: number;
  readonly step: number;
  /** The model that answered (the answer's, else the request's). */
  readonly model: string;
  /** The usage its provider reported; null when it reported none (the call failed, or the source kept none). */
  readonly usage: Usage | null;
  /** Dollars; null when the call has no usage or its model is unpriced. */
  readonly cost: UsageCost | null;
  readonly unpriced: boolean;
}

/** The calls of one model and their sum. */
export interface ModelCost {
  readonly model: string;
  readonly calls: number;
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  /** Null for a model the table does not know. */
  readonly cost: UsageCost | null;
}

export interface SessionCost {
  readonly currency: 'USD';
  readonly prices: { readonly date: string; readonly source: string };
  /** The sum over the priced calls; the unpriced ones are left out and counted below. */
  readonly total: UsageCost;
  readonly pricedCalls: number;
  /** Calls with usage whose model the table does not know. */
  readonly unpricedCalls: number;
  readonly unpricedModels: readonly string[];
  /** Calls whose provider reported no usage (failed calls among them). */
  readonly callsWithoutUsage: number;
  readonly byModel: readonly ModelCost[];
}

const ZERO: UsageCost = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, total: 0 };

interface PendingCall {
  readonly seq: number;
  readonly turn: number;
  readonly step: number;
  readonly model: string;
}

/** Apply a session's events in order; `calls` and `summary()` say what they cost. */
export class CostLedger {
  readonly calls: CallCost[] = [];
  private pending: PendingCall | undefined;

  constructor(private readonly table: PriceTable) {}

  apply(event: LogEvent): void {
    switch (event.type) {
      case 'model/request': {
        this.settle();
        const data = dataOf(event, 'model/request');
        this.pending = { seq: event.seq, turn: data.turn, step: data.step, model: data.model };
        return;
      }
      case 'assistant/message': {
        const data = dataOf(event, 'assistant/message');
        this.answer(data.usage, data.model);
        return;
      }
      case 'model/unrecorded-answer':
        this.answer(dataOf(event, 'model/unrecorded-answer').usage, undefined);
        return;
      case 'model/error':
        this.settle();
        return;
      default:
    }
  }

  /** The sums; call it after the last event. */
  summary(): SessionCost {
    this.settle();
    const models = new Map<string, { calls: number; usage: [number, number, number, number]; cost: UsageCost | null }>();
    let total = ZERO;
    let pricedCalls = 0;
    let unpricedCalls = 0;
    let callsWithoutUsage = 0;
    const unpriced = new Set<string>();
    for (const call of this.calls) {
      if (call.usage === null) {
        callsWithoutUsage++;
        continue;
      }
      const entry = models.get(call.model) ?? { calls: 0, usage: [0, 0, 0, 0], cost: call.unpriced ? null : ZERO };
      entry.calls++;
      entry.usage[0] += call.usage.inputTokens;
      entry.usage[1] += call.usage.cacheReadTokens ?? 0;
      entry.usage[2] += call.usage.cacheWriteTokens ?? 0;
      entry.usage[3] += call.usage.outputTokens;
      if (call.cost !== null) {
        pricedCalls++;
        total = addCost(total, call.cost);
        entry.cost = addCost(entry.cost ?? ZERO, call.cost);
      } else {
        unpricedCalls++;
        unpriced.add(call.model);
      }
      models.set(call.model, entry);
    }
    return {
      currency: 'USD',
      prices: { date: this.table.date, source: this.table.source },
      total,
      pricedCalls,
      unpricedCalls,
      unpricedModels: [...unpriced].sort(),
      callsWithoutUsage,
      byModel: [...models].map(([model, entry]) => ({
        model,
        calls: entry.calls,
        inputTokens: entry.usage[0],
        cacheReadTokens: entry.usage[1],
        cacheWriteTokens: entry.usage[2],
        outputTokens: entry.usage[3],
        cost: entry.cost,
      })),
    };
  }

  private answer(usage: Usage | undefined, answeredBy: string | undefined): void {
    const call = this.pending;
    if (call === undefined) return;
    this.pending = undefined;
    const model = answeredBy ?? call.model;
    const price = priceOf(this.table, model);
    this.calls.push({
      ...call,
      model,
      usage: usage ?? null,
      cost: usage === undefined || price === undefined ? null : usageCost(price, usage),
      unpriced: usage !== undefined && price === undefined,
    });
  }

  /** A request that got no answer (it failed, or the log ends there) is a call without usage. */
  private settle(): void {
    if (this.pending === undefined) return;
    this.calls.push({ ...this.pending, usage: null, cost: null, unpriced: false });
    this.pending = undefined;
  }
}

function addCost(a: UsageCost, b: UsageCost): UsageCost {
  return {
    input: a.input + b.input,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    output: a.output + b.output,
    total: a.total + b.total,
  };
}
