// What compaction keeps per session, updated from every event in seq order: the lock (open
// compactions since the latest lifecycle boundary), the meter's anchors (per model, the first
// and the latest model call that reported its input tokens, and the surfaces they were sent),
// and the prices recorded for nodes shadowed since the latest anchor or out of a first one.

import type { LogEvent } from '../log/event.js';
import { isSurfaceType } from '../log/event.js';
import { RequestSurfaceDecoder } from '../log/request-surface.js';
import {
  COMPACTION_END,
  COMPACTION_MASK,
  COMPACTION_POLICY,
  COMPACTION_PRUNE,
  COMPACTION_START,
  COMPACTION_SUMMARY,
  type CompactionPolicyData,
  type CompactionSummaryData,
} from './event-types.js';

export interface UsageAnchor {
  readonly inputTokens: number;
  readonly surfaceSeqs: readonly number[];
  readonly provider: string;
  readonly model: string;
}

interface PendingRequest {
  readonly surfaceSeqs: readonly number[];
  readonly provider: string;
  readonly model: string;
}

/** The key of a provider and model in firstAnchors. */
export function anchorKey(provider: string, model: string): string {
  return JSON.stringify([provider, model]);
}

export class CompactionSessionState {
  /** compaction/start events with no compaction/end since the latest session/end-seed: id → seq. */
  readonly openCompactions = new Map<string, number>();
  /** The latest model call that reported its input tokens. */
  anchor: UsageAnchor | undefined;
  /** Per provider and model (anchorKey), the first such call: the unseen fixed part shows in it. */
  readonly firstAnchors = new Map<string, UsageAnchor>();
  /** Prices recorded by metering events for nodes shadowed since the anchor. */
  readonly shadowedPrices = new Map<number, number>();
  /** Prices recorded by metering events for nodes of a first anchor's surface (kept past later anchors). */
  readonly firstAnchorPrices = new Map<number, number>();
  private readonly firstAnchorSeqs = new Set<number>();
  /** Surface events appended (not replacements) so far; the loop breaker compares it. */
  surfaceAppends = 0;
  /** The compaction/policy recorded in this lifecycle (since the latest session/end-seed), if any. */
  policy: { readonly seq: number; readonly data: CompactionPolicyData } | undefined;
  private pendingRequest: PendingRequest | undefined;
  private readonly requests = new RequestSurfaceDecoder();

  observe(event: LogEvent): void {
    const data = event.data;
    switch (event.type) {
      case 'session/end-seed':
        // A new lifecycle: a start left open before it is stale evidence, not a live lock; and
        // the policy is recorded again for it.
        this.openCompactions.clear();
        this.policy = undefined;
        return;
      case COMPACTION_POLICY:
        this.policy = { seq: event.seq, data: data as unknown as CompactionPolicyData };
        return;
      case COMPACTION_START:
        this.openCompactions.set(String(data.compactionId), event.seq);
        return;
      case COMPACTION_END:
        this.openCompactions.delete(String(data.compactionId));
        return;
      case 'model/request':
        this.pendingRequest = { surfaceSeqs: this.requests.decode(event), provider: String(data.provider), model: String(data.model) };
        return;
      case COMPACTION_SUMMARY: {
        const summary = data as unknown as CompactionSummaryData;
        const prices = Array.isArray(summary.shadowedTokens) ? summary.shadowedTokens : [];
        summary.shadowedSeqs.forEach((seq, index) => {
          const price = prices[index];
          if (typeof price === 'number') this.recordPrice(seq, price);
        });
        return;
      }
      case COMPACTION_MASK:
      case COMPACTION_PRUNE: {
        const [seq] = data.shadowedSeqs as number[];
        if (seq !== undefined) this.recordPrice(seq, data.shadowedTokenCount as number);
        return;
      }
      case 'assistant/message': {
        const usage = data.usage as { inputTokens: number } | undefined;
        if (usage !== undefined && this.pendingRequest !== undefined) {
          this.anchor = { inputTokens: usage.inputTokens, ...this.pendingRequest };
          const key = anchorKey(this.anchor.provider, this.anchor.model);
          if (!this.firstAnchors.has(key)) {
            this.firstAnchors.set(key, this.anchor);
            for (const seq of this.anchor.surfaceSeqs) this.firstAnchorSeqs.add(seq);
          }
          // Nodes shadowed before this call were not in what it was sent.
          this.shadowedPrices.clear();
        }
        this.pendingRequest = undefined;
        if (event.surfaceOp === 'append') this.surfaceAppends++;
        return;
      }
      default:
        if (isSurfaceType(event.type) && event.surfaceOp === 'append') this.surfaceAppends++;
    }
  }

  /** The price a metering event recorded for a node it shadowed; undefined when none did. */
  shadowedPrice(seq: number): number | undefined {
    return this.shadowedPrices.get(seq) ?? this.firstAnchorPrices.get(seq);
  }

  private recordPrice(seq: number, price: number): void {
    this.shadowedPrices.set(seq, price);
    if (this.firstAnchorSeqs.has(seq)) this.firstAnchorPrices.set(seq, price);
  }
}
