// Benchmark: `shadowlog search` on a store of hundreds of sessions (1,000,000 events by default;
// SHADOWLOG_BENCH_SEARCH_EVENTS sets another size, --quick 20,000), against what a user would do
// without it: a plain scan of the events (SELECT … WHERE body LIKE '%text%' in SQL; the
// PostgreSQL figures use ILIKE on the bodies), and reading every event through the store API
// (scanSearch). Both in the same run, on the same store. A path (`src/csv.ts`) is planted in a
// dozen short sessions among the synthetic coding-agent sessions; a common word hits everywhere.
//
// It also measures what the index costs an append, with and without it in the same run: 1,000-
// event batches and single events, inserted as the store does into a file without the index
// tables (the log alone) and into one with them (the log and its index, one transaction), and
// through store.append; plus the bytes the index takes beside the events.

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { canonicalJson } from '../src/log/canonical-json.js';
import type { LogEvent } from '../src/log/event.js';
import { prepareAppend } from '../src/log/seal.js';
import { nodeSha256Hex } from '../src/store/node-sha256.js';
import { scanSearch } from '../src/store/search/scan-search.js';
import { openSqliteStore, type SqliteLogStore } from '../src/store/sqlite/index.js';
import { MIGRATIONS, migrate } from '../src/store/sqlite/schema.js';
import { SqliteSearchIndex } from '../src/store/sqlite/search-index.js';
import { postgresSearch } from './search-postgres.js';
import {
  type Benchmark,
  type BenchReport,
  clock,
  createTempDirectory,
  elapsedMs,
  type Figures,
  formatBytes,
  formatCount,
  formatMs,
  formatRate,
  formatRatio,
  median,
  runIfMain,
  type Table,
} from './support.js';
import { SealedSessionStream } from './synthetic-session.js';

const EVENTS_VARIABLE = 'SHADOWLOG_BENCH_SEARCH_EVENTS';
const POSTGRES_EVENTS_VARIABLE = 'SHADOWLOG_BENCH_SEARCH_POSTGRES_EVENTS';
const PER_SESSION = 2500;
const NEEDLE = 'src/csv.ts';
const NEEDLE_SESSIONS = 12;
const COMMON = 'const';
const BATCH = 1000;

function plannedEvents(quick: boolean, variable = EVENTS_VARIABLE, full = 1_000_000): number {
  const value = process.env[variable];
  if (value === undefined || value === '') return quick ? 20_000 : full;
  if (!/^\d+$/.test(value) || Number(value) < PER_SESSION)
    throw new RangeError(`${variable} must be a whole number of at least ${PER_SESSION}, found ${value}`);
  return Number(value);
}

/** Session `index`'s events, a batch at a time. */
function* sessionBatches(index: number, count: number): Generator<LogEvent[]> {
  const stream = new SealedSessionStream({ seed: index + 1 });
  for (let left = count; left > 0; left -= BATCH) yield stream.take(Math.min(BATCH, left));
}

/** A short session that mentions NEEDLE (planted between the synthetic ones, whose text never does). */
function needleSession(): LogEvent[] {
  const stream = new SealedSessionStream({ seed: 99 });
  const [start, system] = stream.take(2) as [LogEvent, LogEvent];
  const draft = {
    type: 'user/message',
    data: { content: [{ type: 'text', text: `Please read ${NEEDLE} and fix the quoting.` }] },
    surfaceOp: 'append' as const,
  };
  return [start, system, ...prepareAppend(stream.fold, [draft], () => system.time, nodeSha256Hex).events];
}

async function* asAsync<T>(items: Iterable<T>): AsyncIterable<T> {
  yield* items;
}

/** Times `work` `runs` times (after one warm-up run unless `warm` is false); the median in ms and the last result. */
async function timeMedian<T>(runs: number, work: () => Promise<T> | T, warm = true): Promise<{ ms: number; result: T }> {
  let result = warm ? await work() : (undefined as T);
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = clock();
    result = await work();
    times.push(elapsedMs(start));
  }
  return { ms: median(times), result };
}

/** Bytes each table and index of the file takes (dbstat). */
function tableBytes(db: Database.Database): Map<string, number> {
  const rows = db.prepare<[], [string, number]>('SELECT name, sum(pgsize) FROM dbstat GROUP BY name').raw().all();
  return new Map(rows);
}

