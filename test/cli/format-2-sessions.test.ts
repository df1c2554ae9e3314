// Sessions in format 2 as an importer and the proxy will write them, through the commands: a call
// another harness made (provenance 'imported') replays as reconstructed, not verified; a proxied
// call replays to its stored bytes, checked against their digest; foreign lines, reasoning and
// server-tool blocks are shown, counted, exported and imported; a sub-session is linked to its
// parent by show and sessions.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rendererFor } from '../../src/cli/renderers.js';
import type { EventDraft } from '../../src/log/event.js';
import { foreignEventDraft } from '../../src/log/foreign-event.js';
import { encodeRequestSurface } from '../../src/log/surface-change.js';
import { replay } from '../../src/spine/replay.js';
import { ReplayError } from '../../src/spine/spine-errors.js';
import { nodeSha256Hex } from '../../src/store/node-sha256.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { text } from '../support/events.js';

const MAIN = 'imported-main';
const SUB = 'imported-sub';
const PROXIED_BODY = '{"model":"claude-opus-4-6",  "messages":[{"role":"user","content":"Fix the test."}]}';
const CLAUDE_LINE = '{"type":"file-history-snapshot","messageId":"f509a2e7","snapshot":{"trackedFileBackups":{}}}';

const workspace = createCliWorkspace();
const databasePath = join(workspace.cwd, 'store.db');
const store = ['--store', `sqlite:${databasePath}`];
let sqlite: SqliteLogStore;

async function writeSessions(target: SqliteLogStore): Promise<void> {
  const log = await SessionLog.create(target, MAIN, { now: () => '2026-02-12T16:02:25.000Z' });
  const request = (step: number, extra: Record<string, unknown>): EventDraft => ({
    type: 'model/request',
    data: {
      turn: 1,
      step,
      provider: 'anthropic',
      model: 'claude-opus-4-6',
      ...encodeRequestSurface(
        log.fold.lastRequestSurface,
        log.fold.toArray().map((node) => node.seq),
      ),
      ...extra,
    },
  });
  await log.append([
    foreignEventDraft('claude-code', 'file-history-snapshot', CLAUDE_LINE, 1),
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'user/message', data: { content: text('Fix the test.') }, surfaceOp: 'append' },
  ]);
  await log.append([request(1, { provenance: 'imported', contextWindow: 200_000 })]);
  await log.append([
    {
      type: 'assistant/message',
      data: {
        content: [
          { type: 'reasoning', provider: 'anthropic', text: 'The expectation looks wrong.', signature: 'EqQBCgIYAh' },
          { type: 'server-tool-call', provider: 'anthropic', name: 'web_search', id: 'srvtoolu_01', input: { query: 'vitest toBe' } },
          { type: 'server-tool-result', provider: 'anthropic', name: 'web_search_tool_result', callId: 'srvtoolu_01', content: [] },
          { type: 'text', text: 'Running the tests.' },
        ],
        toolCalls: [{ callId: 'call-1', name: 'Task', arguments: { prompt: 'run the tests' } }],
        model: 'claude-opus-4-6',
        usage: { inputTokens: 26_450, outputTokens: 120, cacheReadTokens: 11_442, cacheWriteTokens: 15_005 },
      },
      surfaceOp: 'append',
    },
    { type: 'tool/result', data: { callId: 'call-1', content: text('1 failed'), error: true }, surfaceOp: 'append' },
    foreignEventDraft('claude-code', 'progress', '{"type":"progress","data":{"type":"hook_progress"}}', 9),
  ]);
  await log.append([
    request(2, {
      provenance: 'proxied',
      requestDigest: nodeSha256Hex(PROXIED_BODY),
      requestBody: { encoding: 'utf-8', text: PROXIED_BODY },
    }),
  ]);
  await log.append([
    { type: 'assistant/message', data: { content: text('Fixed.'), toolCalls: [], model: 'claude-opus-4-6' }, surfaceOp: 'append' },
    { type: 'turn/end', data: { turn: 1, reason: 'completed' } },
  ]);
  const sub = await SessionLog.create(target, SUB, { parent: { sessionId: MAIN, callId: 'call-1' } });
  await sub.append([{ type: 'user/message', data: { content: text('run the tests') }, surfaceOp: 'append' }]);
}

