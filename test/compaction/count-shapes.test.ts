// Every token count a compaction event carries is a non-negative integer before it is appended:
// a draft with a negative, fractional or non-finite count (or one that is not a number) is
// refused with InvalidEventError naming the field, and nothing is written, so no writer can put
// one into the hash chain. A log an earlier shadowlog wrote with a negative count (it wrote
// `tokensAfter: -28205` on an imported Codex session) still reads, and verify warns of it
// without failing the log.

import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPACTION_EVENT_TYPES } from '../../src/compaction/event-types.js';
import { InvalidEventError, ShadowlogError } from '../../src/log/errors.js';
import type { EventDraft, JsonObject } from '../../src/log/event.js';
import { EventTypeRegistry } from '../../src/log/event-types.js';
import { verifyLog } from '../../src/log/verify.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';

const registry = () => new EventTypeRegistry(COMPACTION_EVENT_TYPES);
/** The compaction types as an earlier shadowlog knew them: without the checks only new events are held to. */
const earlierRegistry = () => new EventTypeRegistry(COMPACTION_EVENT_TYPES.map(({ validateNew: _, ...definition }) => definition));

const user = (text: string): EventDraft => ({ type: 'user/message', data: { content: [{ type: 'text', text }] }, surfaceOp: 'append' });

/** A session of three user messages (seqs 1–3). */
async function threeMessages(log: SessionLog): Promise<SessionLog> {
  await log.append([user('one '.repeat(40)), user('two '.repeat(40)), user('three')]);
  return log;
}

const SUMMARY: JsonObject = {
  compactionId: 'c1',
  shadowedSeqs: [1, 2],
  shadowedTokenCount: 100,
  shadowedTokens: [50, 50],
  provider: 'shadowlog',
  model: 'extractive',
  usage: null,
  requestDigest: null,
  rendererVersion: null,
  summarizer: 'extractive',
  trigger: 'manual',
  tokensBefore: 110,
  tokensAfter: 15,
  summaryTokens: 5,
  durationMs: 3,
  maxTokens: 8192,
};

/** compaction/summary with `data`, and the replacing message over seqs 1–2, as one batch starting at `firstSeq`. */
function summaryBatch(firstSeq: number, data: JsonObject): EventDraft[] {
  return [
    { type: 'compaction/summary', data, ignorable: true },
    {
      type: 'user/message',
      data: { content: [{ type: 'text', text: 'Earlier context was compacted.' }] },
      surfaceOp: { op: 'replace', startSeq: 1 as never, endSeq: 2 as never },
      sourceEventSeqs: [1, 2, firstSeq] as never,
    },
  ];
}

const POLICY: JsonObject = {
  config: {},
  provider: 'openai',
  model: 'gpt-5.1-codex',
  contextWindow: 258_400,
  reserve: 16_384,
  fixedTokens: 34,
  messageBudget: 242_016,
  pressureBudget: 176_480,
  threshold: 176_480,
  retain: 38_722,
  decidedBy: 'headroom',
  estimator: 'script-aware',
};

// Each a batch of drafts that must be refused, and the field the error names.
const REFUSED: Array<[string, string, (firstSeq: number) => EventDraft[]]> = [
  ['compaction/summary tokensAfter below zero', 'data.tokensAfter', (seq) => summaryBatch(seq, { ...SUMMARY, tokensAfter: -77_951 })],
  ['compaction/summary tokensBefore not an integer', 'data.tokensBefore', (seq) => summaryBatch(seq, { ...SUMMARY, tokensBefore: 110.5 })],
  ['compaction/summary tokensAfter not a number', 'data.tokensAfter', (seq) => summaryBatch(seq, { ...SUMMARY, tokensAfter: '15' })],
  ['compaction/summary tokensAfter null', 'data.tokensAfter', (seq) => summaryBatch(seq, { ...SUMMARY, tokensAfter: null })],
  [
    'compaction/summary tokensAfter beyond a safe integer',
    'data.tokensAfter',
    (seq) => summaryBatch(seq, { ...SUMMARY, tokensAfter: 2 ** 60 }),
  ],
  ['compaction/summary summaryTokens below zero', 'data.summaryTokens', (seq) => summaryBatch(seq, { ...SUMMARY, summaryTokens: -1 })],
  ['a shadowed node priced below zero', 'data.shadowedTokens[1]', (seq) => summaryBatch(seq, { ...SUMMARY, shadowedTokens: [50, -50] })],
  [
    'compaction/summary shadowedTokenCount below zero',
    'data.shadowedTokenCount',
    (seq) => summaryBatch(seq, { ...SUMMARY, shadowedTokenCount: -100 }),
  ],
  ['compaction/summary durationMs below zero', 'data.durationMs', (seq) => summaryBatch(seq, { ...SUMMARY, durationMs: -3 })],
  [
    "the summarizer's usage below zero",
    'data.usage.inputTokens',
    (seq) => summaryBatch(seq, { ...SUMMARY, usage: { inputTokens: -1, outputTokens: 9 } }),
  ],
  [
    'compaction/policy messageBudget below zero',
    'data.messageBudget',
    () => [{ type: 'compaction/policy', data: { ...POLICY, messageBudget: -1 }, ignorable: true }],
  ],
  [
    'compaction/policy reserve below zero',
    'data.reserve',
    () => [{ type: 'compaction/policy', data: { ...POLICY, reserve: -1 }, ignorable: true }],
  ],
  [
    'compaction/over-threshold tokens below zero',
    'data.tokens',
    () => [{ type: 'compaction/over-threshold', data: { turn: 1, step: 1, tokens: -5, threshold: 10 }, ignorable: true }],
  ],
  [
    'compaction/prune shadowedTokenCount below zero',
    'data.shadowedTokenCount',
    () => [
      { type: 'compaction/prune', data: { shadowedSeqs: [3], shadowedTokenCount: -1, charsBefore: 5, charsAfter: 1 }, ignorable: true },
    ],
  ],
  [
    'an assistant message whose usage is below zero',
    'data.usage.inputTokens',
    () => [
      {
        type: 'assistant/message',
        data: { content: [{ type: 'text', text: 'hi' }], toolCalls: [], model: 'm', usage: { inputTokens: -3, outputTokens: 1 } },
        surfaceOp: 'append',
      },
    ],
  ],
];

