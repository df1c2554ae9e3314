// What compaction keeps per session, updated from every event in seq order: the lock (open
// compactions since the latest lifecycle boundary), the meter's anchors (per model, the first
// and the latest model call that reported its input tokens, and the surfaces they were sent),
// and the prices recorded for nodes shadowed since the latest anchor or out of a first one.

import { FoldStateError } from '../log/errors.js';
import type { JsonObject, JsonValue, LogEvent } from '../log/event.js';
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
      case 'session/fork':
        // A new lifecycle (a branch starts one too, SPEC §14): a start left open before it is stale evidence, not a live lock; and
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

  /** Everything above as JSON, for a fold checkpoint (Capability.observedState); maps as lists of entries, in their order. */
  save(): JsonValue {
    const latest = this.requests.latest;
    return {
      openCompactions: [...this.openCompactions],
      anchor: this.anchor === undefined ? null : anchorJson(this.anchor),
      firstAnchors: [...this.firstAnchors].map(([key, anchor]) => [key, anchorJson(anchor)]),
      shadowedPrices: [...this.shadowedPrices],
      firstAnchorPrices: [...this.firstAnchorPrices],
      firstAnchorSeqs: [...this.firstAnchorSeqs],
      surfaceAppends: this.surfaceAppends,
      policy: this.policy === undefined ? null : { seq: this.policy.seq, data: this.policy.data as unknown as JsonValue },
      pendingRequest: this.pendingRequest === undefined ? null : pendingJson(this.pendingRequest),
      latestRequest: latest === undefined ? null : { seq: latest.seq, seqs: [...latest.seqs] },
    };
  }

  /** The state a `save` returned; throws FoldStateError when `saved` is not one. */
  static restore(saved: JsonValue): CompactionSessionState {
    const body = objectOf(saved, 'the compaction state');
    const state = new CompactionSessionState();
    for (const [id, seq] of entries(body.openCompactions, 'openCompactions', isString, isCount)) state.openCompactions.set(id, seq);
    state.anchor = body.anchor === null ? undefined : anchorOf(body.anchor, 'anchor');
    for (const [key, anchor] of entries(body.firstAnchors, 'firstAnchors', isString, isPresent))
      state.firstAnchors.set(key, anchorOf(anchor, 'firstAnchors'));
    for (const [seq, price] of entries(body.shadowedPrices, 'shadowedPrices', isCount, isNumber)) state.shadowedPrices.set(seq, price);
    for (const [seq, price] of entries(body.firstAnchorPrices, 'firstAnchorPrices', isCount, isNumber))
      state.firstAnchorPrices.set(seq, price);
    for (const seq of seqsOf(body.firstAnchorSeqs, 'firstAnchorSeqs')) state.firstAnchorSeqs.add(seq);
    if (!isCount(body.surfaceAppends)) throw new FoldStateError('the compaction state has no count of surface appends');
    state.surfaceAppends = body.surfaceAppends;
    if (body.policy !== null) {
      const policy = objectOf(body.policy, 'policy');
      if (!isCount(policy.seq)) throw new FoldStateError('the compaction state names its policy by no seq');
      state.policy = { seq: policy.seq, data: objectOf(policy.data, 'policy.data') as unknown as CompactionPolicyData };
    }
    if (body.pendingRequest !== null) {
      const pending = objectOf(body.pendingRequest, 'pendingRequest');
      state.pendingRequest = {
        surfaceSeqs: seqsOf(pending.surfaceSeqs, 'pendingRequest'),
        provider: stringOf(pending.provider, 'pendingRequest'),
        model: stringOf(pending.model, 'pendingRequest'),
      };
    }
    if (body.latestRequest !== null) {
      const latest = objectOf(body.latestRequest, 'latestRequest');
      if (!isCount(latest.seq)) throw new FoldStateError('the compaction state names its latest request by no seq');
      state.requests.resumeFrom({ seq: latest.seq, seqs: seqsOf(latest.seqs, 'latestRequest') });
    }
    return state;
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

function anchorJson(anchor: UsageAnchor): JsonObject {
  return { inputTokens: anchor.inputTokens, ...pendingJson(anchor) };
}

function pendingJson(request: PendingRequest): JsonObject {
  return { surfaceSeqs: [...request.surfaceSeqs], provider: request.provider, model: request.model };
}

function anchorOf(value: JsonValue | undefined, field: string): UsageAnchor {
  const body = objectOf(value, field);
  if (!isNumber(body.inputTokens)) throw new FoldStateError(`the compaction state's ${field} has no input tokens`);
  return {
    inputTokens: body.inputTokens,
    surfaceSeqs: seqsOf(body.surfaceSeqs, field),
    provider: stringOf(body.provider, field),
    model: stringOf(body.model, field),
  };
}

function objectOf(value: JsonValue | undefined, field: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new FoldStateError(`the compaction state's ${field} is not an object`);
  return value;
}

function stringOf(value: JsonValue | undefined, field: string): string {
  if (!isString(value)) throw new FoldStateError(`the compaction state's ${field} names no provider or model`);
  return value;
}

function seqsOf(value: JsonValue | undefined, field: string): number[] {
  if (!Array.isArray(value) || !value.every(isCount)) throw new FoldStateError(`the compaction state's ${field} is not a list of seqs`);
  return value as number[];
}

function entries<K, V>(
  value: JsonValue | undefined,
  field: string,
  isKey: (key: unknown) => key is K,
  isValue: (value: unknown) => value is V,
): [K, V][] {
  if (!Array.isArray(value)) throw new FoldStateError(`the compaction state's ${field} is not a list`);
  for (const entry of value) {
    if (!Array.isArray(entry) || entry.length !== 2 || !isKey(entry[0]) || !isValue(entry[1]))
      throw new FoldStateError(`the compaction state's ${field} holds an entry that is not [key, value]`);
  }
  return value as unknown as [K, V][];
}

function isPresent(value: unknown): value is JsonValue {
  return value !== undefined;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
