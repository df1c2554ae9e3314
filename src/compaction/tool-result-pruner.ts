// The tool-result pruner (SPEC §9): a long tool result is shadowed by a copy that keeps its
// head and tail around one marker. No model call; the original stays in the log. Mount it
// alone (it prunes before a step once the surface is over the threshold), or hand it to
// compaction, which prunes first and summarizes only if that was not enough.

import type { ContentBlock, EventDraft, ToolResultData } from '../log/event.js';
import type { SurfaceMeter } from '../meter/measure.js';
import type { SessionLog } from '../store/session-log.js';
import { COMPACTION_EVENT_TYPES, COMPACTION_PRUNE } from './event-types.js';
import { type PrunerConfig, parsePrunerConfig, pruneMarker } from './pruner-config.js';

export interface PruneResult {
  /** The seqs of the tool results that were shadowed. */
  readonly pruned: readonly number[];
  readonly charsBefore: number;
  readonly charsAfter: number;
}

export class ToolResultPruner {
  readonly name = 'tool-result-pruner';
  readonly eventTypes = COMPACTION_EVENT_TYPES;
  readonly config: PrunerConfig;

  constructor(config: unknown = {}) {
    this.config = parsePrunerConfig(config);
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
   * Shadows every tool result on the surface that is over the threshold. Each is one atomic
   * batch: compaction/prune (with the original's price) and the replacing tool/result.
   */
  async prune(log: SessionLog, meter: SurfaceMeter): Promise<PruneResult> {
    const candidates = log.fold.toArray().filter((node) => node.type === 'tool/result');
    const pruned: number[] = [];
    let charsBefore = 0;
    let charsAfter = 0;
    for (const node of candidates) {
      const result = node.event.data as unknown as ToolResultData;
      const cut = this.cut(result.content, node.seq);
      if (cut === undefined) continue;
      const pruneSeq = log.nextSeq;
      const data: Record<string, unknown> = { callId: result.callId, content: cut.blocks };
      if (result.error !== undefined) data.error = result.error;
      const drafts: EventDraft[] = [
        {
          type: COMPACTION_PRUNE,
          data: {
            shadowedSeqs: [node.seq],
            shadowedTokenCount: meter.priceOf(node),
            replacementTokenCount: meter.priceOfData('tool/result', data),
            charsBefore: cut.charsBefore,
            charsAfter: cut.charsAfter,
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
      pruned.push(node.seq);
      charsBefore += cut.charsBefore;
      charsAfter += cut.charsAfter;
    }
    return { pruned, charsBefore, charsAfter };
  }
}

export function createToolResultPruner(config: unknown = {}): ToolResultPruner {
  return new ToolResultPruner(config);
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
