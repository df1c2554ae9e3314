// Benchmark: the spine's per-step overhead on a long surface (10,000 nodes, no compaction), as
// a ratio to the whole request written from scratch (renderSurface over the fold's nodes +
// model.render + canonicalJson of the body + node:crypto SHA-256 of all of it: what the spine
// did per call before requests were written in proportion to the change, and what a harness
// that renders and hashes each request does), measured in the same run, interleaved step by
// step. The step includes its appends and still writes the request incrementally. A step is one turn of one model call with a
// scripted model that answers at once: it appends the turn's events, renders the surface,
// hashes the request (the digest of model/request) and calls the model. On the in-memory store
// and on SQLite (the default, WAL + synchronous FULL). Also: where a step's time goes, how
// often a step walks the whole surface (counted by wrapping the fold), and the bytes a step
// allocates against the size of the surface (a child process with --expose-gc).
//
//   npm run bench -- spine-step
//   npx tsx bench/spine-step.bench.ts [--quick]

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../src/log/canonical-json.js';
import type { EventDraft, LogEvent } from '../src/log/event.js';
import { sha256Hex } from '../src/log/sha256.js';
import type { SurfaceNode } from '../src/log/surface-fold.js';
import { SurfaceMeter } from '../src/meter/measure.js';
import { scriptAwareEstimator } from '../src/meter/script-aware.js';
import { createOpenAIChatModel } from '../src/providers/openai-chat/openai-chat-model.js';
import { renderSurface } from '../src/spine/render-surface.js';
import type { LogStore } from '../src/store/log-store.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';
import { nodeSha256Hex } from '../src/store/node-sha256.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import type { AllocationResult } from './spine-step-child.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  createTempDirectory,
  elapsedMs,
  formatBytes,
  formatCount,
  formatMs,
  formatRatio,
  median,
  runIfMain,
  runJsonChild,
} from './support.js';
import { buildSurfaceSession, openStepRig, type StepRig } from './surface-session.js';

const CHILD = fileURLToPath(new URL('./spine-step-child.ts', import.meta.url));
const SESSION_ID = 'bench-step';

interface Sizes {
  readonly nodes: number;
  readonly warmupSteps: number;
  readonly steps: number;
  readonly allocationSteps: number;
}

const FULL: Sizes = { nodes: 10_000, warmupSteps: 5, steps: 40, allocationSteps: 10 };
const QUICK: Sizes = { nodes: 2_000, warmupSteps: 2, steps: 6, allocationSteps: 3 };

interface StoreRun {
  readonly store: string;
  readonly buildMs: number;
  readonly events: number;
  readonly surfaceNodes: number;
  readonly stepMs: readonly number[];
  /** The whole request from scratch (render + canonical JSON + SHA-256), timed just before each step. */
  readonly scratchMs: readonly number[];
  readonly renderMs: readonly number[];
  /** Time inside SessionLog.append per step (sealing, fold, store). */
  readonly appendMs: readonly number[];
  readonly appendsPerStep: number;
  /** Whole-surface walks through the fold per step: toArray() and nodes() calls. */
  readonly toArrayPerStep: number;
  readonly nodesPerStep: number;
  /** Characters of the canonical JSON of a model/request event's data (its surfaceSeqs list mostly). */
  readonly modelRequestChars: number;
}

/** Counts calls of the fold's whole-surface walks and times the log's appends. */
function instrument(rig: StepRig) {
  const log = rig.session.log;
  const fold = log.fold;
  const counts = { toArray: 0, nodes: 0, appends: 0, appendMs: 0 };
  const toArray = fold.toArray.bind(fold);
  const nodes = fold.nodes.bind(fold);
  const append = log.append.bind(log);
  fold.toArray = () => {
    counts.toArray++;
    return toArray();
  };
  fold.nodes = () => {
    counts.nodes++;
    return nodes();
  };
  log.append = async (drafts: readonly EventDraft[]): Promise<readonly LogEvent[]> => {
    counts.appends++;
    const start = clock();
    try {
      return await append(drafts);
    } finally {
      counts.appendMs += elapsedMs(start);
    }
  };
  return counts;
}

