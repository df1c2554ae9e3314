// Benchmark: what a model/request costs in log bytes as the surface grows, with its surface
// written as the plain list of seqs (format 1) and as the change from the previous call (format
// 2's surfaceChange). Two sessions get the same calls: a system message, then turns of a user
// message, a call, an answer with a tool call, its result, a call and an answer, until the
// surface holds `nodes` nodes; every tenth turn one tool result is pruned (a replace in the
// middle of the surface, as the pruner writes it). Figures: the bytes of the stored event (its
// canonical JSON) for the last call, the total over all calls, and the time to fold each whole
// log (open), as a ratio to the plain list.
//
//   npm run bench -- surface-encoding
//   npx tsx bench/surface-encoding.bench.ts [--quick]

import type { EventDraft, LogEvent } from '../src/log/event.js';
import { canonicalEventJson } from '../src/log/event-json.js';
import { encodeRequestSurface } from '../src/log/surface-change.js';
import { SurfaceFold } from '../src/log/surface-fold.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';
import { SessionLog } from '../src/store/session-log.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  elapsedMs,
  formatBytes,
  formatMs,
  formatRatio,
  runIfMain,
} from './support.js';

const DIGEST = '0'.repeat(64);

interface Written {
  readonly events: readonly LogEvent[];
  readonly lastRequestBytes: number;
  readonly requestBytes: number;
  readonly requests: number;
  readonly nodes: number;
}

const SESSION_ID = 'encoding';

async function writeSession(nodes: number): Promise<Written> {
  const store = new MemoryLogStore();
  const log = await SessionLog.create(store, SESSION_ID);
  const text = (value: string) => [{ type: 'text', text: value }];
  await log.append([{ type: 'system/message', data: { content: text('You are a coding agent.') }, surfaceOp: 'append' }]);
  let turn = 0;
  const request = (step: number): EventDraft => {
    const seqs = log.fold.toArray().map((node) => node.seq);
    const surface = encodeRequestSurface(log.fold.lastRequestSurface, seqs);
    return {
      type: 'model/request',
      data: {
        turn,
        step,
        provider: 'scripted',
        model: 'scripted',
        params: { maxOutputTokens: 512 },
        ...surface,
        requestDigest: DIGEST,
        estimatedTokens: seqs.length * 40,
        rendererVersion: 'surface/1 scripted/1',
      },
    };
  };
  while (log.fold.size < nodes) {
    turn++;
    const callId = `call-${turn}`;
    await log.append([
      { type: 'turn/start', data: { turn } },
      { type: 'user/message', data: { content: text(`Task ${turn}.`) }, surfaceOp: 'append' },
    ]);
    await log.append([request(1)]);
    await log.append([
      {
        type: 'assistant/message',
        data: { content: text('Reading.'), toolCalls: [{ callId, name: 'read', arguments: { path: `f${turn}` } }], model: 'scripted' },
        surfaceOp: 'append',
      },
      { type: 'tool/result', data: { callId, content: text(`contents of f${turn}`) }, surfaceOp: 'append' },
    ]);
    if (turn % 10 === 0) {
      // Prune a result from ten turns back: a replace in the middle of the surface.
      const old = log.fold.toArray().find((node) => node.type === 'tool/result' && node.sourceEventSeqs.length === 0);
      if (old !== undefined) {
        const { callId: oldCall } = old.event.data as { callId: string };
        await log.append([
          {
            type: 'tool/result',
            data: { callId: oldCall, content: text('[pruned]') },
            surfaceOp: { op: 'replace', startSeq: old.seq, endSeq: old.seq },
            sourceEventSeqs: [old.seq],
          },
        ]);
      }
    }
    await log.append([request(2)]);
    await log.append([
      { type: 'assistant/message', data: { content: text('Done.'), toolCalls: [], model: 'scripted' }, surfaceOp: 'append' },
      { type: 'turn/end', data: { turn, reason: 'completed' } },
    ]);
  }
  const events: LogEvent[] = [];
  for await (const page of store.read(SESSION_ID)) events.push(...page);
  const requests = events.filter((event) => event.type === 'model/request');
  const sizes = requests.map((event) => Buffer.byteLength(canonicalEventJson(event)));
  return {
    events,
    lastRequestBytes: sizes.at(-1) ?? 0,
    requestBytes: sizes.reduce((sum, size) => sum + size, 0),
    requests: requests.length,
    nodes: log.fold.size,
  };
}

