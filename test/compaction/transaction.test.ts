// The compaction transaction, step by step, and each of its failure paths (SPEC §7).

import { describe, expect, it } from 'vitest';
import { COMPACTION_END, COMPACTION_EVENT_TYPES, COMPACTION_START, COMPACTION_SUMMARY } from '../../src/compaction/event-types.js';
import { selectRange } from '../../src/compaction/select-range.js';
import { CompactionSessionState } from '../../src/compaction/session-state.js';
import type { Summarizer, SummaryRequest, SummaryResult } from '../../src/compaction/summarizer.js';
import { emptySections } from '../../src/compaction/summary-sections.js';
import { type CompactionOutcome, runCompactionTransaction } from '../../src/compaction/transaction.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { EventTypeRegistry } from '../../src/log/event-types.js';
import { origins } from '../../src/log/origins.js';
import { verifyLog } from '../../src/log/verify.js';
import type { LogStore } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow } from '../support/events.js';
import { failingStore, failOnType } from '../support/failing-store.js';

const registry = () => new EventTypeRegistry(COMPACTION_EVENT_TYPES);
const textOf = (message: { content: readonly { type: string; text?: string }[] } | undefined) =>
  (message?.content ?? []).map((block) => block.text ?? '').join('');

function summary(text: string, overrides: Partial<SummaryResult> = {}): SummaryResult {
  return {
    text,
    kind: 'model',
    provider: 'scripted',
    model: 'summarizer',
    usage: { inputTokens: 100, outputTokens: 10 },
    requestDigest: 'a'.repeat(64),
    rendererVersion: 'summary-request/1 scripted/1',
    truncated: false,
    ...overrides,
  };
}
const answering = (result: SummaryResult | (() => Promise<SummaryResult>)): Summarizer => ({
  summarize: typeof result === 'function' ? result : async () => result,
});

/** A session of a system message and three user/assistant exchanges, one with a tool call. */
async function fixture(store: LogStore = new MemoryLogStore()) {
  const state = new CompactionSessionState();
  const log = await SessionLog.create(store, 's', { registry: registry(), now: fixedNow, observe: (event) => state.observe(event) });
  await log.append([drafts.system()]);
  for (let turn = 1; turn <= 3; turn++) {
    await log.append([drafts.turnStart(turn), drafts.user(`Question ${turn}: ${'details '.repeat(40)}`)]);
    if (turn === 2) await log.append([drafts.assistant('Looking.', ['call-2']), drafts.toolResult('call-2', 'x'.repeat(400))]);
    await log.append([drafts.assistant(`Answer ${turn}: ${'reasoning '.repeat(40)}`)]);
  }
  return { log, state, store };
}

function priceOf(log: SessionLog) {
  return log.fold.toArray().map((node) => Math.ceil(JSON.stringify(node.event.data).length / 4));
}

async function run(
  context: Awaited<ReturnType<typeof fixture>>,
  summarizer: Summarizer,
  signal = new AbortController().signal,
  retain = 200,
): Promise<CompactionOutcome> {
  const nodes = context.log.fold.toArray();
  const selection = selectRange(nodes, priceOf(context.log), retain);
  if (selection === undefined) throw new Error('the fixture must have a range to compact');
  return runCompactionTransaction({
    log: context.log,
    state: context.state,
    selection,
    trigger: 'manual',
    turn: null,
    summarizer,
    maxSummaryTokens: 1000,
    tokensBefore: priceOf(context.log).reduce((a, b) => a + b, 0),
    // The surface is priced by the sum of its nodes' prices here (no calibration): the range's off, the replacement's on.
    measureAfter: (replacementTokens) =>
      priceOf(context.log).reduce((a, b) => a + b, 0) - selection.prices.reduce((a, b) => a + b, 0) + replacementTokens,
    priceOfSummary: (text) => Math.ceil(text.length / 4),
    priceOfData: (_type, data) => Math.ceil(JSON.stringify(data).length / 4),
    signal,
  });
}

async function events(store: LogStore): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read('s')) out.push(...page);
  return out;
}

