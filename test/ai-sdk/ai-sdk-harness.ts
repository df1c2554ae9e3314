// What the AI SDK recorder's tests share: a fake provider on 127.0.0.1, a SQLite store in a
// temporary directory (so that the CLI can read it), and helpers to read and check a session.

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogEvent } from '../../src/log/event.js';
import { dataOf } from '../../src/log/event-data.js';
import { verifyLog } from '../../src/log/verify.js';
import { replay } from '../../src/spine/replay.js';
import type { LogStore } from '../../src/store/log-store.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { type FakeProviderServer, startFakeProviderServer } from '../support/fake-provider-server.js';

export interface AiSdkHarness {
  readonly directory: string;
  readonly storePath: string;
  readonly upstream: FakeProviderServer;
  readonly recordErrors: unknown[];
  /** A store handle for reading (and for recorders given a LogStore). */
  store(): Promise<LogStore>;
  events(sessionId: string): Promise<LogEvent[]>;
  close(): Promise<void>;
}

export async function startAiSdkHarness(): Promise<AiSdkHarness> {
  const directory = mkdtempSync(join(tmpdir(), 'shadowlog-ai-sdk-'));
  const storePath = join(directory, 'log.db');
  const upstream = await startFakeProviderServer();
  const opened: LogStore[] = [];
  const store = async () => {
    const handle = await openSqliteStore(storePath);
    opened.push(handle);
    return handle;
  };
  return {
    directory,
    storePath,
    upstream,
    recordErrors: [],
    store,
    async events(sessionId) {
      const handle = await store();
      const out: LogEvent[] = [];
      for await (const page of handle.read(sessionId)) out.push(...(page as LogEvent[]));
      return out;
    },
    async close() {
      await upstream.close();
      for (const handle of opened) await handle.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The surface events as `type: text → calls` lines. */
export function describeSurface(events: readonly LogEvent[]): string[] {
  return events
    .filter((event) => event.surfaceOp !== undefined)
    .map((event) => {
      const data = event.data as { content?: Array<{ type: string; text?: string }>; toolCalls?: Array<{ name: string }> };
      const text = (data.content ?? []).map((block) => block.text ?? `[${block.type}]`).join('');
      const calls = (data.toolCalls ?? []).map((call) => ` → ${call.name}`).join('');
      return `${event.type}${event.surfaceOp === 'append' ? '' : ' (replaces)'}: ${text}${calls}`;
    });
}

/** Verifies the session's chain and replays every call; returns each call's replay. */
export async function verifyAndReplay(store: LogStore, sessionId: string) {
  const report = await verifyLog(store.read(sessionId));
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...(page as LogEvent[]));
  const calls = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
  const replays = [];
  for (const call of calls)
    replays.push(await replay(store, sessionId, { turn: call.turn, step: call.step }, { resolveRenderer: rendererFor }));
  return { report, calls, replays };
}
