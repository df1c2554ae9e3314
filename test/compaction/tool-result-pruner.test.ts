// The tool-result pruner (SPEC §9): code points, the marker, non-text blocks, idempotence,
// and the order it prunes in: results the model has been sent first, one not sent yet only
// when the surface cannot fit otherwise, and the record says so.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPACTION_EVENT_TYPES } from '../../src/compaction/event-types.js';
import type { PrunerOptions } from '../../src/compaction/pruner-config.js';
import { codePointLength, createToolResultPruner } from '../../src/compaction/tool-result-pruner.js';
import type { ContentBlock, LogEvent, ToolResultData } from '../../src/log/event.js';
import { EventTypeRegistry } from '../../src/log/event-types.js';
import { origins } from '../../src/log/origins.js';
import type { SurfaceNode } from '../../src/log/surface-fold.js';
import { verifyLog } from '../../src/log/verify.js';
import { SurfaceMeter } from '../../src/meter/measure.js';
import { scriptAwareEstimator } from '../../src/meter/script-aware.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow } from '../support/events.js';
import { moreDrafts } from '../support/log-drafts.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const textOf = (blocks: readonly ContentBlock[]) => blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
const small = () => createToolResultPruner({ thresholdChars: 300, headChars: 60, tailChars: 30 });

