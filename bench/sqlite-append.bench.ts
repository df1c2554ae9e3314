// Benchmark 2: durable appends to the SQLite store, as a ratio to a bare better-sqlite3 insert
// loop doing the same work in the same run: the same rows (session_id, seq, type, hash, body)
// into a table of the same shape, in a file in WAL mode with synchronous FULL. Single events
// (one transaction each: fsync-bound) and batches of 1,000 events per transaction, through the
// store alone (pre-sealed events) and through SessionLog (validation and sealing included).

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { canonicalJson } from '../src/log/canonical-json.js';
import type { EventDraft, LogEvent } from '../src/log/event.js';
import type { LogStore } from '../src/store/log-store.js';
import { SessionLog } from '../src/store/session-log.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  createTempDirectory,
  elapsedMs,
  type Figures,
  formatCount,
  formatMicros,
  formatMs,
  formatRate,
} from './support.js';
import { SealedSessionStream } from './synthetic-session.js';

const SESSION_ID = 'bench-append';
const BATCH_SIZE = 1000;
const TARGET_RATIO = 0.7;
/** Operations of one variant run back to back before the next variant's turn. */
const BLOCK = 8;

interface Plan {
  /** Aim for about this much bare-loop time per measurement; counts are calibrated to it. */
  readonly targetMs: number;
  readonly minSingles: number;
  readonly maxSingles: number;
  readonly minBatches: number;
  readonly maxBatches: number;
}

const FULL: Plan = { targetMs: 2000, minSingles: 2000, maxSingles: 20_000, minBatches: 30, maxBatches: 300 };
const QUICK: Plan = { targetMs: 250, minSingles: 150, maxSingles: 1500, minBatches: 3, maxBatches: 15 };

/** One way of appending: `prepare` readies the next operation untimed; the returned function is timed. */
interface Variant {
  readonly label: string;
  /** A variant that only explains where a gap comes from; it gets no verdict against the target. */
  readonly diagnostic: boolean;
  readonly prepare: () => () => unknown;
  /**
   * Waits for work the variant's appends left running in the background (the store's WAL
   * checkpoint thread); timed, at the end of each block of operations.
   */
  readonly settle?: () => Promise<void>;
  /** The WAL checkpoints the variant's store ran on its thread, read at the end. */
  readonly backgroundCheckpoints?: () => number;
  readonly close: () => Promise<void>;
  /** The number of events the variant stored, read back at the end as a check. */
  readonly countStored: () => Promise<number>;
  ms: number;
}

interface BareOptions {
  readonly label: string;
  /** Insert into the table the store created (with its triggers) instead of a plain one. */
  readonly storeSchema?: boolean;
  readonly serialize?: (event: LogEvent) => string;
}

/**
 * The bare loop: better-sqlite3, one table, rows inserted with a prepared statement; one
 * autocommit insert per event, or one transaction per batch.
 */
async function bareVariant(file: string, batchSize: number, options: BareOptions): Promise<Variant> {
  // The store creates its own schema; a bare loop into it then runs the store's triggers.
  if (options.storeSchema === true) await (await openSqliteStore(file)).close();
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  if (options.storeSchema !== true) {
    db.exec(`CREATE TABLE events (
      session_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      hash TEXT NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID`);
  }
  const statement = db.prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)');
  const serialize = options.serialize ?? JSON.stringify;
  const insert = (event: LogEvent) => {
    statement.run(SESSION_ID, event.seq, event.type, event.hash, serialize(event));
  };
  const insertMany = db.transaction((events: readonly LogEvent[]) => {
    for (const event of events) insert(event);
  });
  const stream = new SealedSessionStream();
  return {
    label: options.label,
    diagnostic: options.storeSchema === true || options.serialize !== undefined,
    prepare: () => {
      if (batchSize === 1) {
        const event = stream.next();
        return () => insert(event);
      }
      const events = stream.take(batchSize);
      return () => insertMany(events);
    },
    close: async () => {
      db.close();
    },
    countStored: async () => db.prepare('SELECT count(*) FROM events').pluck().get() as number,
    ms: 0,
  };
}

async function storeVariant(file: string, batchSize: number): Promise<Variant> {
  const store = await openSqliteStore(file);
  const stream = new SealedSessionStream();
  return {
    label: 'store.append of pre-sealed events',
    diagnostic: false,
    prepare: () => {
      const events = stream.take(batchSize);
      const expectedSeq = (events[0] as LogEvent).seq;
      return () => store.append(SESSION_ID, events, { expectedSeq });
    },
    settle: () => store.idle(),
    backgroundCheckpoints: () => store.backgroundCheckpoints,
    close: () => store.close(),
    countStored: () => nextSeqOf(store),
    ms: 0,
  };
}

