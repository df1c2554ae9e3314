// What the recall tool reads: a session's record, grown as the log grows, with the originals
// compaction has shadowed. An event is shadowed once a replacement lists it among its sources;
// an original is a surface event that was appended (not itself a replacement).

import { blockPlaceholder } from '../../log/content-block.js';
import type { AssistantMessageData, ContentBlock, LogEvent, ToolResultData } from '../../log/event.js';
import { isSurfaceType } from '../../log/event.js';
import type { LogStore } from '../../store/log-store.js';

export interface RecallIndex {
  readonly events: readonly LogEvent[];
  /** Seqs of shadowed originals, ascending. */
  readonly shadowed: readonly number[];
  readonly isShadowed: (seq: number) => boolean;
  /** The replacing node a recall handle (the first 8 characters of a compaction id) names. */
  readonly handleNode: (handle: string) => number | undefined;
}

/** The handle of a compaction: the first 8 characters of its id, as the handle's text names it. */
export function recallHandleOf(compactionId: string): string {
  return compactionId.slice(0, 8);
}

/** A session's events, read once and then only what was appended since. */
export class RecallReader {
  private readonly cache = new Map<string, { events: LogEvent[]; shadowed: Set<number>; handles: Map<string, number> }>();

  constructor(private readonly store: LogStore) {}

  async index(sessionId: string): Promise<RecallIndex> {
    let entry = this.cache.get(sessionId);
    if (entry === undefined) {
      entry = { events: [], shadowed: new Set(), handles: new Map() };
      this.cache.set(sessionId, entry);
    }
    for await (const page of this.store.read(sessionId, { fromSeq: entry.events.length })) {
      for (const event of page) {
        entry.events.push(event);
        // A replacement lists its metering event last (the highest seq); a compaction's names its id.
        const sources = event.sourceEventSeqs ?? [];
        const meter = sources.length === 0 ? undefined : entry.events[Math.max(...sources)];
        if (meter !== undefined && typeof meter.data.compactionId === 'string')
          entry.handles.set(recallHandleOf(meter.data.compactionId), event.seq);
        for (const source of sources) {
          const original = entry.events[source];
          if (original !== undefined && isSurfaceType(original.type) && original.sourceEventSeqs === undefined) entry.shadowed.add(source);
        }
      }
    }
    const { events, shadowed, handles } = entry;
    return {
      events,
      shadowed: [...shadowed].sort((a, b) => a - b),
      isShadowed: (seq) => shadowed.has(seq),
      handleNode: (handle) => handles.get(handle),
    };
  }
}

/** What an event says, as the model would read it: its text, its tool calls, its result. */
export function eventText(event: LogEvent): string {
  const data = event.data as unknown as Partial<AssistantMessageData & ToolResultData>;
  const content = Array.isArray(data.content) ? (data.content as ContentBlock[]) : [];
  const parts = content.map((block) => blockPlaceholder(block));
  for (const call of data.toolCalls ?? []) parts.push(`→ ${call.name}(${JSON.stringify(call.arguments)})`);
  return parts.join('\n');
}

/** A one-line label: the seq, the type, and for a tool result the tool it answered. */
export function eventLabel(event: LogEvent, events: readonly LogEvent[]): string {
  if (event.type !== 'tool/result') return `#${event.seq} ${event.type}`;
  const callId = (event.data as unknown as ToolResultData).callId;
  for (let seq = event.seq - 1; seq >= 0; seq--) {
    const candidate = events[seq];
    if (candidate?.type !== 'assistant/message') continue;
    const call = (candidate.data as unknown as AssistantMessageData).toolCalls.find((each) => each.callId === callId);
    if (call !== undefined) return `#${event.seq} tool/result of ${call.name}(${JSON.stringify(call.arguments)})`;
  }
  return `#${event.seq} tool/result`;
}