async function runStore(label: string, store: LogStore, sizes: Sizes, context: BenchContext): Promise<StoreRun> {
  context.progress(`spine-step: ${label}: building a session of ${formatCount(sizes.nodes)} surface nodes`);
  const buildStart = clock();
  const built = await buildSurfaceSession(store, SESSION_ID, sizes.nodes);
  const buildMs = elapsedMs(buildStart);
  const rig = await openStepRig(store, SESSION_ID);
  try {
    for (let index = 0; index < sizes.warmupSteps; index++) {
      rig.requestFromScratch();
      rig.renderAlone();
      await rig.step();
    }
    context.progress(`spine-step: ${label}: ${sizes.steps} steps, each after the request from scratch and the render alone`);
    const counts = instrument(rig);
    const stepMs: number[] = [];
    const scratchMs: number[] = [];
    const renderMs: number[] = [];
    const appendMs: number[] = [];
    let toArray = 0;
    let nodes = 0;
    let appends = 0;
    for (let index = 0; index < sizes.steps; index++) {
      let start = clock();
      if (rig.requestFromScratch().length !== 64) throw new Error('spine-step: no digest');
      scratchMs.push(elapsedMs(start));
      start = clock();
      if (rig.renderAlone().body === undefined) throw new Error('spine-step: nothing rendered');
      renderMs.push(elapsedMs(start));
      const before = { ...counts };
      start = clock();
      await rig.step();
      stepMs.push(elapsedMs(start));
      appendMs.push(counts.appendMs - before.appendMs);
      toArray += counts.toArray - before.toArray;
      nodes += counts.nodes - before.nodes;
      appends += counts.appends - before.appends;
    }
    const lastRequest = await lastModelRequest(store);
    return {
      store: label,
      buildMs,
      events: built.events,
      surfaceNodes: rig.session.log.fold.size,
      stepMs,
      scratchMs,
      renderMs,
      appendMs,
      appendsPerStep: appends / sizes.steps,
      toArrayPerStep: toArray / sizes.steps,
      nodesPerStep: nodes / sizes.steps,
      modelRequestChars: canonicalJson(lastRequest.data).length,
    };
  } finally {
    await rig.session.close();
  }
}

async function lastModelRequest(store: LogStore): Promise<LogEvent> {
  const head = await store.head(SESSION_ID);
  for (let seq = (head?.nextSeq ?? 0) - 1; seq >= 0; seq--) {
    const event = await store.readEvent(SESSION_ID, seq);
    if (event.type === 'model/request') return event;
  }
  throw new Error('spine-step: no model/request in the session');
}

/** What AgentSession.estimate does for model/request's estimatedTokens. */
function estimate(meter: SurfaceMeter, nodes: readonly SurfaceNode[]): number {
  const total = meter.measure(nodes).total;
  meter.trimTo(nodes);
  return total;
}

/** Each part of a step's render and digest, alone, on the memory store's final surface: the median of `repeats` runs. */
async function timeParts(sizes: Sizes): Promise<Array<{ part: string; ms: number; inStep: boolean }>> {
  const store = new MemoryLogStore();
  await buildSurfaceSession(store, SESSION_ID, sizes.nodes);
  const rig = await openStepRig(store, SESSION_ID);
  try {
    for (let index = 0; index < sizes.warmupSteps; index++) await rig.step();
    const fold = rig.session.log.fold;
    const nodes = fold.toArray();
    const messages = renderSurface(nodes);
    const body = rig.model.render({ messages, params: rig.params }).body;
    const json = canonicalJson(body);
    // As AgentSession estimates a request: one script-aware meter per session, its prices cached by seq.
    const meter = new SurfaceMeter(scriptAwareEstimator);
    estimate(meter, nodes);
    // Rendering is pure: this adapter is never asked to send, so it points nowhere real.
    const openai = createOpenAIChatModel({
      model: 'gpt-4o',
      apiKey: 'unused',
      baseUrl: 'http://127.0.0.1:9/renders-only',
      contextWindow: 1_000_000_000,
      defaultMaxOutputTokens: 4_096,
    });
    const openaiBody = openai.render({ messages, params: rig.params }).body;
    const time = (work: () => unknown) => {
      const samples: number[] = [];
      for (let index = 0; index < Math.max(3, sizes.steps >> 2); index++) {
        const start = clock();
        if (work() === undefined) throw new Error('spine-step: a part returned nothing');
        samples.push(elapsedMs(start));
      }
      return median(samples);
    };
    return [
      { part: 'fold.toArray()', ms: time(() => fold.toArray()), inStep: true },
      { part: 'renderSurface(nodes)', ms: time(() => renderSurface(nodes)), inStep: true },
      {
        part: 'model.render (scripted: canonicalJson + JSON.parse of the messages)',
        ms: time(() => rig.model.render({ messages, params: rig.params })),
        inStep: true,
      },
      { part: 'surfaceSeqs: nodes.map(seq)', ms: time(() => nodes.map((node) => node.seq)), inStep: true },
      { part: 'digest: canonicalJson(body)', ms: time(() => canonicalJson(body)), inStep: true },
      { part: 'digest: sha256Hex (pure TypeScript) of that text', ms: time(() => sha256Hex(json)), inStep: true },
      {
        part: 'estimate: the session meter’s measure(nodes) + trimTo (prices cached)',
        ms: time(() => estimate(meter, nodes)),
        inStep: true,
      },
      {
        part: 'for comparison: the same on a fresh meter (the first step after opening)',
        ms: time(() => estimate(new SurfaceMeter(scriptAwareEstimator), nodes)),
        inStep: false,
      },
      { part: 'for comparison: node:crypto SHA-256 of the same text', ms: time(() => nodeSha256Hex(json)), inStep: false },
      {
        part: 'for comparison: the openai-chat adapter’s render of the same messages',
        ms: time(() => openai.render({ messages, params: rig.params })),
        inStep: false,
      },
      {
        part: 'for comparison: the digest of its body (canonicalJson + sha256Hex)',
        ms: time(() => sha256Hex(canonicalJson(openaiBody))),
        inStep: false,
      },
    ];
  } finally {
    await rig.session.close();
  }
}