describe('the tool-result pruner', () => {
  it('leaves a result at or under the threshold alone, counting code points, not UTF-16 units', () => {
    const pruner = small();
    expect(pruner.cut([{ type: 'text', text: 'x'.repeat(300) }], 5)).toBeUndefined();
    // 300 emoji are 600 UTF-16 units but 300 code points: still at the threshold.
    expect(pruner.cut([{ type: 'text', text: '😀'.repeat(300) }], 5)).toBeUndefined();
    expect(pruner.cut([{ type: 'text', text: 'x'.repeat(301) }], 5)).toBeDefined();
  });

  it('keeps the first headChars and last tailChars code points around one marker naming the omitted count and the original', () => {
    const text = Array.from({ length: 500 }, (_, index) => String.fromCharCode(0x4e00 + index)).join('');
    const cut = small().cut([{ type: 'text', text }], 42);
    expect(cut).toBeDefined();
    const result = textOf(cut?.blocks ?? []);
    expect(result.startsWith([...text].slice(0, 60).join(''))).toBe(true);
    expect(result.endsWith([...text].slice(-30).join(''))).toBe(true);
    expect(result).toContain('410 characters omitted by the tool-result pruner; the original is event #42');
    expect(cut?.charsBefore).toBe(500);
    expect(cut?.charsAfter).toBe(codePointLength(result));
    expect(cut?.charsAfter).toBeLessThanOrEqual(300);
  });

  it('never splits a surrogate pair, whatever stands at the cut points', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', '😀', '漢', '👩‍👩‍👧', 'é', '\n', '𝒳'), { minLength: 150, maxLength: 600 }), (pieces) => {
        const text = pieces.join('');
        const cut = small().cut([{ type: 'text', text }], 7);
        if (codePointLength(text) <= 300) {
          expect(cut).toBeUndefined();
          return;
        }
        const result = textOf(cut?.blocks ?? []);
        expect(LONE_SURROGATE.test(result)).toBe(false);
        expect(codePointLength(result)).toBeLessThanOrEqual(300);
        expect(result.startsWith([...text].slice(0, 60).join(''))).toBe(true);
        expect(result.endsWith([...text].slice(-30).join(''))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps non-text blocks in place and cuts across text blocks as one text', () => {
    const image: ContentBlock = { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' };
    const cut = small().cut([{ type: 'text', text: 'A'.repeat(150) }, image, { type: 'text', text: 'B'.repeat(200) }], 3);
    expect(cut?.blocks.map((block) => block.type)).toEqual(['text', 'image', 'text']);
    const result = textOf(cut?.blocks ?? []);
    expect(result.startsWith(`${'A'.repeat(60)}\n[… 260 characters omitted`)).toBe(true);
    expect(result.endsWith(`…]\n${'B'.repeat(30)}`)).toBe(true);
  });

  it('shadows a long result on the log (the original stays), and a second pass prunes nothing', async () => {
    const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
    const store = new MemoryLogStore();
    const log = await SessionLog.create(store, 's', { registry, now: fixedNow });
    await log.append([drafts.system(), drafts.user('Read it'), drafts.assistant('Reading', ['c1'])]);
    const [original] = await log.append([
      {
        ...drafts.toolResult('c1', 'line of output\n'.repeat(100)),
        data: { callId: 'c1', content: [{ type: 'text', text: 'line of output\n'.repeat(100) }], error: { message: 'exit 1' } },
      },
    ]);
    const meter = new SurfaceMeter(scriptAwareEstimator);
    const pruner = small();
    const first = await pruner.prune(log, meter);
    expect(first.pruned).toEqual([original?.seq]);
    const replacement = log.fold.toArray().at(-1);
    expect(replacement?.sourceEventSeqs).toEqual([original?.seq, (original?.seq ?? 0) + 1]);
    expect(replacement?.event.data).toMatchObject({ callId: 'c1', error: { message: 'exit 1' } });
    expect(await origins(replacement?.seq as never, (seq) => store.readEvent('s', seq))).toEqual([original?.seq]);
    expect((await pruner.prune(log, meter)).pruned).toEqual([]);
    const events: LogEvent[] = [];
    for await (const page of store.read('s')) events.push(...page);
    expect(events.find((event) => event.type === 'compaction/prune')?.data).toMatchObject({
      shadowedSeqs: [original?.seq],
      charsBefore: 1500,
    });
    expect(events[original?.seq ?? 0]).toEqual(original);
    expect((await verifyLog(store.read('s'), { registry })).ok).toBe(true);
  });

  it('refuses a configuration whose head, marker and tail could exceed the threshold', () => {
    expect(() => createToolResultPruner({ thresholdChars: 100, headChars: 60, tailChars: 30 })).toThrow(
      /thresholdChars|headChars|tailChars/,
    );
    // The types refuse an unknown key at compile time; the runtime check refuses it from untyped callers.
    expect(() => createToolResultPruner({ thresholdChars: 8192, headChars: 4096, tailChars: 1024, middle: 5 } as PrunerOptions)).toThrow(
      /middle/,
    );
  });
});

describe('what the pruner prunes first', () => {
  const long = (label: string, lines: number) => `${label}: ${'line of output\n'.repeat(lines)}`;

  /**
   * A session where the model has been sent the result of c1 (a model/request after it) and
   * not yet those of c2 and c3 (appended after the latest request): c3 is the largest.
   */
  async function sessionWithSentAndUnsent() {
    const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
    const store = new MemoryLogStore();
    const log = await SessionLog.create(store, 's', { registry, now: fixedNow });
    await log.append([drafts.system(), drafts.user('Read them'), drafts.assistant('Reading', ['c1'])]);
    const [sent] = await log.append([drafts.toolResult('c1', long('first', 100))]);
    await log.append([
      moreDrafts.modelRequest(
        1,
        2,
        log.fold.toArray().map((node) => node.seq),
      ),
    ]);
    await log.append([drafts.assistant('And these', ['c2', 'c3'])]);
    const [smaller] = await log.append([drafts.toolResult('c2', long('second', 60))]);
    const [larger] = await log.append([drafts.toolResult('c3', long('third', 120))]);
    const meter = new SurfaceMeter(scriptAwareEstimator);
    const measure = () => meter.measure(log.fold.toArray()).total;
    return { store, log, meter, measure, sent: sent?.seq as number, smaller: smaller?.seq as number, larger: larger?.seq as number };
  }

  async function prunes(store: MemoryLogStore) {
    const found: Array<Record<string, unknown>> = [];
    for await (const page of store.read('s')) for (const event of page) if (event.type === 'compaction/prune') found.push(event.data);
    return found;
  }

  it('prunes the results the model was sent, and leaves the unsent ones whole when that is enough', async () => {
    const { store, log, meter, measure, sent } = await sessionWithSentAndUnsent();
    const result = await small().prune(log, meter, { threshold: Number.MAX_SAFE_INTEGER, measure });
    expect(result).toMatchObject({ pruned: [sent], unseen: [] });
    const [record] = await prunes(store);
    expect(record?.shadowedSeqs).toEqual([sent]);
    expect(record).not.toHaveProperty('unseen');
  });

  it('prunes an unsent result only while the surface is still over its threshold, the largest first, and says so', async () => {
    const { store, log, meter, measure, sent, larger, smaller } = await sessionWithSentAndUnsent();
    const pruner = small();
    // The surface once a result is pruned: its price replaced by its cut's.
    const saving = (seq: number) => {
      const node = log.fold.node(seq as never) as SurfaceNode;
      const data = node.event.data as unknown as ToolResultData;
      const cut = pruner.cut(data.content, seq);
      return meter.priceOf(node) - meter.priceOfData('tool/result', { callId: data.callId, content: cut?.blocks ?? [] });
    };
    // Still over after the sent result; under once the larger unsent one is pruned too.
    const threshold = measure() - saving(sent) - saving(larger) + 1;
    const result = await pruner.prune(log, meter, { threshold, measure });
    expect(measure()).toBeLessThan(threshold);
    expect(result).toMatchObject({ pruned: [sent, larger], unseen: [larger] });
    expect(log.fold.isCurrent(smaller)).toBe(true);
    const records = await prunes(store);
    expect(records.map((record) => record.shadowedSeqs)).toEqual([[sent], [larger]]);
    expect(records[1]).toMatchObject({ unseen: true });
    // A threshold nothing can reach: every long result goes, each unsent one marked.
    const rest = await pruner.prune(log, meter, { threshold: 0, measure });
    expect(rest).toMatchObject({ pruned: [smaller], unseen: [smaller] });
    expect((await verifyLog(store.read('s'), { registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) })).ok).toBe(true);
  });

  it('without a fit to reach (a provider refused the request as too long), prunes every long result, marking the unsent ones', async () => {
    const { store, log, meter, sent, larger, smaller } = await sessionWithSentAndUnsent();
    const result = await small().prune(log, meter);
    expect(result).toMatchObject({ pruned: [sent, larger, smaller], unseen: [larger, smaller] });
    expect((await prunes(store)).map((record) => record.unseen === true)).toEqual([false, true, true]);
  });

  it('refuses a compaction/prune whose unseen is anything but true', async () => {
    const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
    const log = await SessionLog.create(new MemoryLogStore(), 's', { registry, now: fixedNow });
    await log.append([drafts.system(), drafts.user('Read it'), drafts.assistant('Reading', ['c1'])]);
    const [original] = await log.append([drafts.toolResult('c1', long('only', 100))]);
    const seq = original?.seq as number;
    const batch = (unseen: unknown) => [
      {
        type: 'compaction/prune',
        data: { shadowedSeqs: [seq], shadowedTokenCount: 5, charsBefore: 10, charsAfter: 5, unseen },
        ignorable: true,
      },
      {
        ...drafts.toolResult('c1', 'cut'),
        surfaceOp: { op: 'replace', startSeq: seq, endSeq: seq } as never,
        sourceEventSeqs: [seq, seq + 1],
      },
    ];
    await expect(log.append(batch(false) as never)).rejects.toThrow(/unseen/);
    await expect(log.append(batch(true) as never)).resolves.toHaveLength(2);
  });
});