beforeAll(async () => {
  sqlite = await openSqliteStore(databasePath);
  await writeSessions(sqlite);
});
afterAll(async () => {
  await sqlite.close();
  workspace.cleanup();
});

describe('replay of calls shadowlog did not send', () => {
  it('reconstructs an imported call and says it is not byte-verified', async () => {
    const result = await replay(sqlite, MAIN, { turn: 1, step: 1 }, { resolveRenderer: rendererFor });
    expect(result).toMatchObject({ verified: false, provenance: 'imported', requestDigest: null, rendererVersion: null });
    expect(result.messages).toEqual([{ role: 'user', content: text('Fix the test.') }]);

    const shown = await workspace.run([...store, 'replay', MAIN, '--turn', '1']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/reconstructed from an import, not byte-verified/);
    expect(shown.stdout).not.toMatch(/^verified/m);
    const json = await workspace.run([...store, '--json', 'replay', MAIN, '--turn', '1']);
    expect(JSON.parse(json.stdout)).toMatchObject({ turn: 1, step: 1, verified: false, provenance: 'imported', requestDigest: null });
  });

  it('refuses --wire for an imported call: no bytes of it went through shadowlog', async () => {
    const wire = await workspace.run([...store, 'replay', MAIN, '--turn', '1', '--wire']);
    expect(wire.code).toBe(2);
    expect(wire.stdout).toBe('');
    expect(wire.stderr).toMatch(/was imported from another harness's files: no bytes of it went through shadowlog/);
  });

  it('gives a proxied call back byte for byte, checked against the digest recorded when it was received', async () => {
    const result = await replay(sqlite, MAIN, { turn: 1, step: 2 }, { resolveRenderer: rendererFor });
    expect(result).toMatchObject({ verified: true, provenance: 'proxied', requestDigest: nodeSha256Hex(PROXIED_BODY) });
    expect(Buffer.from(result.wireBody ?? []).toString('utf8')).toBe(PROXIED_BODY);
    expect(result.request).toEqual(JSON.parse(PROXIED_BODY));

    const wire = await workspace.run([...store, 'replay', MAIN, '--turn', '1', '--step', '2', '--wire']);
    expect(wire.stdout).toBe(PROXIED_BODY);
    const shown = await workspace.run([...store, 'replay', MAIN, '--turn', '1', '--step', '2']);
    expect(shown.stdout).toMatch(/verified: the request body the proxy received \(84 bytes, stored in the log\) hashes to/);
  });

  it('refuses a proxied call whose stored body is not the bytes its digest names', async () => {
    const other = await openSqliteStore(join(workspace.cwd, 'other.db'));
    try {
      const log = await SessionLog.create(other, 'proxied');
      await log.append([{ type: 'user/message', data: { content: text('hi') }, surfaceOp: 'append' }]);
      await log.append([
        {
          type: 'model/request',
          data: {
            turn: 1,
            step: 1,
            provider: 'openai',
            model: 'gpt-5',
            provenance: 'proxied',
            surfaceSeqs: [1],
            requestDigest: nodeSha256Hex(`${PROXIED_BODY} `),
            requestBody: { encoding: 'utf-8', text: PROXIED_BODY },
          },
        },
      ]);
      const error = await replay(other, 'proxied', { turn: 1 }, { resolveRenderer: rendererFor }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ReplayError);
      expect(error).toMatchObject({ problem: 'digest-differs' });
      expect((error as Error).message).toMatch(/does not match the stored request body/);
    } finally {
      await other.close();
    }
  });
});

describe('show, stats, sessions and export of format-2 sessions', () => {
  it('show --record hides foreign lines, naming them, and --all shows them compactly; the new blocks, usage and error flag', async () => {
    const shown = await workspace.run([...store, 'show', MAIN, '--record']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(/·· claude-code\//);
    expect(shown.stdout).toMatch(/\n2 source events hidden: 1 claude-code\/file-history-snapshot, 1 claude-code\/progress \(/);
    const all = await workspace.run([...store, 'show', MAIN, '--record', '--all']);
    expect(all.stdout).toMatch(
      /#1 ·· claude-code\/file-history-snapshot \(line 1, 92 characters, kept from the source\): \{"type":"file-history-snapshot"/,
    );
    expect(shown.stdout).toMatch(/\[reasoning by anthropic\] The expectation looks wrong\./);
    expect(shown.stdout).toMatch(/\[anthropic ran web_search\(\{"query":"vitest toBe"\}\) srvtoolu_01\]/);
    expect(shown.stdout).toMatch(/#\d+ tool \(call-1\) error\n/);
    expect(shown.stdout).toMatch(
      /model request, turn 1 step 1: anthropic\/claude-opus-4-6, 1 surface node, imported \(not sent by shadowlog\)/,
    );
    expect(shown.stdout).toMatch(/model request, turn 1 step 2: anthropic\/claude-opus-4-6, 3 surface nodes, received by the proxy/);
  });

  it('show names a sub-session’s parent and the call that spawned it', async () => {
    const shown = await workspace.run([...store, 'show', SUB]);
    expect(shown.stdout).toMatch(
      /^a sub-session of imported-main, spawned by its tool call call-1; `shadowlog show imported-main` shows the parent$/m,
    );
    const json = await workspace.run([...store, '--json', 'show', SUB]);
    expect(JSON.parse(json.stdout)).toMatchObject({ sessionId: SUB, parent: { sessionId: MAIN, callId: 'call-1' } });
    const record = await workspace.run([...store, 'show', SUB, '--record']);
    expect(record.stdout).toMatch(
      /#0 ── session started \(format 2, shadowlog [^)]+\) at [^;]+; a sub-session of imported-main, spawned by its tool call call-1/,
    );
  });

  it('sessions gives each sub-session its parent and lists it under the parent', async () => {
    const json = await workspace.run([...store, '--json', 'sessions']);
    const listed = JSON.parse(json.stdout) as Array<{ id: string; parent?: unknown }>;
    expect(listed.find((session) => session.id === SUB)?.parent).toEqual({ sessionId: MAIN, callId: 'call-1' });
    expect(listed.find((session) => session.id === MAIN)).not.toHaveProperty('parent');
    const shown = await workspace.run([...store, 'sessions']);
    expect(shown.stdout).toMatch(new RegExp(`\\n${MAIN} [^\\n]*\\n  └ ${SUB} `));
  });

  it('stats counts the imported and proxied calls and the foreign lines', async () => {
    const json = await workspace.run([...store, '--json', 'stats', MAIN]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      modelCalls: 2,
      importedModelCalls: 1,
      proxiedModelCalls: 1,
      foreignEvents: 2,
      reportedInputTokens: 26_450,
    });
    const shown = await workspace.run([...store, 'stats', MAIN]);
    expect(shown.stdout).toMatch(/model calls not sent by shadowlog: 1 imported, 1 proxied; 2 lines of the source kept as foreign events/);
  });

  it('compact works on calls shadowlog did not send, which have no params', async () => {
    const copy = ['--store', `sqlite:${join(workspace.cwd, 'compact.db')}`];
    expect((await workspace.run([...store, 'export', MAIN, '-o', 'main-for-compact.jsonl'])).code).toBe(0);
    expect((await workspace.run([...copy, 'import', 'main-for-compact.jsonl'])).code).toBe(0);
    const compacted = await workspace.run([...copy, 'compact', MAIN, '--window', '200000']);
    expect(compacted.stderr).not.toMatch(/TypeError|Cannot read properties/);
    expect(compacted.code, compacted.stderr).toBe(0);
  });

  it('export and import keep every event, and both copies verify', async () => {
    const exported = await workspace.run([...store, 'export', MAIN, '-o', 'main.jsonl']);
    expect(exported.code, exported.stderr).toBe(0);
    const copy = ['--store', `sqlite:${join(workspace.cwd, 'copy.db')}`];
    const imported = await workspace.run([...copy, '--json', 'import', 'main.jsonl']);
    expect(JSON.parse(imported.stdout)).toMatchObject({ sessionId: MAIN, events: 11 });
    for (const where of [store, copy]) expect((await workspace.run([...where, 'verify', MAIN])).code).toBe(0);
    const again = await workspace.run([...copy, 'export', MAIN, '-o', 'again.jsonl']);
    expect(again.code).toBe(0);
    expect(readFileSync(join(workspace.cwd, 'again.jsonl'), 'utf8')).toBe(readFileSync(join(workspace.cwd, 'main.jsonl'), 'utf8'));
  });
});
