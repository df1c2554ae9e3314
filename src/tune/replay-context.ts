// What every policy's replay of one session shares: the trace, the artifacts of each item and
// where each occurs, the artifacts each call's answer uses, each long tool result's pruned copy
// (per pruner configuration), and the summarizer. Built once per session, read by all policies.

import type { PrunerConfig } from '../compaction/pruner-config.js';
import { maskPlaceholder } from '../compaction/strategies/mask-placeholder.js';
import { createExtractiveSummarizer, type Summarizer } from '../compaction/summarizer.js';
import { codePointLength, ToolResultPruner } from '../compaction/tool-result-pruner.js';
import type { AssistantMessageData, LogEvent, ToolResultData } from '../log/event.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { SurfaceMeter } from '../meter/measure.js';
import type { ModelMessage } from '../providers/language-model.js';
import { renderSurface } from '../spine/render-surface.js';
import { artifactsOf, blocksText, eventText } from './artifacts.js';
import type { SessionTrace, TraceItem } from './trace.js';

/** A long tool result as the pruner would leave it. */
export interface PrunedItem {
  /** Tokens the pruned copy saves against the original. */
  readonly saving: number;
  readonly event: LogEvent;
  /** The artifacts still in the pruned copy. */
  readonly artifacts: ReadonlySet<string>;
  /** A mask placeholder, not a pruned copy: it is never masked again. */
  readonly masked?: true;
}

export class ReplayContext {
  readonly trace: SessionTrace;
  readonly meter: SurfaceMeter;
  readonly summarizer: Summarizer;
  /** For each artifact, the indexes of the items it occurs in, ascending. */
  readonly occurrences = new Map<string, number[]>();
  /** For each call (by its position in trace.calls), the artifacts its answer uses that earlier items introduced. */
  readonly uses: ReadonlyArray<readonly string[]>;
  /**
   * The user requests: each user message after the head, with the position (in trace.calls) of
   * the first later call whose answer makes no tool call, which ends the request's turn
   * (Infinity when the record has none), and its text with runs of whitespace made one space.
   */
  readonly requests: ReadonlyArray<{ readonly index: number; readonly answeredAt: number; readonly text: string }>;
  /** Indexes of the tool results long enough for some pruner to cut, per pruner configuration. */
  private readonly pruned = new Map<string, Map<number, PrunedItem | null>>();

  constructor(trace: SessionTrace, meter: SurfaceMeter, summarizer?: Summarizer) {
    this.trace = trace;
    this.meter = meter;
    this.summarizer = summarizer ?? createExtractiveSummarizer((text) => meter.estimator.countText(text));
    const itemArtifacts = trace.items.map((item) => artifactsOf(eventText(item.event)));
    itemArtifacts.forEach((artifacts, index) => {
      for (const artifact of artifacts) {
        const list = this.occurrences.get(artifact);
        if (list === undefined) this.occurrences.set(artifact, [index]);
        else list.push(index);
      }
    });
    const headArtifacts = trace.head === 1 ? (itemArtifacts[0] ?? new Set<string>()) : new Set<string>();
    this.uses = trace.calls.map((call) => {
      const used = new Set<string>();
      for (const output of call.outputItems) {
        for (const artifact of itemArtifacts[output] ?? []) {
          if (headArtifacts.has(artifact)) continue;
          const first = this.occurrences.get(artifact)?.[0];
          if (first !== undefined && first < call.index) used.add(artifact);
        }
      }
      return [...used];
    });
    // A call ends a turn when it answered and its answer makes no tool call.
    const finals = trace.calls.flatMap((call, position) =>
      call.outputItems.length > 0 && call.outputItems.every((output) => toolCallCount(trace.items[output]) === 0) ? [position] : [],
    );
    let next = 0;
    this.requests = trace.items.flatMap((item, index) => {
      if (item.type !== 'user/message' || index < trace.head) return [];
      while (next < finals.length && (trace.calls[finals[next] as number]?.index as number) <= index) next++;
      return [{ index, answeredAt: finals[next] ?? Number.POSITIVE_INFINITY, text: normalizedText(eventText(item.event)) }];
    });
  }

