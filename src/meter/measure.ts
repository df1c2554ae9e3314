// Pricing a surface (SPEC §10): the tokens of each node by one estimator, cached by seq since
// events never change, and the total, anchored on what the provider reported for the latest
// model call when that is known.

import { canonicalJson } from '../log/canonical-json.js';
import { pricedText } from '../log/content-block.js';
import type { AssistantMessageData, ContentBlock, JsonObject, SurfaceType, ToolResultData } from '../log/event.js';
import type { SessionSeq } from '../log/seq.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { EstimatorName, TokenEstimator } from './token-estimator.js';

/** Every message costs this much besides its content (role and framing). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Every content block costs this much besides its text. */
export const BLOCK_OVERHEAD_TOKENS = 4;

// An image is priced from its size, since its pixels are not decoded. Anthropic charges about
// width × height / 750 tokens and OpenAI 85 + 170 per 512-pixel tile; a compressed screenshot
// or photo holds roughly 0.2 bytes per pixel, so about one token per 150 bytes. The floor is
// OpenAI's low-detail price, the ceiling Anthropic's largest image after its resizing
// (1,568 pixels on the long side, about 1,600 tokens), which also covers OpenAI's high detail.
export const IMAGE_MIN_TOKENS = 85;
export const IMAGE_MAX_TOKENS = 1600;
const IMAGE_BYTES_PER_TOKEN = 150;

/** The estimated tokens of an image whose base64 data is `base64Length` characters long. */
export function imageTokens(base64Length: number): number {
  const bytes = Math.floor((base64Length * 3) / 4);
  return Math.min(IMAGE_MAX_TOKENS, Math.max(IMAGE_MIN_TOKENS, Math.ceil(bytes / IMAGE_BYTES_PER_TOKEN)));
}

/** What anchors a measurement on reported usage (SPEC §10). */
export interface MeterAnchor {
  /** The input tokens the provider reported for the latest model call. */
  readonly inputTokens: number;
  /** The surface that call was sent, in order. */
  readonly surfaceSeqs: readonly number[];
  /** The price a metering event recorded for a node shadowed since that call; undefined if none did. */
  readonly shadowedPrice: (seq: number) => number | undefined;
}

export interface NodePrice {
  readonly seq: SessionSeq;
  readonly tokens: number;
}

export interface Measurement {
  /**
   * The tokens of the request: anchored when `anchored` (the reported count already holds the
   * fixed part), else the sum of the node prices plus `fixed`.
   */
  readonly total: number;
  /** The price of what every request carries besides the surface (tool definitions, parameters). */
  readonly fixed: number;
  /** Each node's estimated price, in surface order. */
  readonly nodes: readonly NodePrice[];
  /** True when `total` rests on reported usage; false when it is an estimate throughout. */
  readonly anchored: boolean;
  /** The sum of the node prices, whether or not the total is anchored. */
  readonly estimate: number;
  readonly estimator: EstimatorName;
}

interface CachedPrice {
  /** The event's hash: a meter shared by two sessions (whose seqs collide) stays correct. */
  readonly hash: string;
  readonly tokens: number;
}

/** Measures a surface in tokens with an estimator, anchored to the input tokens a provider last reported. */
export class SurfaceMeter {
  readonly estimator: TokenEstimator;
  private readonly prices = new Map<number, CachedPrice>();
  private sentSeqs: readonly number[] | undefined;
  private sentSet: ReadonlySet<number> = new Set();

  constructor(estimator: TokenEstimator) {
    this.estimator = estimator;
  }

  /** The number of node prices held; `forget` shadowed nodes to keep it near the surface's size. */
  get cachedNodes(): number {
    return this.prices.size;
  }

  /** The price of one node, computed once per event. */
  priceOf(node: SurfaceNode): number {
    const cached = this.prices.get(node.seq);
    if (cached !== undefined && cached.hash === node.event.hash) return cached.tokens;
    const tokens = this.priceOfData(node.type, node.event.data);
    this.prices.set(node.seq, { hash: node.event.hash, tokens });
    return tokens;
  }

  /** The price a node of `type` would have with `text` as its one text block (a summary, say). */
  priceOfText(type: SurfaceType, text: string): number {
    return this.priceOfData(type, { content: [{ type: 'text', text }], toolCalls: [] });
  }

