// Pricing a surface (SPEC §10): the tokens of each node by one estimator, cached by seq since
// events never change, and the total, calibrated on what the provider reported for the
// session's model calls when that is known (see calibration.ts).

import { canonicalJson } from '../log/canonical-json.js';
import { pricedText } from '../log/content-block.js';
import type { AssistantMessageData, ContentBlock, JsonObject, SurfaceType, ToolResultData } from '../log/event.js';
import type { SessionSeq } from '../log/seq.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import { type CalibrationAnchor, type CalibrationPoint, calibrate } from './calibration.js';
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

/** A model call the provider counted: what it reported, and the surface it was sent. */
export interface MeteredCall {
  /** The input tokens the provider reported for the call. */
  readonly inputTokens: number;
  /** The surface that call was sent, in order. */
  readonly surfaceSeqs: readonly number[];
}

/** What anchors a measurement on reported usage (SPEC §10). */
export interface MeterAnchor extends MeteredCall {
  /** The session's first call by the same model that reported its input; the latest call itself when absent. */
  readonly first?: MeteredCall;
  /** The price a metering event recorded for a node shadowed since a call; undefined if none did. */
  readonly shadowedPrice: (seq: number) => number | undefined;
}

export interface NodePrice {
  readonly seq: SessionSeq;
  readonly tokens: number;
}

export interface Measurement {
  /**
   * The calibrated tokens of the request: (estimate + fixed) × ratio, plus the part of the
   * anchor's count no estimate explains when `anchored` (see calibration.ts).
   */
  readonly total: number;
  /** The price of what every request carries besides the surface (tool definitions, parameters). */
  readonly fixed: number;
  /** Each node's estimated price, in surface order. */
  readonly nodes: readonly NodePrice[];
  /** True when `total` rests on reported usage; false when it is an estimate throughout. */
  readonly anchored: boolean;
  /** The ratio applied to estimates: the session's as its counts imply, or the model family's factor. */
  readonly ratio: number;
  /** Tokens of the request that no estimate accounts for (the unseen fixed part); 0 when not anchored. */
  readonly unseen: number;
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

  /**
   * Prices `nodes`; `fixed` is the price of the rest of each request (see Measurement.fixed),
   * `factor` the model family's calibration factor (tokens the provider counts per estimated
   * token; 1 when unknown).
   */
  measure(nodes: Iterable<SurfaceNode>, anchor?: MeterAnchor, fixed = 0, factor = 1): Measurement {
    const prices: NodePrice[] = [];
    let estimate = 0;
    for (const node of nodes) {
      const tokens = this.priceOf(node);
      prices.push({ seq: node.seq, tokens });
      estimate += tokens;
    }
    const estimator = this.estimator.name;
    const points = anchor === undefined ? undefined : anchorPoints(anchor, prices, fixed);
    const calibrated = calibrate(estimate + fixed, factor, points);
    return { ...calibrated, fixed, nodes: prices, estimate, estimator };
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

/**
 * The uncalibrated estimates of an anchor's calls, priced as their surfaces were then: nodes
 * still current at this measure's prices, nodes shadowed since at the price their metering event
 * recorded. Undefined when a shadowed node has no recorded price: the anchor cannot be priced,
 * and the measure stands on the estimate and the family factor alone.
 */
function anchorPoints(anchor: MeterAnchor, prices: readonly NodePrice[], fixed: number): CalibrationAnchor | undefined {
  const current = new Map<number, number>();
  for (const price of prices) current.set(price.seq, price.tokens);
  let surface = 0;
  let kept = 0;
  const pointOf = (call: MeteredCall): CalibrationPoint | undefined => {
    let estimate = 0;
    let stillCurrent = 0;
    for (const seq of call.surfaceSeqs) {
      const currentPrice = current.get(seq);
      const price = currentPrice ?? anchor.shadowedPrice(seq);
      if (price === undefined || !Number.isFinite(price)) return undefined;
      estimate += price;
      if (currentPrice !== undefined) stillCurrent += price;
    }
    surface = estimate;
    kept = stillCurrent;
    return { estimate: estimate + fixed, reported: call.inputTokens };
  };
  const first = anchor.first === undefined ? undefined : pointOf(anchor.first);
  // The latest call last, so that surface and kept describe it.
  const latest = pointOf(anchor);
  if (latest === undefined || (anchor.first !== undefined && first === undefined)) return undefined;
  return { first: first ?? latest, latest, keptShare: surface === 0 ? 1 : kept / surface };
}

/** The price of one content block: its overhead, and its text (an image by its size). */
export function priceOfBlock(block: ContentBlock, estimator: TokenEstimator): number {
  return BLOCK_OVERHEAD_TOKENS + (block.type === 'image' ? imageTokens(block.data?.length ?? 0) : estimator.countText(pricedText(block)));
}