  /** The pruned copy of item `index` under `config`, or undefined when the pruner leaves it alone. */
  prunedItem(config: PrunerConfig, index: number): PrunedItem | undefined {
    const key = `${config.thresholdChars}/${config.headChars}/${config.tailChars}`;
    let cache = this.pruned.get(key);
    if (cache === undefined) {
      cache = new Map();
      this.pruned.set(key, cache);
    }
    const cached = cache.get(index);
    if (cached !== undefined) return cached ?? undefined;
    const item = this.trace.items[index] as TraceItem;
    let result: PrunedItem | null = null;
    if (item.type === 'tool/result') {
      const original = item.event.data as unknown as ToolResultData;
      const cut = new ToolResultPruner(config).cut(original.content, item.seq);
      if (cut !== undefined) {
        const data: Record<string, unknown> = { callId: original.callId, content: cut.blocks };
        if (original.error !== undefined) data.error = original.error;
        const price = this.meter.priceOfData('tool/result', data);
        const event = { ...item.event, data } as unknown as LogEvent;
        result = { saving: Math.max(0, item.price - price), event, artifacts: artifactsOf(blocksText(cut.blocks)) };
      }
    }
    cache.set(index, result);
    return result ?? undefined;
  }

  /** The mask placeholder of tool result `index`, priced at `price` now; undefined for an item that is no tool result. */
  maskedItem(index: number, price: number): PrunedItem | undefined {
    const item = this.trace.items[index] as TraceItem;
    if (item.type !== 'tool/result') return undefined;
    const original = item.event.data as unknown as ToolResultData;
    let chars = 0;
    for (const block of original.content) if (block.type === 'text') chars += codePointLength(block.text);
    const tool = this.toolNames().get(original.callId) ?? 'a tool';
    const data: Record<string, unknown> = {
      callId: original.callId,
      content: [{ type: 'text', text: maskPlaceholder({ tool, chars, tokens: price, seq: item.seq }) }],
    };
    if (original.error !== undefined) data.error = original.error;
    const placeholderPrice = this.meter.priceOfData('tool/result', data);
    if (placeholderPrice >= price) return undefined;
    const event = { ...item.event, data } as unknown as LogEvent;
    return { saving: item.price - placeholderPrice, event, artifacts: new Set(), masked: true };
  }

  /** Where the session first named `key` (an artifact key): the event's seq and what it was. */
  introduction(key: string): { introducedSeq: number; introducedBy: string } | Record<string, never> {
    const index = this.occurrences.get(key)?.[0];
    const item = index === undefined ? undefined : this.trace.items[index];
    if (item === undefined) return {};
    let by = item.type.replace('/', ' ');
    if (item.type === 'tool/result') {
      const callId = (item.event.data as unknown as ToolResultData).callId;
      by = `a ${this.toolNames().get(callId) ?? 'tool'} result`;
    } else by = `a ${item.type === 'user/message' ? 'user' : item.type === 'assistant/message' ? 'assistant' : 'system'} message`;
    return { introducedSeq: item.seq, introducedBy: by };
  }

  private names: Map<string, string> | undefined;

  /** The tool each call of the session named, by call id. */
  private toolNames(): ReadonlyMap<string, string> {
    if (this.names !== undefined) return this.names;
    const names = new Map<string, string>();
    for (const item of this.trace.items) {
      if (item.type !== 'assistant/message') continue;
      for (const call of (item.event.data as unknown as AssistantMessageData).toolCalls ?? []) names.set(call.callId, call.name);
    }
    this.names = names;
    return names;
  }

  /** The items `from..to` rendered as the model would see them, pruned copies where `pruned` says. */
  messages(from: number, to: number, prunedEvent: (index: number) => LogEvent | undefined): ModelMessage[] {
    const nodes: SurfaceNode[] = [];
    for (let index = from; index < to; index++) {
      const item = this.trace.items[index] as TraceItem;
      const event = prunedEvent(index) ?? item.event;
      nodes.push({ seq: item.seq as never, type: item.type, event, sourceEventSeqs: [] });
    }
    return renderSurface(nodes);
  }
}

/** A text with its runs of whitespace made one space, trimmed: how a request is looked for in a summary. */
function normalizedText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** How many tool calls an item's assistant message makes (0 for any other item). */
function toolCallCount(item: TraceItem | undefined): number {
  if (item?.type !== 'assistant/message') return 0;
  return (item.event.data as Partial<AssistantMessageData>).toolCalls?.length ?? 0;
}
