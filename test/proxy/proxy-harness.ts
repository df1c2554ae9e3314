// A proxy in front of the fake upstream, over a real SQLite file, for the proxy's tests.

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogEvent } from '../../src/log/event.js';
import { type ProxyOptions, type ProxyServer, startProxy } from '../../src/proxy/index.js';
import type { LogStore } from '../../src/store/log-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { type FakeProviderServer, startFakeProviderServer } from '../support/fake-provider-server.js';

export interface ProxyHarness {
  readonly upstream: FakeProviderServer;
  readonly proxy: ProxyServer;
  readonly store: LogStore;
  readonly storePath: string;
  readonly recordErrors: unknown[];
  events(sessionId: string): Promise<LogEvent[]>;
  /** The session's current surface, as `seq type: text` lines. */
  surface(sessionId: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startProxyHarness(
  options: Partial<ProxyOptions> & { wrapStore?: (store: LogStore) => LogStore } = {},
): Promise<ProxyHarness> {
  const directory = mkdtempSync(join(tmpdir(), 'shadowlog-proxy-'));
  const storePath = join(directory, 'log.db');
  const store = await openSqliteStore(storePath);
  const upstream = await startFakeProviderServer();
  const recordErrors: unknown[] = [];
  let counter = 0;
  const { wrapStore, ...proxyOptions } = options;
  const proxy = await startProxy({
    store: wrapStore === undefined ? store : wrapStore(store),
    upstreams: { openai: upstream.baseUrl, anthropic: upstream.baseUrl },
    port: 0,
    newSessionId: () => `proxied-${++counter}`,
    onRecordError: (error) => recordErrors.push(error),
    ...proxyOptions,
  });
  return {
    upstream,
    proxy,
    store,
    storePath,
    recordErrors,
    async events(sessionId) {
      await proxy.settled();
      const events: LogEvent[] = [];
      for await (const page of store.read(sessionId)) events.push(...page);
      return events;
    },
    async surface(sessionId) {
      await proxy.settled();
      const log = await SessionLog.open(store, sessionId);
      return describeSurface(log.fold.toArray().map((node) => node.event));
    },
    async close() {
      await proxy.close();
      await upstream.close();
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The surface events of a record, as [type, text] pairs, for reading in a test. */
export function describeSurface(events: readonly LogEvent[]): string[] {
  return events
    .filter((event) => event.surfaceOp !== undefined)
    .map((event) => {
      const data = event.data as { content?: Array<{ type: string; text?: string }>; toolCalls?: Array<{ name: string }>; callId?: string };
      const text = (data.content ?? []).map((block) => block.text ?? `[${block.type}]`).join('');
      const calls = (data.toolCalls ?? []).map((call) => ` → ${call.name}`).join('');
      const op = event.surfaceOp === 'append' ? '' : ' (replaces)';
      return `${event.seq} ${event.type}${op}: ${text}${calls}`;
    });
}