  /** Drops the cached price of a node that is no longer on the surface. */
  forget(seq: number): void {
    this.prices.delete(seq);
  }

  /**
   * Drops cached prices of nodes not in `current` once the cache holds more than twice as many
   * nodes as the surface, so that memory follows the surface at an amortized constant cost.
   */
  trimTo(current: readonly SurfaceNode[]): void {
    if (this.prices.size <= 2 * current.length + 64) return;
    const keep = new Set<number>(current.map((node) => node.seq));
    for (const seq of this.prices.keys()) if (!keep.has(seq)) this.prices.delete(seq);
  }

  /** Prices `nodes`; `fixed` is the price of the rest of each request (see Measurement.fixed). */
  measure(nodes: Iterable<SurfaceNode>, anchor?: MeterAnchor, fixed = 0): Measurement {
    const prices: NodePrice[] = [];
    let estimate = 0;
    let sentStillCurrent = 0;
    let appendedSince = 0;
    const sent = anchor === undefined ? undefined : this.sentSetOf(anchor.surfaceSeqs);
    for (const node of nodes) {
      const tokens = this.priceOf(node);
      prices.push({ seq: node.seq, tokens });
      estimate += tokens;
      if (sent === undefined) continue;
      if (sent.has(node.seq)) sentStillCurrent++;
      else appendedSince += tokens;
    }
    const estimator = this.estimator.name;
    const plain: Measurement = { total: estimate + fixed, fixed, nodes: prices, anchored: false, estimate, estimator };
    if (anchor === undefined || sent === undefined) return plain;
    if (!Number.isSafeInteger(anchor.inputTokens) || anchor.inputTokens < 0) return plain;

    let shadowedSince = 0;
    if (sentStillCurrent < sent.size) {
      const current = new Set<number>();
      for (const price of prices) current.add(price.seq);
      for (const seq of sent) {
        if (current.has(seq)) continue;
        const recorded = anchor.shadowedPrice(seq);
        // A node shadowed without a recorded price: the anchor cannot be corrected, so the
        // estimate stands on its own.
        if (recorded === undefined || !Number.isFinite(recorded)) return plain;
        shadowedSince += recorded;
      }
    }
    const total = anchor.inputTokens + appendedSince - shadowedSince;
    // Recorded prices larger than the whole reported request mean the anchor does not describe
    // this surface; trust the estimate instead.
    if (total < 0) return plain;
    return { total, fixed, nodes: prices, anchored: true, estimate, estimator };
  }

  /** The set of an anchor's seqs; the anchor changes once per model call, the meter runs every step. */
  private sentSetOf(surfaceSeqs: readonly number[]): ReadonlySet<number> {
    if (surfaceSeqs !== this.sentSeqs) {
      this.sentSeqs = surfaceSeqs;
      this.sentSet = new Set(surfaceSeqs);
    }
    return this.sentSet;
  }

  /** The price of a node of `type` with this data. */
  priceOfData(type: SurfaceType, data: JsonObject | object): number {
    const estimator = this.estimator;
    const content = (data as { content?: unknown }).content;
    let tokens = MESSAGE_OVERHEAD_TOKENS + (Array.isArray(content) ? this.priceOfBlocks(content as ContentBlock[]) : 0);
    if (type === 'assistant/message') {
      const toolCalls = (data as Partial<AssistantMessageData>).toolCalls ?? [];
      for (const call of toolCalls) tokens += estimator.countText(call.name) + estimator.countText(canonicalJson(call.arguments));
    } else if (type === 'tool/result') {
      const error = (data as Partial<ToolResultData>).error;
      if (error !== undefined && error !== true) tokens += estimator.countText(error.message);
    }
    return tokens;
  }

  private priceOfBlocks(blocks: readonly ContentBlock[]): number {
    let tokens = 0;
    for (const block of blocks) tokens += priceOfBlock(block, this.estimator);
    return tokens;
  }
}

/** The price of one content block: its overhead, and its text (an image by its size). */
export function priceOfBlock(block: ContentBlock, estimator: TokenEstimator): number {
  return BLOCK_OVERHEAD_TOKENS + (block.type === 'image' ? imageTokens(block.data?.length ?? 0) : estimator.countText(pricedText(block)));
}
