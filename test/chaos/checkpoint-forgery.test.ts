// Forged fold checkpoints (issue 25, item 2), on a real SQLite file and a real PostgreSQL schema.
// The demo's session (a system prompt, messages, tool calls and a nested compaction whose summary
// shadows most of the start) gets a checkpoint with the harness's state, written as a writer does;
// then whoever can write the store, but does not hold this machine's checkpoint key, forges one:
// the payload rewritten (the system prompt and the summary dropped, a shadowed message brought
// back) and its digest recomputed as the old code did (an unkeyed SHA-256), or as a MAC under a
// key of the attacker's own; or a forged one inserted at the head, as any role allowed to insert
// can. `show` and SessionLog.open must give the true surface and say that the checkpoint was
// ignored; `compact` with a model summarizer (a fake OpenAI server on loopback) must send a
// request built from the true surface and leave a log that verifies. The tables' triggers refuse
// to update a checkpoint or delete one other than by pruning. (checkpoint-fallback.test.ts: a
// proven checkpoint whose later events cannot be applied.)

import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import type { LogEvent } from '../../src/log/event.js';
import { encodeFoldCheckpoint } from '../../src/log/fold-checkpoint.js';
import { verifyLog } from '../../src/log/verify.js';
import { SessionObserver } from '../../src/spine/session-observer.js';
import { checkpointDigest, createCheckpointKey } from '../../src/store/checkpoint-key.js';
import { nodeSha256 } from '../../src/store/node-sha256.js';
import { SessionLog } from '../../src/store/session-log.js';
import { createCliWorkspace } from '../support/cli.js';
import { type FakeProviderServer, startFakeProviderServer } from '../support/fake-provider-server.js';
import { findPostgres } from '../support/postgres.js';
import { type Backend, checkpointBackends, compactingHarness, eventsOf, type Store } from './support/checkpoint-backends.js';

const pg = await findPostgres({ announce: false });

const backends = checkpointBackends(pg, 'forgery');

function textOf(event: LogEvent): string {
  const content = (event.data as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

/**
 * The forgery the issue describes, on a payload: the system prompt's node and the newest
 * summary's dropped, the session's first request (shadowed by the compactions) brought back.
 */
function forge(payload: string, events: readonly LogEvent[]): string {
  const body = JSON.parse(payload) as { nodes: number[] };
  const system = events.find((event) => event.type === 'system/message') as LogEvent;
  const summary = events.filter((event) => event.sourceEventSeqs !== undefined && body.nodes.includes(event.seq)).at(-1) as LogEvent;
  const firstRequest = events.find((event) => event.type === 'user/message') as LogEvent;
  expect(body.nodes).toContain(system.seq);
  expect(body.nodes).toContain(summary.seq);
  expect(body.nodes).not.toContain(firstRequest.seq);
  const nodes = [...body.nodes.filter((seq) => seq !== system.seq && seq !== summary.seq), firstRequest.seq].sort((a, b) => a - b);
  return JSON.stringify({ ...body, nodes });
}

/** An OpenAI chat completion whose text is a summary in the sections the summarizer asks for. */
const SUMMARY_ANSWER = {
  type: 'json' as const,
  body: {
    id: 'chatcmpl-forgery',
    object: 'chat.completion',
    created: 1_770_000_000,
    model: 'gpt-4.1',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: '## Requests\n- [done] "Find the cause of the lost empty fields."\n## Progress\n- The parser was read.',
        },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 900, completion_tokens: 30, total_tokens: 930 },
  },
};

type Variant = 'rewritten, unkeyed SHA-256' | "rewritten, MAC under the attacker's own key" | 'inserted at the head, unkeyed SHA-256';
const VARIANTS: Variant[] = [
  'rewritten, unkeyed SHA-256',
  "rewritten, MAC under the attacker's own key",
  'inserted at the head, unkeyed SHA-256',
];