describe('token counts in the drafts of compaction events', () => {
  it.each(REFUSED)('refuses %s with InvalidEventError naming %s, and writes nothing', async (_name, field, batch) => {
    const store = new MemoryLogStore();
    const log = await threeMessages(await SessionLog.create(store, 's', { registry: registry() }));
    const head = await store.head('s');
    const refusal = await log.append(batch(log.nextSeq)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(InvalidEventError);
    expect(refusal).toMatchObject({ code: 'INVALID_EVENT', field });
    expect((refusal as Error).message).toMatch(/must be a non-negative integer/);
    // Nothing reached the store, and the fold took the batch back: the same seqs append cleanly.
    expect(await store.head('s')).toEqual(head);
    expect(log.nextSeq).toBe(4);
    await log.append(summaryBatch(log.nextSeq, SUMMARY));
    expect((await store.head('s'))?.nextSeq).toBe(6);
  });

  it('refuses non-finite counts too (JSON has none: they would be written as null)', async () => {
    for (const value of [Number.POSITIVE_INFINITY, Number.NaN]) {
      const store = new MemoryLogStore();
      const log = await threeMessages(await SessionLog.create(store, 's', { registry: registry() }));
      const refusal = await log.append(summaryBatch(log.nextSeq, { ...SUMMARY, tokensAfter: value })).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(ShadowlogError.isInstance(refusal)).toBe(true);
      expect((await store.head('s'))?.nextSeq).toBe(4);
    }
  });

  it('accepts every count at zero and the optional ones left out (an imported compaction has no durationMs)', async () => {
    const store = new MemoryLogStore();
    const log = await threeMessages(await SessionLog.create(store, 's', { registry: registry() }));
    const { durationMs: _, maxTokens: __, ...imported } = SUMMARY;
    await log.append(summaryBatch(log.nextSeq, { ...imported, tokensAfter: 0, summaryTokens: 0, shadowedTokens: [0, 100] }));
    expect((await store.head('s'))?.nextSeq).toBe(6);
  });
});

describe('a negative count an earlier shadowlog wrote', () => {
  const workspace = createCliWorkspace();
  afterAll(() => workspace.cleanup());

  it('still reads, and verify warns of it (ok, exit 0) naming the seq and the field', async () => {
    const path = join(workspace.cwd, 'earlier.db');
    const store = await openSqliteStore(path);
    try {
      const log = await threeMessages(await SessionLog.create(store, 'earlier', { registry: earlierRegistry() }));
      await log.append(summaryBatch(log.nextSeq, { ...SUMMARY, tokensAfter: -28_205 }));

      const reopened = await SessionLog.open(store, 'earlier', { registry: registry() });
      expect(reopened.fold.toArray().map((node) => node.seq)).toEqual([5, 3]);
      const report = await verifyLog(store.read('earlier'), { registry: registry() });
      expect(report).toMatchObject({ ok: true, problems: [] });
      expect(report.warnings).toEqual([
        {
          seq: 4,
          code: 'INVALID_EVENT',
          message: expect.stringMatching(
            /^event 4: data\.tokensAfter must be a non-negative integer, found number -28205 \(shadowlog refuses/,
          ),
        },
      ]);
    } finally {
      await store.close();
    }
    const verify = await workspace.run(['--store', 'sqlite:earlier.db', 'verify', 'earlier']);
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(
      /^earlier: ok — 6 events, hash chain intact, seqs dense, every replacement valid\n {2}warning, seq 4: INVALID_EVENT: event 4: data\.tokensAfter must be a non-negative integer, found number -28205/,
    );
    const json = JSON.parse((await workspace.run(['--store', 'sqlite:earlier.db', '--json', 'verify', 'earlier'])).stdout);
    expect(json).toMatchObject({ ok: true, warnings: [{ seq: 4, code: 'INVALID_EVENT' }] });
    const shown = await workspace.run(['--store', 'sqlite:earlier.db', 'show', 'earlier', '--record']);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toBe('');
  });
});