async function appendCost(directory: string, quick: boolean): Promise<{ table: Table; figures: Figures }> {
  const sessions = quick ? 4 : 20;
  const singles = quick ? 200 : 2000;
  const batches = [...Array.from({ length: sessions }, (_, index) => [...sessionBatches(10_000 + index, PER_SESSION)])];
  const variants: { label: string; run: (file: string) => Promise<{ batchMs: number; singleMs: number; events: number }> }[] = [
    { label: "log alone (schema 3: events, the store's insert, no index)", run: (file) => bareRun(file, 3, false) },
    { label: 'log and index (schema 4: events + search tables, one transaction)', run: (file) => bareRun(file, 4, true) },
    { label: 'store.append (schema 4, as shipped)', run: (file) => storeRun(file) },
  ];
  async function bareRun(file: string, version: number, index: boolean) {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    migrate(db, file, MIGRATIONS.slice(0, version));
    const insert = db.prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)');
    const search = index ? new SqliteSearchIndex(db) : undefined;
    const write = db.transaction((sessionId: string, events: readonly LogEvent[]) => {
      for (const event of events) insert.run(sessionId, event.seq, event.type, event.hash, canonicalJson(event));
      search?.add(sessionId, events);
    });
    const timing = await measure((sessionId, events) => write.immediate(sessionId, events));
    db.close();
    return timing;
  }
  async function storeRun(file: string) {
    const store = await openSqliteStore(file);
    const timing = await measure((sessionId, events) => store.append(sessionId, events, { expectedSeq: (events[0] as LogEvent).seq }));
    await store.close();
    return timing;
  }
  async function measure(write: (sessionId: string, events: readonly LogEvent[]) => unknown) {
    let events = 0;
    const start = clock();
    for (const [index, list] of batches.entries())
      for (const batch of list) {
        await write(`s${index}`, batch);
        events += batch.length;
      }
    const batchMs = elapsedMs(start);
    const single = [...sessionBatches(20_000, singles)].flat();
    const singleStart = clock();
    for (const event of single) await write('singles', [event]);
    return { batchMs, singleMs: elapsedMs(singleStart), events };
  }
  const results = [];
  for (const [index, variant] of variants.entries())
    results.push({ ...variant, ...(await variant.run(join(directory, `append-${index}.db`))) });
  const base = results[0] as (typeof results)[number];
  return {
    table: {
      title: `append cost of the index: ${formatCount(base.events)} events in ${BATCH}-event batches, ${formatCount(singles)} single-event appends (WAL, synchronous FULL)`,
      columns: ['variant', 'batches', 'rate', 'vs log alone', 'single appends', 'per append', 'vs log alone'],
      rows: results.map((result) => [
        result.label,
        formatMs(result.batchMs),
        formatRate((result.events / result.batchMs) * 1000),
        formatRatio(result.batchMs / base.batchMs),
        formatMs(result.singleMs),
        `${((result.singleMs / singles) * 1000).toFixed(0)} µs`,
        formatRatio(result.singleMs / base.singleMs),
      ]),
    },
    figures: Object.fromEntries(
      results.map((result) => [result.label, { batchMs: result.batchMs, singleMs: result.singleMs, events: result.events, singles }]),
    ),
  };
}

