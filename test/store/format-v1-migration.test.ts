// Format-2 code reads what format 1 wrote (issue 12): a SQLite store and its JSONL export written
// by the version-1 code (test/log/fixtures, made by scripts/make-format-v1-logs.ts at 2f73de7)
// open, verify, replay to their recorded digests, show, count, export unchanged, and continue.
// Events are never rewritten, so there is nothing to migrate in place: a version-1 session keeps
// its version when it is continued, and what is appended to it is written in version-1 shapes,
// so that a reader that knows only version 1 goes on reading it.

import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import { createToolResultPruner } from '../../src/compaction/tool-result-pruner.js';
import { InvalidEventError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { dataOf } from '../../src/log/event-data.js';
import { verifyLog } from '../../src/log/verify.js';
import { type ScriptedCall, ScriptedModel } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { defineTool } from '../../src/spine/tool.js';
import { importSessionFile, writeExport } from '../../src/store/jsonl.js';
import type { LogStore } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';

const FIXTURES = join(import.meta.dirname, '../log/fixtures');
const SESSION = 'format-v1';

async function eventsOf(store: LogStore, sessionId = SESSION): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

async function exportText(store: LogStore): Promise<string> {
  let text = '';
  await writeExport(store, SESSION, async (chunk) => {
    text += chunk;
  });
  return text;
}

/** Every model call replays to the digest recorded when version 1 sent it. */
async function expectEveryCallReplays(store: LogStore, events: readonly LogEvent[]): Promise<number> {
  const requests = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
  for (const request of requests) {
    const result = await replay(
      store,
      SESSION,
      { turn: request.turn, step: request.step },
      { resolveRenderer: rendererFor, registry: createCliRegistry() },
    );
    expect(result).toMatchObject({ verified: true, requestDigest: request.requestDigest });
  }
  return requests.length;
}

describe('a SQLite store written by format 1', () => {
  const workspace = createCliWorkspace();
  const databasePath = join(workspace.cwd, 'v1.sqlite');
  const store = ['--store', `sqlite:${databasePath}`];
  let sqlite: SqliteLogStore;

  beforeAll(async () => {
    copyFileSync(join(FIXTURES, 'format-v1.sqlite'), databasePath);
    sqlite = await openSqliteStore(databasePath);
  });
  afterAll(async () => {
    await sqlite.close();
    workspace.cleanup();
  });

  it('is version 1 throughout: plain surface lists, usage of two counts, errors with messages', async () => {
    const events = await eventsOf(sqlite);
    expect(dataOf(events[0] as LogEvent, 'session/start').formatVersion).toBe(1);
    const requests = events.filter((event) => event.type === 'model/request');
    expect(requests.length).toBe(24);
    for (const request of requests) expect(Array.isArray(request.data.surfaceSeqs)).toBe(true);
    expect(events.some((event) => event.type === 'tool/result' && typeof event.data.error === 'object')).toBe(true);
    expect(events.some((event) => event.type === 'compaction/summary')).toBe(true);
  });

  it('verifies and replays every call to its recorded digest', async () => {
    expect(await verifyLog(sqlite.read(SESSION), { registry: createCliRegistry() })).toMatchObject({ ok: true, problems: [] });
    expect(await expectEveryCallReplays(sqlite, await eventsOf(sqlite))).toBe(24);
  });

  it('shows, counts and verifies on the command line', async () => {
    const verified = await workspace.run([...store, 'verify', SESSION]);
    expect(verified.code, verified.stderr).toBe(0);
    const surface = await workspace.run([...store, 'show', SESSION]);
    expect(surface.code, surface.stderr).toBe(0);
    expect(surface.stdout).toMatch(/REPLACEMENT/);
    const record = await workspace.run([...store, 'show', SESSION, '--record']);
    expect(record.stdout).toMatch(/#0 ── session started \(format 1, shadowlog 0\.1\.0\)/);
    expect(record.stdout).toMatch(/tool \(call-\d+-\d+\) error: lookup failed: no entry for topic 23/);
    expect(record.stdout).toMatch(/model request, turn 12 step 2: scripted\/scripted, \d+ surface nodes, ~\d+ tokens/);
    const stats = await workspace.run([...store, '--json', 'stats', SESSION]);
    expect(JSON.parse(stats.stdout)).toMatchObject({ modelCalls: 24, compactions: 1, prunes: 2, importedModelCalls: 0, foreignEvents: 0 });
    const replayed = await workspace.run([...store, 'replay', SESSION, '--turn', '12', '--step', '2']);
    expect(replayed.stdout).toMatch(/^verified: the rebuilt request hashes to/m);
  });

  it('exports exactly the export version 1 wrote', async () => {
    expect(await exportText(sqlite)).toBe(readFileSync(join(FIXTURES, 'format-v1.jsonl'), 'utf8'));
  });

  it('continues as a version-1 session: what is appended has version-1 shapes, and everything replays', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look something up',
      input: z.object({ topic: z.string() }),
      execute: ({ topic }) => `${topic}: ${'fact '.repeat(40)}`,
    });
    const replies = (call: ScriptedCall) =>
      call.messages.at(-1)?.role === 'user' ? { toolCalls: [{ name: 'lookup', arguments: { topic: 'more' } }] } : { text: 'Noted again.' };
    const harness = createHarness({
      store: sqlite,
      model: new ScriptedModel({ replies, limits: { contextWindow: 3_000, defaultMaxOutputTokens: 300 } }),
      tools: [lookup],
      capabilities: [
        createCompaction({
          config: { headroomTokens: 0, summarizer: { kind: 'session-model' } },
          pruner: createToolResultPruner({ thresholdChars: 2048, headChars: 512, tailChars: 256 }),
        }),
      ],
    });
    const before = (await eventsOf(sqlite)).length;
    const session = await harness.openSession(SESSION);
    for (let turn = 0; turn < 3; turn++) expect((await session.send(`One more thing, ${turn}.`)).reason).toBe('completed');
    await session.close();

    const events = await eventsOf(sqlite);
    const added = events.slice(before);
    expect(added[0]?.type).toBe('session/end-seed');
    const requests = added.filter((event) => event.type === 'model/request');
    expect(requests.length).toBe(6);
    for (const request of requests) {
      expect(request.data).toHaveProperty('surfaceSeqs');
      expect(request.data).not.toHaveProperty('surfaceChange');
    }
    expect(await verifyLog(sqlite.read(SESSION), { registry: createCliRegistry() })).toMatchObject({ ok: true });
    expect(await expectEveryCallReplays(sqlite, events)).toBe(30);

    // The session stays in version 1: a shape only version 2 has is refused in it.
    const log = await SessionLog.open(sqlite, SESSION, { registry: createCliRegistry() });
    expect(log.fold.formatVersion).toBe(1);
    const flag = log.append([
      { type: 'user/message', data: { content: [{ type: 'image', url: 'https://example.org/a.png' }] }, surfaceOp: 'append' },
    ]);
    await expect(flag).rejects.toBeInstanceOf(InvalidEventError);
    expect((await eventsOf(sqlite)).length).toBe(events.length);
  });
});

describe('a JSONL export written by format 1', () => {
  let store: MemoryLogStore;
  beforeAll(async () => {
    store = new MemoryLogStore();
    const result = await importSessionFile(store, join(FIXTURES, 'format-v1.jsonl'), { registry: createCliRegistry() });
    expect(result).toMatchObject({ sessionId: SESSION, trailer: 'ok', tornFinalLine: false });
  });

  it('imports, verifies and replays every call', async () => {
    expect(await verifyLog(store.read(SESSION), { registry: createCliRegistry() })).toMatchObject({ ok: true });
    expect(await expectEveryCallReplays(store, await eventsOf(store))).toBe(24);
  });

  it('exports again byte for byte', async () => {
    expect(await exportText(store)).toBe(readFileSync(join(FIXTURES, 'format-v1.jsonl'), 'utf8'));
  });

  it('verifies on the command line with verify --file', async () => {
    const workspace = createCliWorkspace();
    try {
      const result = await workspace.run(['verify', '--file', join(FIXTURES, 'format-v1.jsonl')]);
      expect(result.code, result.stderr).toBe(0);
    } finally {
      workspace.cleanup();
    }
  });
});