describe.each(backends)('a forged fold checkpoint on %s', (_name, createBackend) => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  let backend: Backend;
  let server: FakeProviderServer;
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
  const cli = (args: string[]) => workspace.run(['--store', backend.storeArg, ...args]);

  beforeAll(() => {
    workspace = createCliWorkspace();
  });
  afterAll(async () => {
    workspace.cleanup();
    await pg?.dropSchemas();
  });
  beforeEach(async () => {
    backend = createBackend(workspace.cwd);
    server = await startFakeProviderServer();
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
  });
  afterEach(async () => {
    await backend.close();
    await server.close();
    if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
    if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
  });

  /** The demo's session under `id`, with a checkpoint holding the harness's state, as a writer leaves one; its seq. */
  async function sessionWithCheckpoint(id: string): Promise<{ store: Store; seq: number }> {
    expect((await cli(['demo', '--session', id, '--json'])).code).toBe(0);
    const store = await backend.open();
    const session = await compactingHarness(store).openSession(id, 'a checkpoint with the harness state');
    const { seq } = await session.log.writeCheckpoint();
    await session.close();
    return { store, seq };
  }

  it.each(VARIANTS)(
    'is not used (%s): show and an open give the true surface and say so, compact sends and appends only what the log holds',
    async (variant) => {
      const id = `forged-${VARIANTS.indexOf(variant)}`;
      const { store, seq } = await sessionWithCheckpoint(id);
      const inserted = variant === 'inserted at the head, unkeyed SHA-256';
      // The session goes on past the genuine checkpoint (a harness open appends its end-seed), for a forgery at the head.
      if (inserted) await (await compactingHarness(store).openSession(id, 'continued')).close();
      const truth = await cli(['show', id, '--json']);
      expect(truth.stderr).toBe('');
      const events = await eventsOf(store, id);
      const trueNodes = (await SessionLog.open(store, id, { registry: createCliRegistry(), checkpoints: false })).fold
        .toArray()
        .map((node) => node.seq);

      let forgedSeq = seq;
      if (inserted) {
        // What the attacker can compute from the log alone: the fold and the harness's state at the head.
        const observer = new SessionObserver(id, [createCompaction()], () => {}).forLog();
        if (!('observer' in observer)) throw new Error('compaction saves its state');
        const walked = await SessionLog.open(store, id, { registry: compactingHarness(store).registry, checkpoints: false, ...observer });
        forgedSeq = walked.nextSeq;
        expect(forgedSeq).toBeGreaterThan(seq);
        const payload = encodeFoldCheckpoint(id, walked.fold.snapshot(), { key: observer.observer.key, state: observer.observer.save() });
        const forged = forge(payload, events);
        await backend.insert(id, forgedSeq, { digest: nodeSha256.hex(forged), payload: forged });
      } else {
        const stored = await store.readCheckpoint(id, seq);
        const forged = forge(stored?.payload as string, events);
        const digest =
          variant === 'rewritten, unkeyed SHA-256'
            ? nodeSha256.hex(forged)
            : checkpointDigest(createCheckpointKey(randomBytes(32)), forged);
        await backend.rewrite(id, seq, { digest, payload: forged });
      }
      const firstRequest = events.find((event) => event.type === 'user/message') as LogEvent;
      const resurrected = `[user] ${textOf(firstRequest)}`;

      // (a) A reader: the true surface, and a word on stderr that the checkpoint was ignored.
      const opened = await SessionLog.open(store, id, { registry: createCliRegistry() });
      expect.soft(opened.fold.toArray().map((node) => node.seq)).toEqual(trueNodes);
      expect.soft(opened.checkpointReport.restoredFrom).not.toBe(forgedSeq);
      expect.soft(opened.checkpointReport.ignored).toContainEqual(expect.objectContaining({ seq: forgedSeq, status: 'unproven' }));
      const shown = await cli(['show', id, '--json']);
      expect.soft(shown.code).toBe(0);
      expect.soft(JSON.parse(shown.stdout)).toEqual(JSON.parse(truth.stdout));
      expect
        .soft(shown.stderr)
        .toMatch(
          new RegExp(
            `^shadowlog: note: ${id}: fold checkpoints? at seq [0-9, ]*${forgedSeq}[0-9, ]* ignored, not proven by this machine's checkpoint key \\(`,
          ),
        );

      // (b) A writer: compact with a model summarizer continues the session through the harness.
      server.enqueue(SUMMARY_ANSWER);
      const compacted = await cli([
        'compact',
        id,
        '--provider',
        'openai',
        '--model',
        'gpt-4.1',
        '--base-url',
        `${server.baseUrl}/v1`,
        '--retain-tokens',
        '300',
        '--json',
      ]);
      expect.soft(compacted.code).toBe(0);
      expect.soft(JSON.parse(compacted.stdout)).toMatchObject({ status: 'compacted' });
      expect.soft(server.requests).toHaveLength(1);
      const sent = server.requests[0]?.body ?? '';
      // The true surface starts with the summary, which the summarizer is asked to update; the first request is inside it, not a message of its own.
      expect.soft(sent).toContain('<earlier-summary>');
      expect.soft(sent).not.toContain(resurrected);
      const after = await eventsOf(store, id);
      const replacements = after.slice(events.length).filter((event) => event.sourceEventSeqs !== undefined);
      expect.soft(replacements).toHaveLength(1);
      expect.soft(replacements[0]?.sourceEventSeqs).not.toContain(firstRequest.seq);
      const verified = await cli(['verify', id, '--json']);
      expect.soft(verified.code).toBe(0);
      expect.soft(JSON.parse(verified.stdout)).toMatchObject({
        ok: true,
        problems: [],
        checkpoints: expect.arrayContaining([expect.objectContaining({ seq: forgedSeq, trustedByOpen: false, matchesLog: false })]),
      });
      expect.soft((await verifyLog(store.read(id), { registry: createCliRegistry() })).ok).toBe(true);
    },
  );

  it('has triggers that refuse to update a checkpoint, overwrite one, or delete one other than by pruning', async () => {
    const id = 'guarded';
    const { store, seq } = await sessionWithCheckpoint(id);
    const before = await store.readCheckpoint(id, seq);
    expect(before?.digest).toMatch(/^hmac-sha256:/);
    const where = `session_id = '${id}'`;
    const refused = [
      `UPDATE {table} SET payload = '{}' WHERE ${where} AND seq = ${seq}`,
      `UPDATE {table} SET digest = digest WHERE ${where}`,
      `DELETE FROM {table} WHERE ${where} AND seq = ${seq}`,
      `DELETE FROM {table} WHERE ${where}`,
    ];
    for (const sql of refused) {
      const error = await backend.attempt(sql);
      expect(error, sql).toBeDefined();
      expect((error as Error).message, sql).toMatch(/^shadowlog: fold checkpoints are append-only; /);
    }
    expect(await store.readCheckpoint(id, seq)).toEqual(before);
    // A second checkpoint: the older one may now go (pruning), the newest still not.
    const next = await SessionLog.open(store, id, { registry: compactingHarness(store).registry, checkpoints: false });
    await next.append([{ type: 'user/message', data: { content: [{ type: 'text', text: 'one more' }] }, surfaceOp: 'append' }]);
    const newest = await next.writeCheckpoint();
    expect(await backend.attempt(`DELETE FROM {table} WHERE ${where} AND seq = ${newest.seq}`)).toBeDefined();
    expect(await backend.attempt(`DELETE FROM {table} WHERE ${where} AND seq = ${seq}`)).toBeUndefined();
    expect((await store.listCheckpoints(id)).map((entry) => entry.seq)).toEqual([newest.seq]);
  });
});