/** The same calls with plain lists: each surfaceChange decoded back into its list (what format 1 stores). */
function asPlainLists(events: readonly LogEvent[]): { lastRequestBytes: number; requestBytes: number; events: LogEvent[] } {
  const fold = new SurfaceFold();
  let last = 0;
  let total = 0;
  const plainEvents: LogEvent[] = [];
  for (const event of events) {
    plainEvents.push(event);
    if (event.type === 'model/request') {
      const { surfaceChange: _change, ...data } = event.data as Record<string, unknown>;
      const plain = { ...event, data: { ...data, surfaceSeqs: fold.toArray().map((node) => node.seq) } } as unknown as LogEvent;
      last = Buffer.byteLength(canonicalEventJson(plain));
      total += last;
      plainEvents[plainEvents.length - 1] = plain;
    }
    fold.apply(event);
  }
  return { lastRequestBytes: last, requestBytes: total, events: plainEvents };
}

function foldMs(events: readonly LogEvent[]): number {
  const start = clock();
  const fold = new SurfaceFold();
  for (const event of events) fold.apply(event);
  return elapsedMs(start);
}

export const benchmark: Benchmark = {
  name: 'surface-encoding',
  description: 'bytes per model/request: the plain surface list against the change from the previous call',
  async run(context: BenchContext): Promise<BenchReport> {
    const nodes = context.quick ? 1_000 : 10_000;
    context.progress(`writing a session to ${nodes} surface nodes`);
    const written = await writeSession(nodes);
    const plain = asPlainLists(written.events);
    // Fold each log twice and keep the faster run, so that the first one's warm-up does not count.
    const plainMs = Math.min(foldMs(plain.events), foldMs(plain.events));
    const changeMs = Math.min(foldMs(written.events), foldMs(written.events));
    const figures = {
      nodes: written.nodes,
      requests: written.requests,
      lastRequestBytesPlain: plain.lastRequestBytes,
      lastRequestBytesChange: written.lastRequestBytes,
      requestBytesPlain: plain.requestBytes,
      requestBytesChange: written.requestBytes,
      foldMsPlain: plainMs,
      foldMsChange: changeMs,
    };
    return {
      tables: [
        {
          title: `model/request events of a session grown to ${written.nodes} surface nodes (${written.requests} calls)`,
          columns: ['encoding', 'last call', 'all calls', 'per call (mean)', 'ratio'],
          rows: [
            [
              'surfaceSeqs (format 1)',
              formatBytes(plain.lastRequestBytes),
              formatBytes(plain.requestBytes),
              formatBytes(Math.round(plain.requestBytes / written.requests)),
              '1.00×',
            ],
            [
              'surfaceChange (format 2)',
              formatBytes(written.lastRequestBytes),
              formatBytes(written.requestBytes),
              formatBytes(Math.round(written.requestBytes / written.requests)),
              formatRatio(written.requestBytes / plain.requestBytes),
            ],
          ],
        },
      ],
      notes: [
        'Bytes are those of the stored event: its canonical JSON, envelope and hash included.',
        `Folding the whole log (checking every call's surface against the fold): ${formatMs(plainMs)} with plain lists, ${formatMs(changeMs)} with changes decoded (${formatRatio(changeMs / plainMs)}); parsing the stored JSON, which the change shrinks, is not in these times.`,
      ],
      figures,
    };
  },
};

await runIfMain(import.meta.url, benchmark);
