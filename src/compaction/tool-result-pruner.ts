// The tool-result pruner (SPEC §9): a long tool result is shadowed by a copy that keeps its
// head and tail around one marker. No model call; the original stays in the log. Hand it to
// compaction, which prunes once its trigger qualifies and summarizes only if that was not
// enough. It prunes results the model has already been sent first; one it has not seen yet
// is cut only when the surface cannot fit otherwise, and its compaction/prune says so.

import type { ContentBlock, EventDraft, ToolResultData } from '../log/event.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { SurfaceMeter } from '../meter/measure.js';
import type { SessionLog } from '../store/session-log.js';
import { COMPACTION_EVENT_TYPES, COMPACTION_PRUNE } from './event-types.js';
import { type PrunerConfig, type PrunerOptions, parsePrunerConfig, pruneMarker } from './pruner-config.js';
import { sentNodes } from './sent-nodes.js';

export interface PruneResult {
  /** The seqs of the tool results that were shadowed. */
  readonly pruned: readonly number[];
  /** Those of them the model had not been sent yet (their compaction/prune says `unseen: true`). */
  readonly unseen: readonly number[];
  readonly charsBefore: number;
  readonly charsAfter: number;
}

/** What the surface must fit: with it, results not sent yet are pruned only as far as needed. */
export interface PruneFit {
  /** The surface must come below this many tokens (compaction's threshold). */
  readonly threshold: number;
  /** The surface's tokens now, measured after the sent results are pruned and after each unsent one. */
  readonly measure: () => number;
}

interface Candidate {
  readonly node: SurfaceNode;
  readonly cut: { blocks: ContentBlock[]; charsBefore: number; charsAfter: number };
}

export class ToolResultPruner {
  readonly name = 'tool-result-pruner';
  readonly eventTypes = COMPACTION_EVENT_TYPES;
  readonly config: PrunerConfig;

  constructor(options: PrunerOptions = {}) {
    this.config = parsePrunerConfig(options);
  }

  /** The replacement blocks for a tool result's content, or undefined when it is short enough. */
  cut(
    content: readonly ContentBlock[],
    originalSeq: number,
  ): { blocks: ContentBlock[]; charsBefore: number; charsAfter: number } | undefined {
    const { thresholdChars, headChars, tailChars } = this.config;
    const total = content.reduce((sum, block) => sum + (block.type === 'text' ? codePointLength(block.text) : 0), 0);
    if (total <= thresholdChars) return undefined;
    const omitted = total - headChars - tailChars;
    const marker = pruneMarker(omitted, originalSeq);
    const blocks: ContentBlock[] = [];
    let offset = 0;
    let markerPlaced = false;
    for (const block of content) {
      if (block.type !== 'text') {
        blocks.push(block); // non-text blocks stay in place
        continue;
      }
      const length = codePointLength(block.text);
      const keepHead = Math.max(0, Math.min(length, headChars - offset));
      const tailStart = Math.max(0, total - tailChars - offset); // within this block
      let text = sliceCodePoints(block.text, 0, keepHead);
      if (!markerPlaced && offset + length > headChars) {
        text += marker;
        markerPlaced = true;
      }
      if (tailStart < length) text += sliceCodePoints(block.text, Math.max(tailStart, keepHead), length);
      if (text !== '') blocks.push({ type: 'text', text });
      offset += length;
    }
    const charsAfter = headChars + codePointLength(marker) + tailChars;
    return { blocks, charsBefore: total, charsAfter };
  }

  /**
   * Shadows the long tool results on the surface, each in one atomic batch: compaction/prune
   * (with the original's price) and the replacing tool/result. Every long result the model has
   * been sent is pruned. One it has not been sent yet is pruned only when the surface cannot
   * fit otherwise: with `fit`, the largest first and only while the surface is still at or over
   * its threshold; without it (a provider has just refused the request as too long), all of them.
   */
  async prune(log: SessionLog, meter: SurfaceMeter, fit?: PruneFit): Promise<PruneResult> {
    const candidates: Candidate[] = [];
    for (const node of log.fold.toArray()) {
      if (node.type !== 'tool/result') continue;
      const cut = this.cut((node.event.data as unknown as ToolResultData).content, node.seq);
      if (cut !== undefined) candidates.push({ node, cut });
    }
    const result = { pruned: [] as number[], unseen: [] as number[], charsBefore: 0, charsAfter: 0 };
    if (candidates.length === 0) return result;
    const sent = await sentNodes(log, (candidates[0] as Candidate).node.seq);
    const notSent = candidates.filter((candidate) => !sent(candidate.node.seq));
    for (const candidate of candidates) if (sent(candidate.node.seq)) await this.replace(log, meter, candidate, false, result);
    // Largest first, so that as few results as possible reach the model only as head and tail.
    const order = notSent
      .map((candidate) => ({ candidate, price: meter.priceOf(candidate.node) }))
      .sort((a, b) => b.price - a.price || a.candidate.node.seq - b.candidate.node.seq);
    for (const { candidate } of order) {
      if (fit !== undefined && fit.measure() < fit.threshold) break;
      await this.replace(log, meter, candidate, true, result);
    }
    return result;
  }

  private async replace(
    log: SessionLog,
    meter: SurfaceMeter,
    { node, cut }: Candidate,
    unseen: boolean,
    result: { pruned: number[]; unseen: number[]; charsBefore: number; charsAfter: number },
  ): Promise<void> {
    const original = node.event.data as unknown as ToolResultData;
    const pruneSeq = log.nextSeq;
    const data: Record<string, unknown> = { callId: original.callId, content: cut.blocks };
    if (original.error !== undefined) data.error = original.error;
    const drafts: EventDraft[] = [
      {
        type: COMPACTION_PRUNE,
        data: {
          shadowedSeqs: [node.seq],
          shadowedTokenCount: meter.priceOf(node),
          replacementTokenCount: meter.priceOfData('tool/result', data),
          charsBefore: cut.charsBefore,
          charsAfter: cut.charsAfter,
          // Absent when the model had seen the whole result: optional fields are left out (SPEC §2).
          ...(unseen ? { unseen: true } : {}),
        },
        ignorable: true,
      },
      {
        type: 'tool/result',
        data,
        surfaceOp: { op: 'replace', startSeq: node.seq as never, endSeq: node.seq as never },
        sourceEventSeqs: [node.seq, pruneSeq],
      },
    ];
    await log.append(drafts);
    result.pruned.push(node.seq);
    if (unseen) result.unseen.push(node.seq);
    result.charsBefore += cut.charsBefore;
    result.charsAfter += cut.charsAfter;
  }
}

/**
 * The tool-result pruner (SPEC §9): a tool result longer than `thresholdChars` keeps its head
 * and tail, and a marker naming the event that still holds the whole result stands for the
 * middle. Pass it to createCompaction({pruner}); bad values are refused with a ConfigError.
 */
export function createToolResultPruner(options: PrunerOptions = {}): ToolResultPruner {
  return new ToolResultPruner(options);
}

/** Code points, not UTF-16 units: a surrogate pair counts once and is never split. */
export function codePointLength(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

/** The UTF-16 index at which code point number `codePoints` starts. */
function indexOfCodePoint(text: string, codePoints: number): number {
  let index = 0;
  for (let count = 0; count < codePoints && index < text.length; count++) {
    const unit = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    index += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return index;
}

export function sliceCodePoints(text: string, start: number, end: number): string {
  if (end <= start) return '';
  const from = indexOfCodePoint(text, start);
  return text.slice(from, from + indexOfCodePoint(text.slice(from), end - start));
}