export const benchmark: Benchmark = {
  name: 'search',
  description: `search at ${formatCount(plannedEvents(false))} events (${EVENTS_VARIABLE}) vs a plain LIKE scan and a read of every event; the index's append cost`,
  async run(context): Promise<BenchReport> {
    const directory = createTempDirectory('search');
    try {
      const total = plannedEvents(context.quick);
      const sessions = Math.ceil(total / PER_SESSION);
      const file = join(directory.path, 'search.db');
      const store: SqliteLogStore = await openSqliteStore(file);
      const needles = new Set(
        Array.from({ length: NEEDLE_SESSIONS }, (_, index) => Math.floor(((index + 0.5) * sessions) / NEEDLE_SESSIONS)),
      );
      context.progress(`building ${formatCount(total)} events in ${sessions} sessions (appendAll, as import does)`);
      const buildStart = clock();
      let built = 0;
      for (let index = 0; index < sessions; index++) {
        const count = Math.min(PER_SESSION, total - built);
        built += await store.appendAll(`session-${index}`, asAsync(sessionBatches(index, count)), { expectedSeq: 0 });
        if (needles.has(index)) await store.append(`needle-${index}`, needleSession(), { expectedSeq: 0 });
        if (index % 40 === 39) context.progress(`${formatCount(built)} events`);
      }
      const buildMs = elapsedMs(buildStart);
      await store.idle();
      const db = new Database(file, { readonly: true });
      const bytes = tableBytes(db);
      const sum = (names: string[]) =>
        names.reduce(
          (total, name) => total + [...bytes.entries()].filter(([key]) => key.startsWith(name)).reduce((a, [, b]) => a + b, 0),
          0,
        );
      const eventBytes = sum(['events', 'sessions', 'sqlite_autoindex_events']);
      const indexBytes = sum(['search_']);
      const like = db.prepare<[string], [string, number]>('SELECT session_id, seq FROM events WHERE body LIKE ? LIMIT 50').raw();
      const oneNeedle = `needle-${[...needles][0]}`;
      const runs = context.quick ? 5 : 15;
      context.progress('timing queries');
      const queries = [
        { label: `rare path "${NEEDLE}" (in ${NEEDLE_SESSIONS} short sessions)`, query: { text: NEEDLE }, like: `%${NEEDLE}%` },
        { label: `common word "${COMMON}", first 50 hits`, query: { text: COMMON }, like: `%${COMMON}%` },
        { label: `"${NEEDLE}" in one session (--session)`, query: { text: NEEDLE, sessionId: oneNeedle }, like: undefined },
        { label: `regex src/[a-z]+\\.ts (a scan of the index's rows)`, query: { text: 'src/[a-z]+\\.ts', regex: true }, like: undefined },
      ];
      const rows: string[][] = [];
      const figures: Figures = {};
      for (const entry of queries) {
        const slow = entry.query.regex === true;
        const searched = await timeMedian(slow ? 1 : runs, () => store.search(entry.query), !slow);
        const baseline =
          entry.like === undefined ? undefined : await timeMedian(context.quick ? 3 : 3, () => like.all(entry.like as string), false);
        rows.push([
          entry.label,
          String(searched.result.hits.length) + (searched.result.truncated ? '+' : ''),
          searched.result.method,
          formatMs(searched.ms),
          baseline === undefined ? '—' : formatMs(baseline.ms),
          baseline === undefined ? '—' : formatRatio(searched.ms / baseline.ms),
        ]);
        figures[entry.label] = {
          hits: searched.result.hits.length,
          method: searched.result.method,
          searchMs: searched.ms,
          likeScanMs: baseline?.ms ?? null,
        };
      }
      context.progress('reading every event through the store (scanSearch)');
      const scanned = await timeMedian(1, () => scanSearch(store, { text: NEEDLE }), false);
      const indexed = await timeMedian(runs, () => store.search({ text: NEEDLE }));
      rows.push([
        `"${NEEDLE}" by reading every event (scanSearch)`,
        String(scanned.result.hits.length),
        'scan',
        formatMs(scanned.ms),
        '—',
        formatRatio(indexed.ms / scanned.ms),
      ]);
      figures.readEveryEventMs = scanned.ms;
      db.close();
      await store.close();
      const cost = await appendCost(directory.path, context.quick);
      const postgres = await postgresSearch({
        events: plannedEvents(context.quick, POSTGRES_EVENTS_VARIABLE, 200_000),
        sessionEvents: PER_SESSION,
        appendEvents: context.quick ? 5000 : 50_000,
        runs,
        batches: sessionBatches,
        needle: needleSession,
        needleSessions: NEEDLE_SESSIONS,
        queries: queries.filter((entry) => entry.like !== undefined).map((entry) => ({ label: entry.label, text: entry.query.text })),
        progress: context.progress,
      });
      const postgresTables = typeof postgres === 'string' ? [] : postgres.tables;
      const postgresNotes = typeof postgres === 'string' ? [postgres] : postgres.notes;
      return {
        tables: [
          {
            title: `search on ${formatCount(total)} events in ${sessions} sessions (SQLite, FTS5 trigram); built in ${formatMs(buildMs)} (${formatRate((total / buildMs) * 1000)} with the index)`,
            columns: ['query', 'hits', 'method', 'search', 'LIKE scan', 'search / baseline'],
            rows,
          },
          {
            title: 'bytes on disk (dbstat)',
            columns: ['part', 'bytes', 'vs the events'],
            rows: [
              ['events (table and indexes)', formatBytes(eventBytes), '1.00'],
              ['search index (search_rows, FTS5 trigram, search_shadowed)', formatBytes(indexBytes), formatRatio(indexBytes / eventBytes)],
            ],
          },
          cost.table,
          ...postgresTables,
        ],
        notes: [
          `search times are medians of ${runs} runs after a warm-up; the LIKE scan is SELECT session_id, seq FROM events WHERE body LIKE '%text%' LIMIT 50 (median of 3); the regex and the read of every event ran once`,
          "the last row's ratio is the indexed search over the read of every event; a common word stops at the first 50 hits, so the LIKE scan stops early too",
          `size: ${EVENTS_VARIABLE}=N (at least ${PER_SESSION}; default 1,000,000), ${POSTGRES_EVENTS_VARIABLE}=N for PostgreSQL (default 200,000); --quick is 20,000 for both`,
          ...postgresNotes,
        ],
        figures: {
          events: total,
          sessions,
          buildMs,
          eventBytes,
          indexBytes,
          queries: figures,
          append: cost.figures,
          postgres: typeof postgres === 'string' ? postgres : postgres.figures,
        },
      };
    } finally {
      directory.cleanup();
    }
  },
};

await runIfMain(import.meta.url, benchmark);