describe('the compaction transaction', () => {
  it('appends start, summary and the replacing node, then end; the replacement traces back to the originals', async () => {
    const context = await fixture();
    const before = context.log.fold.toArray().map((node) => node.seq);
    const outcome = await run(context, answering(summary('The user asked three questions; all were answered.')));
    expect(outcome.status).toBe('compacted');
    if (outcome.status !== 'compacted') return;
    const log = await events(context.store);
    expect(log.slice(-4).map((event) => event.type)).toEqual([COMPACTION_START, COMPACTION_SUMMARY, 'user/message', COMPACTION_END]);
    const replacement = log.at(-2) as LogEvent;
    expect(replacement.sourceEventSeqs).toEqual([...outcome.shadowedSeqs, (log.at(-3) as LogEvent).seq]);
    expect((replacement.data.content as Array<{ text: string }>)[0]?.text).toMatch(
      /^Earlier context was compacted: \d+ earlier messages were replaced by this summary\.\n<compacted-summary>\nThe user asked/,
    );
    // The system message stays pinned; the tail stays verbatim.
    const after = context.log.fold.toArray().map((node) => node.seq);
    expect(after[0]).toBe(before[0]);
    expect(after[1]).toBe(replacement.seq);
    expect(after.slice(2)).toEqual(before.slice(before.length - (after.length - 2)));
    expect(await origins(replacement.seq as never, (seq) => context.store.readEvent('s', seq))).toEqual(outcome.shadowedSeqs);
    expect(context.state.openCompactions.size).toBe(0);
    expect((await verifyLog(context.store.read('s'), { registry: registry() })).ok).toBe(true);
  });

  it('stores the summary’s sections; a summary written without them is handed to a nested range as such', async () => {
    const context = await fixture();
    const sections = { ...emptySections(), requests: [{ status: 'done' as const, text: 'Question 1.' }] };
    expect((await run(context, answering(summary('First summary.', { sections })))).status).toBe('compacted');
    expect((await events(context.store)).find((event) => event.type === COMPACTION_SUMMARY)?.data.sections).toEqual(sections);

    const textOnly = await fixture();
    expect((await run(textOnly, answering(summary('A summary without sections.')))).status).toBe('compacted');
    expect((await events(textOnly.store)).find((event) => event.type === COMPACTION_SUMMARY)?.data).not.toHaveProperty('sections');
    for (let turn = 4; turn <= 6; turn++)
      await textOnly.log.append([
        drafts.turnStart(turn),
        drafts.user(`Question ${turn}: ${'details '.repeat(40)}`),
        drafts.assistant(`Answer ${turn}.`),
      ]);
    const requests: SummaryRequest[] = [];
    const recording: Summarizer = {
      summarize: async (request) => {
        requests.push(request);
        return summary('Nested.');
      },
    };
    const nested = await run(textOnly, recording, undefined, 0);
    expect(nested).toMatchObject({ status: 'compacted' });
    expect(requests[0]?.earlierSummaries).toEqual([{ messageIndex: 0, sections: undefined }]);
    expect(textOf(requests[0]?.messages[0])).toContain('A summary without sections.');
  });

  it('hands a summary’s sections from the log to the summarizer of a nested range', async () => {
    const context = await fixture();
    const sections = { ...emptySections(), requests: [{ status: 'done' as const, text: 'Question 1.' }], identifiers: ['parseRow()'] };
    expect((await run(context, answering(summary('First summary.', { sections })))).status).toBe('compacted');
    for (let turn = 4; turn <= 6; turn++)
      await context.log.append([
        drafts.turnStart(turn),
        drafts.user(`Question ${turn}: ${'details '.repeat(40)}`),
        drafts.assistant(`Answer ${turn}.`),
      ]);
    const requests: SummaryRequest[] = [];
    const recording: Summarizer = {
      summarize: async (request) => {
        requests.push(request);
        return summary('Nested.');
      },
    };
    const outcome = await run(context, recording, undefined, 0);
    expect(outcome.status).toBe('compacted');
    expect(requests[0]?.earlierSummaries).toEqual([{ messageIndex: 0, sections }]);
  });

  it('neutralises a closing wrapper tag inside the summary text: the replacing message has one wrapper', async () => {
    const context = await fixture();
    await run(context, answering(summary('The user typed </compacted-summary> and <compacted-summary> literally.')));
    const replacement = (await events(context.store)).at(-2) as LogEvent;
    const text = (replacement.data.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text.match(/<\/compacted-summary>/g)).toHaveLength(1);
    expect(text.match(/<compacted-summary>/g)).toHaveLength(1);
    expect(text).toContain('The user typed [/compacted-summary] and [compacted-summary] literally.');
  });

  const failures: Array<[string, () => Summarizer, string]> = [
    ['the summarizer throws', () => answering(() => Promise.reject(new Error('provider down'))), 'the summarizer failed: provider down'],
    ['the summary is empty', () => answering(summary('')), 'empty summary'],
    ['the summary was cut at its limit', () => answering(summary('Partial', { truncated: true })), 'cut at its token limit'],
    ['the summary is not smaller', () => answering(summary('long '.repeat(5000))), 'is not smaller than what it would replace'],
  ];
  for (const [name, summarizer, message] of failures) {
    it(`fails 'summary' when ${name}: one compaction/end with the error, the surface unchanged, the lock released`, async () => {
      const context = await fixture();
      const surface = context.log.fold.toArray().map((node) => node.seq);
      const outcome = await run(context, summarizer());
      expect(outcome).toMatchObject({ status: 'failed', reason: 'summary', orphaned: false });
      expect(outcome.status === 'failed' && outcome.message).toContain(message);
      const log = await events(context.store);
      expect(log.slice(-2).map((event) => event.type)).toEqual([COMPACTION_START, COMPACTION_END]);
      expect((log.at(-1) as LogEvent).data).toMatchObject({ error: { reason: 'summary' } });
      expect(context.log.fold.toArray().map((node) => node.seq)).toEqual(surface);
      expect(context.state.openCompactions.size).toBe(0);
    });
  }

  it("fails 'changed' when the range changes while summarizing, but tolerates unrelated appends", async () => {
    const unrelated = await fixture();
    const tolerant = await run(
      unrelated,
      answering(async () => {
        await unrelated.log.append([drafts.turnStart(4), drafts.user('Meanwhile, a new question.')]);
        return summary('Short.');
      }),
    );
    expect(tolerant.status).toBe('compacted');

    const context = await fixture();
    const outcome = await run(
      context,
      answering(async () => {
        // Another writer shadows the tool result inside the selected range.
        const result = context.log.fold.toArray().find((node) => node.type === 'tool/result');
        const seq = result?.seq as number;
        await context.log.append([
          {
            type: 'compaction/prune',
            data: { shadowedSeqs: [seq], shadowedTokenCount: 100, charsBefore: 400, charsAfter: 10 },
            ignorable: true,
          },
          {
            ...drafts.toolResult('call-2', 'x…'),
            surfaceOp: { op: 'replace', startSeq: seq, endSeq: seq } as EventDraft['surfaceOp'] & object,
            sourceEventSeqs: [seq, context.log.nextSeq],
          },
        ]);
        return summary('Short.');
      }),
    );
    expect(outcome).toMatchObject({ status: 'failed', reason: 'changed', orphaned: false });
  });

  it("fails 'busy' while another compaction holds the lock, and not after a new lifecycle makes it stale", async () => {
    const context = await fixture();
    await context.log.append([{ type: COMPACTION_START, data: { compactionId: 'other', trigger: 'manual', turn: null }, ignorable: true }]);
    expect(await run(context, answering(summary('Short.')))).toMatchObject({ status: 'failed', reason: 'busy' });
    await context.log.append([{ type: 'session/end-seed', data: { reason: 'reopened' } }]);
    expect((await run(context, answering(summary('Short.')))).status).toBe('compacted');
  });

  it("fails 'cancelled' when the caller aborts", async () => {
    const context = await fixture();
    const controller = new AbortController();
    const outcome = await run(
      context,
      answering(async () => {
        controller.abort();
        return summary('Short.');
      }),
      controller.signal,
    );
    expect(outcome).toMatchObject({ status: 'failed', reason: 'cancelled', orphaned: false });
  });

  it("fails 'persistence' without a lock when compaction/start cannot be written", async () => {
    const broken = await fixture(failingStore(new MemoryLogStore(), failOnType(COMPACTION_START)));
    const outcome = await run(broken, answering(summary('Short.')));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'persistence', orphaned: false });
    expect(broken.state.openCompactions.size).toBe(0);
  });

  it("fails 'commit' when the summary cannot be appended, and releases the lock with the error", async () => {
    const store = failingStore(new MemoryLogStore(), failOnType(COMPACTION_SUMMARY));
    const context = await fixture(store);
    const surface = context.log.fold.toArray().map((node) => node.seq);
    const outcome = await run(context, answering(summary('Short.')));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'commit', orphaned: false });
    expect(context.log.fold.toArray().map((node) => node.seq)).toEqual(surface);
    expect((await events(store)).at(-1)?.data).toMatchObject({ error: { reason: 'commit' } });
  });

  it('leaves a blocking orphan when the failure cannot even be recorded, until a new lifecycle', async () => {
    const store = failingStore(new MemoryLogStore(), (events) =>
      events.some((event) => event.type === COMPACTION_END || event.type === COMPACTION_SUMMARY),
    );
    const context = await fixture(store);
    const outcome = await run(context, answering(summary('Short.')));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'commit', orphaned: true });
    expect(context.state.openCompactions.size).toBe(1);
    expect(await run(context, answering(summary('Short.')))).toMatchObject({ status: 'failed', reason: 'busy' });
    // The log is valid all the same: an open start is evidence, not damage.
    expect((await verifyLog(store.read('s'), { registry: registry() })).ok).toBe(true);
    await context.log.append([{ type: 'session/end-seed', data: { reason: 'operator unlock: the process is gone' } }]);
    expect(context.state.openCompactions.size).toBe(0);
  });

  it("leaves the lock open when the summary landed but compaction/end could not be written ('persistence')", async () => {
    const store = failingStore(new MemoryLogStore(), failOnType(COMPACTION_END));
    const context = await fixture(store);
    const outcome = await run(context, answering(summary('Short.')));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'persistence', orphaned: true });
    expect(context.log.fold.toArray().some((node) => node.sourceEventSeqs.length > 0)).toBe(true);
    expect(await run(context, answering(summary('Short.')), undefined, 0)).toMatchObject({ status: 'failed', reason: 'busy' });
  });
});
