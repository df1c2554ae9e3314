// Reading what an import stored, for the tests of imported branches: a session's events in
// order, and the texts of the messages on its surface (each session shows only its own path).

import type { LogStore } from 'shadowlog';
import { COMPACTION_EVENT_TYPES } from 'shadowlog/compaction';
import { EventTypeRegistry, type LogEvent, SurfaceFold } from 'shadowlog/log';

const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);

/** Every event of a session, a branch's prefix read from its parent. */
export async function eventsOf(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

/** The texts of the messages on a log's surface, in order. */
export function surfaceTexts(events: readonly LogEvent[]): string[] {
  const fold = new SurfaceFold({ registry });
  for (const event of events) fold.apply(event);
  return fold.toArray().flatMap((node) => {
    const content = ((events[node.seq] as LogEvent).data as { content?: Array<{ text?: string }> }).content ?? [];
    return content.flatMap((block) => (block.text === undefined ? [] : [block.text]));
  });
}
