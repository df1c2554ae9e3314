// Sessions recorded before tool calls kept their argument text and provider ids must replay
// to the digests recorded then. The fixtures were written by that code through both adapters,
// in JSON and in streams, and the scripted model, with arguments in every form it stored:
// non-canonical text (kept as its parsed value), a JSON string literal (kept bare), text that is
// not JSON, empty text.

import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogEvent, SentModelRequestData } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { replay } from '../../src/spine/replay.js';
import { importSessionFile } from '../../src/store/jsonl.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';

const FIXTURES = resolve(import.meta.dirname, 'fixtures');
const files = readdirSync(FIXTURES).map((name) => resolve(FIXTURES, name));

async function requestsOf(store: MemoryLogStore, sessionId: string): Promise<SentModelRequestData[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events.filter((event) => event.type === 'model/request').map((event) => event.data as unknown as SentModelRequestData);
}

describe('sessions recorded by earlier versions', () => {
  it('has fixtures from both adapters, which recorded renderer version 1 for OpenAI', async () => {
    const versions = new Set<string>();
    for (const file of files) {
      const store = new MemoryLogStore();
      const { sessionId } = await importSessionFile(store, file);
      for (const request of await requestsOf(store, sessionId)) versions.add(request.rendererVersion);
    }
    expect([...versions].sort()).toEqual([
      'surface/1 anthropic-messages/1;default_max_tokens=64000',
      'surface/1 openai-chat/1',
      'surface/1 openai-chat/1;max_tokens',
      'surface/1 scripted/1',
    ]);
  });

  for (const file of files) {
    it(`replays every model call of ${file.split('/').at(-1)} to its recorded digest`, async () => {
      const store = new MemoryLogStore();
      const { sessionId } = await importSessionFile(store, file);
      expect((await verifyLog(store.read(sessionId))).ok).toBe(true);
      const requests = await requestsOf(store, sessionId);
      expect(requests.length).toBeGreaterThanOrEqual(4);
      for (const request of requests) {
        const replayed = await replay(store, sessionId, { turn: request.turn, step: request.step }, { resolveRenderer: rendererFor });
        expect(replayed.requestDigest).toBe(request.requestDigest);
      }
    });
  }
});
