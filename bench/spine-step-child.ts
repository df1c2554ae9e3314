// The child process of the spine-step benchmark: the bytes a step allocates, and what its
// parts allocate alone, on a session built in memory. Each measurement runs after two full
// collections and reads heapUsed + arrayBuffers before and after; with a young generation
// large enough for a whole step (--max-semi-space-size), nothing is collected in between, and a
// sample during which the collector ran anyway (seen by a PerformanceObserver) is dropped.
// Prints one JSON line on stdout.
//
//   node --import tsx --expose-gc --max-semi-space-size=512 bench/spine-step-child.ts <nodes> <steps>

import { PerformanceObserver, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../src/log/canonical-json.js';
import { sha256Hex } from '../src/log/sha256.js';
import { renderSurface } from '../src/spine/render-surface.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';
import { collectGarbage, median } from './support.js';
import { buildSurfaceSession, openStepRig } from './surface-session.js';

export interface AllocationResult {
  readonly surfaceNodes: number;
  /** Characters of the canonical JSON of the request body (what is hashed and sent). */
  readonly bodyChars: number;
  readonly bodyUtf8Bytes: number;
  /** Bytes of one flat V8 copy of that text: 1 per character, or 2 if any character is above U+00FF. */
  readonly flatCopyBytes: number;
  /** Median bytes allocated per step, and the samples kept and dropped. */
  readonly stepBytes: number;
  readonly samples: number;
  readonly dropped: number;
  /** Median bytes allocated by each part alone, on the same surface. */
  readonly parts: Record<string, number>;
}

const gcStarts: number[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcStarts.push(entry.startTime);
}).observe({ entryTypes: ['gc'] });

const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

function allocatedBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Bytes allocated by `work`, or undefined when the collector ran during it. */
async function allocation(work: () => unknown): Promise<number | undefined> {
  collectGarbage();
  collectGarbage();
  await settle();
  const seen = gcStarts.length;
  const start = performance.now();
  const before = allocatedBytes();
  const result = await work();
  const bytes = allocatedBytes() - before;
  const end = performance.now();
  await settle();
  if (result === undefined) throw new Error('spine-step child: a measured part returned nothing');
  return gcStarts.slice(seen).some((time) => time >= start && time <= end) ? undefined : bytes;
}

async function medianAllocation(work: () => unknown, repeats: number): Promise<{ bytes: number; kept: number }> {
  const kept: number[] = [];
  for (let index = 0; index < repeats; index++) {
    const bytes = await allocation(work);
    if (bytes !== undefined) kept.push(bytes);
  }
  return { bytes: median(kept), kept: kept.length };
}

async function main(args: readonly string[]): Promise<void> {
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') throw new Error('spine-step child: run with --expose-gc');
  const nodes = Number(args[0] ?? 10_000);
  const steps = Number(args[1] ?? 10);
  const store = new MemoryLogStore();
  await buildSurfaceSession(store, 'bench-step-alloc', nodes);
  const rig = await openStepRig(store, 'bench-step-alloc');
  for (let index = 0; index < 3; index++) await rig.step();

  const stepSamples: number[] = [];
  for (let index = 0; index < steps; index++) {
    const bytes = await allocation(async () => {
      await rig.step();
      return true;
    });
    if (bytes !== undefined) stepSamples.push(bytes);
  }

  const fold = rig.session.log.fold;
  const body = rig.renderAlone().body;
  const json = canonicalJson(body);
  const repeats = Math.max(3, Math.min(steps, 7));
  const parts: Record<string, number> = {};
  const part = async (name: string, work: () => unknown) => {
    parts[name] = (await medianAllocation(work, repeats)).bytes;
  };
  await part('fold.toArray()', () => fold.toArray());
  await part('renderSurface(fold.toArray())', () => renderSurface(fold.toArray()));
  await part('renderSurface + model.render (the render alone)', () => rig.renderAlone());
  await part('canonicalJson(body)', () => canonicalJson(body));
  await part('sha256Hex(canonicalJson(body))', () => sha256Hex(canonicalJson(body)));
  // sha256Hex alone, over a text already flat (the first call flattens it in place): TextEncoder's
  // UTF-8 copy and the padded block buffer.
  sha256Hex(json);
  await part('sha256Hex of the flat text', () => sha256Hex(json));

  const result: AllocationResult = {
    surfaceNodes: fold.size,
    bodyChars: json.length,
    bodyUtf8Bytes: Buffer.byteLength(json, 'utf8'),
    flatCopyBytes: /[\u0100-\uffff]/.test(json) ? 2 * json.length : json.length,
    stepBytes: median(stepSamples),
    samples: stepSamples.length,
    dropped: steps - stepSamples.length,
    parts,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main(process.argv.slice(2));