async function sessionLogVariant(file: string, batchSize: number): Promise<Variant> {
  const store = await openSqliteStore(file);
  // A second copy of the stream supplies drafts that are legal where the log stands.
  const stream = new SealedSessionStream();
  const log = await SessionLog.create(store, SESSION_ID, { harnessVersion: 'bench' });
  stream.next(); // The log's own session/start stands for the stream's.
  return {
    label: 'SessionLog.append of drafts (validate + seal)',
    diagnostic: false,
    prepare: () => {
      const drafts: EventDraft[] = [];
      for (let index = 0; index < batchSize; index++) drafts.push(stream.nextDraft());
      return () => log.append(drafts);
    },
    settle: () => store.idle(),
    backgroundCheckpoints: () => store.backgroundCheckpoints,
    close: () => store.close(),
    countStored: async () => (await nextSeqOf(store)) - 1,
    ms: 0,
  };
}

async function nextSeqOf(store: LogStore): Promise<number> {
  return (await store.head(SESSION_ID))?.nextSeq ?? 0;
}

/**
 * Runs `count` operations of the variant, adding the time of each operation only, and then the
 * time it takes to settle what they left running in the background.
 */
async function runOperations(variant: Variant, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const operation = variant.prepare();
    const start = clock();
    const result = operation();
    if (result instanceof Promise) await result;
    variant.ms += elapsedMs(start);
  }
  if (variant.settle !== undefined) {
    const start = clock();
    await variant.settle();
    variant.ms += elapsedMs(start);
  }
}

/** How many operations of the bare loop take about `targetMs`, from a short probe. */
async function calibrate(directory: string, batchSize: number, targetMs: number, minimum: number, maximum: number): Promise<number> {
  const probe = await bareVariant(join(directory, `probe-${batchSize}.db`), batchSize, { label: 'probe' });
  const probeCount = batchSize === 1 ? 200 : 3;
  await runOperations(probe, probeCount);
  await probe.close();
  const wanted = Math.round(targetMs / (probe.ms / probeCount));
  const count = Math.min(maximum, Math.max(minimum, wanted));
  return count;
}

interface CaseResult {
  readonly batchSize: number;
  readonly operations: number;
  readonly variants: readonly {
    readonly label: string;
    readonly diagnostic: boolean;
    readonly ms: number;
    readonly backgroundCheckpoints: number | undefined;
  }[];
}

async function runCase(directory: string, batchSize: number, operations: number): Promise<CaseResult> {
  const name = batchSize === 1 ? 'single' : 'batch';
  const file = (variant: string) => join(directory, `${name}-${variant}.db`);
  const variants = [
    await bareVariant(file('bare'), batchSize, { label: 'bare better-sqlite3 insert loop' }),
    await bareVariant(file('bare-store-schema'), batchSize, {
      label: '  diagnostic: bare loop into the store’s table + triggers',
      storeSchema: true,
    }),
    await bareVariant(file('bare-canonical'), batchSize, {
      label: '  diagnostic: bare loop serializing with canonicalJson',
      serialize: canonicalJson,
    }),
    await storeVariant(file('store'), batchSize),
    await sessionLogVariant(file('session-log'), batchSize),
  ];
  const checkpoints = new Map<Variant, number>();
  const closed = new Set<Variant>();
  try {
    // Round robin, a few operations of each variant in turn: a noisy spell on the disk or the
    // CPUs (fsync times vary a lot) then hits every variant alike. Blocks rather than single
    // operations, and each block settled (timed) before the next variant's: the store's
    // background checkpoints overlap its own next appends, as they do for a real writer, and
    // never another variant's turn.
    for (let done = 0; done < operations; done += BLOCK) {
      for (const variant of variants) await runOperations(variant, Math.min(BLOCK, operations - done));
    }
    for (const variant of variants) {
      const stored = await variant.countStored();
      if (stored !== operations * batchSize) {
        throw new Error(`sqlite-append benchmark: ${variant.label} stored ${stored} events, expected ${operations * batchSize}`);
      }
      if (variant.backgroundCheckpoints !== undefined) checkpoints.set(variant, variant.backgroundCheckpoints());
    }
    // Closing is timed too: the last connection to close copies what is left of the log into the
    // file, and what each variant leaves there differs (SQLite checkpoints in the bare loop's
    // commits, the store on its thread).
    for (const variant of variants) {
      const start = clock();
      await variant.close();
      variant.ms += elapsedMs(start);
      closed.add(variant);
    }
  } finally {
    for (const variant of variants) if (!closed.has(variant)) await variant.close();
  }
  return {
    batchSize,
    operations,
    variants: variants.map((variant) => ({
      label: variant.label,
      diagnostic: variant.diagnostic,
      ms: variant.ms,
      backgroundCheckpoints: checkpoints.get(variant),
    })),
  };
}