function runChild(sizes: Sizes): Promise<AllocationResult> {
  const args = ['--import', 'tsx', '--expose-gc', '--max-semi-space-size=512', CHILD, String(sizes.nodes), String(sizes.allocationSteps)];
  return runJsonChild('spine-step benchmark: the child', args);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  const memory = await runStore('memory', new MemoryLogStore(), sizes, context);
  const directory = createTempDirectory('spine-step');
  let sqlite: StoreRun;
  try {
    const store = await openSqliteStore(join(directory.path, 'log.db'));
    try {
      sqlite = await runStore('sqlite', store, sizes, context);
    } finally {
      await store.close();
    }
  } finally {
    directory.cleanup();
  }
  context.progress('spine-step: the parts of a step, alone');
  const parts = await timeParts(sizes);
  context.progress(`spine-step: allocations per step, in a child process (${sizes.allocationSteps} steps)`);
  const allocation = await runChild(sizes);

  const runs = [memory, sqlite];
  const stepTable = {
    title: `A step of the spine vs the whole request from scratch (render + canonical JSON + SHA-256), on a surface of ${formatCount(sizes.nodes)} nodes (median of ${sizes.steps} steps, interleaved)`,
    columns: [
      'store',
      'surface nodes',
      'request from scratch',
      'step',
      'of which appends',
      'appends/step',
      'step ÷ from scratch',
      'step − appends ÷ from scratch',
      '(render alone)',
    ],
    rows: runs.map((result) => {
      const scratch = median(result.scratchMs);
      const step = median(result.stepMs);
      const appends = median(result.appendMs);
      return [
        result.store,
        formatCount(result.surfaceNodes),
        formatMs(scratch),
        formatMs(step),
        formatMs(appends),
        result.appendsPerStep.toFixed(1),
        formatRatio(step / scratch),
        formatRatio((step - appends) / scratch),
        formatMs(median(result.renderMs)),
      ];
    }),
  };
  const memoryScratchMs = median(memory.scratchMs);
  const partsTable = {
    title: 'The parts of a step, each alone on the same surface (memory store; median)',
    columns: ['part', 'time', 'vs the request from scratch'],
    rows: parts.map((part) => [part.inStep ? part.part : `(${part.part})`, formatMs(part.ms), formatRatio(part.ms / memoryScratchMs)]),
  };
  const unit = allocation.flatCopyBytes;
  const copies = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / unit).toFixed(1)}`);
  const allocationTable = {
    title: `Bytes allocated, against one flat copy of the serialized request (${formatBytes(unit)}: ${formatCount(allocation.bodyChars)} characters, two bytes each in V8 as some are above U+00FF; ${formatBytes(allocation.bodyUtf8Bytes)} in UTF-8)`,
    columns: ['what', 'allocated', 'in flat copies'],
    rows: [
      ['a whole step (turn of one call)', formatBytes(allocation.stepBytes), copies(allocation.stepBytes)],
      ...Object.entries(allocation.parts).map(([part, bytes]) => [`  ${part}, alone`, formatBytes(bytes), copies(bytes)]),
    ],
  };
  const walks = runs
    .map(
      (result) =>
        `${result.store}: ${result.toArrayPerStep.toFixed(1)} fold.toArray() and ${result.nodesPerStep.toFixed(1)} fold.nodes() per step`,
    )
    .join('; ');
  return {
    tables: [stepTable, partsTable, allocationTable],
    notes: [
      `The session is built through SessionLog in batches (${formatCount(memory.events)} events, no model/request events) and continued by the harness (openSession); each step is session.send() of one turn with a model that renders as the scripted model does and answers at once with a fixed reply, counting nothing (a server counts a request on its own machine), and no tools.`,
      'The baseline, the request from scratch, is what the spine did per call before requests were written in proportion to the change (and what a harness that renders and hashes every request does): renderSurface over fold.nodes(), model.render with the params the spine sends, canonicalJson of the body and the log’s SHA-256 (node:crypto) of that text, timed just before each step on the same surface. The step does all of that and more (appends, the meter, the call), but renders, serializes and hashes only what changed since the previous call.',
      'The render alone (renderSurface + model.render, no serialization, no digest) is timed too, in its own column, for comparison with the parts below; it is not the baseline, since the step no longer renders the whole surface. The scripted model’s render serializes the messages to canonical JSON and parses them back, as its body; a real adapter converts the messages instead.',
      'A step also prices the request for model/request’s estimatedTokens with the session’s script-aware meter (prices cached by seq, so a walk of the surface and a map lookup per node).',
      `Whole-surface walks through the fold, counted by wrapping fold.toArray and fold.nodes on the session: ${walks}. With no capability mounted, nothing else walks the fold.`,
      `Allocations are measured in a child process (--expose-gc, a 512 MB young generation, two full collections before each sample; heapUsed + arrayBuffers after − before; ${allocation.samples} step samples kept, ${allocation.dropped} dropped because the collector ran). Garbage counts: this is what a step asks of the allocator, not what it keeps.`,
      `Each model/request event carries the surface's seqs: ${formatCount(runs[0]?.modelRequestChars ?? 0)} characters of canonical JSON data per call on this surface, so the log grows by O(surface) per model call.`,
      `Building the session took ${formatMs(memory.buildMs)} in memory and ${formatMs(sqlite.buildMs)} on SQLite; total step time over ${sizes.steps} steps: ${runs.map((result) => `${result.store} ${formatMs(sum(result.stepMs))}`).join(', ')}.`,
    ],
    figures: {
      sizes: { ...sizes },
      stores: runs.map((result) => ({
        store: result.store,
        events: result.events,
        surfaceNodes: result.surfaceNodes,
        buildMs: result.buildMs,
        medianScratchMs: median(result.scratchMs),
        medianRenderMs: median(result.renderMs),
        medianStepMs: median(result.stepMs),
        medianAppendMs: median(result.appendMs),
        stepToScratchRatio: median(result.stepMs) / median(result.scratchMs),
        stepLessAppendsToScratchRatio: (median(result.stepMs) - median(result.appendMs)) / median(result.scratchMs),
        stepToRenderRatio: median(result.stepMs) / median(result.renderMs),
        appendsPerStep: result.appendsPerStep,
        toArrayPerStep: result.toArrayPerStep,
        nodesPerStep: result.nodesPerStep,
        modelRequestChars: result.modelRequestChars,
      })),
      parts: parts.map((part) => ({ part: part.part, ms: part.ms, inStep: part.inStep })),
      allocation: { ...allocation, parts: { ...allocation.parts }, stepInFlatCopies: allocation.stepBytes / unit },
    },
  };
}

export const benchmark: Benchmark = {
  name: 'spine-step',
  description:
    'per-step cost of the spine (appends + incremental request + digest) on a 10,000-node surface, vs the whole request from scratch (render + canonical JSON + SHA-256)',
  run,
};

// Run alone: `npx tsx bench/spine-step.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