function caseTable(result: CaseResult) {
  const bareMs = (result.variants[0] as { ms: number }).ms;
  const events = result.operations * result.batchSize;
  const single = result.batchSize === 1;
  return {
    title: single
      ? `Durable single-event appends (${formatCount(result.operations)} appends, one transaction each, WAL + synchronous=FULL)`
      : `Durable batch appends (${formatCount(result.operations)} batches of ${formatCount(result.batchSize)} events, one transaction each)`,
    columns: ['variant', 'time', single ? 'per append' : 'per batch', 'events/s', 'throughput vs bare', `≥ ${TARGET_RATIO}?`],
    rows: result.variants.map(({ label, diagnostic, ms }, index) => {
      const ratio = bareMs / ms;
      return [
        label,
        formatMs(ms),
        single ? formatMicros(ms / result.operations) : formatMs(ms / result.operations),
        formatRate((events * 1000) / ms),
        // Three decimals: a ratio just under the target must not print as the target.
        index === 0 ? '1.000× (baseline)' : `${ratio.toFixed(3)}×`,
        index === 0 || diagnostic ? '' : ratio >= TARGET_RATIO ? 'yes' : 'no',
      ];
    }),
  };
}

function describeCheckpoints(result: CaseResult): string {
  return result.variants
    .filter((variant) => variant.backgroundCheckpoints !== undefined)
    .map((variant) => `${formatCount(variant.backgroundCheckpoints ?? 0)} (${variant.label.split(' ')[0]})`)
    .join(' and ');
}

function caseFigures(result: CaseResult): Figures {
  const bareMs = (result.variants[0] as { ms: number }).ms;
  return {
    batchSize: result.batchSize,
    operations: result.operations,
    events: result.operations * result.batchSize,
    variants: result.variants.map(({ label, diagnostic, ms, backgroundCheckpoints }) => ({
      label: label.trim(),
      diagnostic,
      ms,
      ...(backgroundCheckpoints === undefined ? {} : { backgroundCheckpoints }),
      ratioToBare: bareMs / ms,
      meetsTarget: bareMs / ms >= TARGET_RATIO,
    })),
  };
}

async function run(context: BenchContext): Promise<BenchReport> {
  const plan = context.quick ? QUICK : FULL;
  const directory = createTempDirectory('append');
  try {
    context.progress('sqlite-append: calibrating counts on the bare loop');
    const singles = await calibrate(directory.path, 1, plan.targetMs, plan.minSingles, plan.maxSingles);
    const batches = await calibrate(directory.path, BATCH_SIZE, plan.targetMs, plan.minBatches, plan.maxBatches);
    context.progress(`sqlite-append: ${formatCount(singles)} single-event appends per variant`);
    const single = await runCase(directory.path, 1, singles);
    context.progress(`sqlite-append: ${formatCount(batches)} batches of ${formatCount(BATCH_SIZE)} per variant`);
    const batch = await runCase(directory.path, BATCH_SIZE, batches);
    return {
      tables: [caseTable(single), caseTable(batch)],
      notes: [
        `Throughput vs bare = bare time / variant time for the same number of events; the target is ≥ ${TARGET_RATIO} (informational, not a pass/fail).`,
        'Only the append call is timed; generating and pre-sealing the next events is not. The bare loop serializes each event with JSON.stringify inside the timed part; the store writes the canonical body remembered when the event was sealed (canonicalEventJson), so it serializes nothing there. An event the store did not see sealed or imported (one parsed elsewhere) costs a canonicalJson, as in the second diagnostic row.',
        'SessionLog.append seals with the node:crypto SHA-256, writing each event’s canonical JSON once (the hashed envelope and the stored body are assembled from it), then checks it against the fold.',
        'The bare table has the store’s events table shape (WITHOUT ROWID, primary key (session_id, seq)) but none of its triggers. The bare loop runs one prepared INSERT per row inside the transaction (the better-sqlite3 idiom for a bulk insert); the store inserts a batch ten rows a statement.',
        `The bare loop leaves WAL checkpoints to SQLite, which runs one inside the commit that takes the log past 1,000 pages. The store checkpoints on a thread of its own (PASSIVE: no lock) after each ~4 MiB written to the log (a commit counting two pages beside its bodies), and its own connection finishes the log once it is past 32 MiB; in the batch case the threads finished ${describeCheckpoints(batch)}. The variants take turns ${BLOCK} operations at a time, and a store variant’s turn ends by waiting (timed) for its checkpoint in flight: the thread’s work overlaps only that variant’s own appends, never another variant’s turn. Each variant’s close is timed as well: the last connection to close copies what is left of the log into the file.`,
        'The two diagnostic rows change one thing each in the bare loop, to show where a gap comes from: the store’s own table with its triggers (the events_next_seq check runs a lookup per row), and canonicalJson in place of JSON.stringify (what the store would pay without the remembered body).',
        `Counts are calibrated so that the bare loop takes about ${formatMs(plan.targetMs)} per measurement; each variant writes its own file under ${directory.path}.`,
      ],
      figures: { single: caseFigures(single), batch: caseFigures(batch), targetRatio: TARGET_RATIO },
    };
  } finally {
    directory.cleanup();
  }
}

export const benchmark: Benchmark = {
  name: 'sqlite-append',
  description: 'durable SQLite appends (single and 1,000-event batches) vs a bare better-sqlite3 insert loop',
  run,
};
