// Benchmark: the PostgreSQL store (issue 5). Three parts, each against a baseline measured in the
// same run: appends (single events and 1,000-event batches) vs a bare `pg` insert loop; 16
// concurrent writers on 16 sessions vs 1 writer; replay and show --surface of a 100,000-event
// session vs the same on SQLite. The server comes from SHADOWLOG_BENCH_POSTGRES_URL, else
// SHADOWLOG_TEST_POSTGRES_URL, else postgres://postgres@127.0.0.1:5432/test; when it does not
// answer the benchmark says so in one line and skips. Everything goes in a schema of the run's
// own, dropped at the end.
//
//   npm run bench -- postgres [--quick]
//   npx tsx bench/postgres.bench.ts [--quick]

import { appendFigures, appendTable, FULL_APPEND, measureAppends, QUICK_APPEND } from './postgres-append.js';
import { FULL_REPLAY, measureReplay, QUICK_REPLAY, replayFigures, replayNotes, replayTable } from './postgres-replay.js';
import { benchServerUrl, createBenchSchema, probeServer } from './postgres-server.js';
import { FULL_WRITERS, measureWriters, QUICK_WRITERS, writersFigures, writersNotes, writersTable } from './postgres-writers.js';
import { type BenchContext, type Benchmark, type BenchReport, formatBytes, runIfMain } from './support.js';

async function run(context: BenchContext): Promise<BenchReport> {
  const server = benchServerUrl();
  const skipped = await probeServer(server);
  if (skipped !== undefined) return { tables: [], notes: [skipped], figures: { skipped: true, reason: skipped } };

  const bench = await createBenchSchema(server.url);
  try {
    context.progress(`postgres: schema ${bench.schema}`);
    const appendPlan = context.quick ? QUICK_APPEND : FULL_APPEND;
    const appends = await measureAppends(bench, appendPlan, context.progress);
    const writers = await measureWriters(bench, context.quick ? QUICK_WRITERS : FULL_WRITERS, context.progress);
    const replayed = await measureReplay(bench, context.quick ? QUICK_REPLAY : FULL_REPLAY, context);
    const size = await bench.admin.query<{ bytes: string }>('SELECT pg_total_relation_size($1)::text AS bytes', [
      `"${bench.schema}".events`,
    ]);
    const settings = Object.entries(bench.settings)
      .map(([name, value]) => `${name} ${value}`)
      .join(', ');
    return {
      tables: [appendTable(appends.single), appendTable(appends.batch), writersTable(writers), replayTable(replayed)],
      notes: [
        `Server ${server.from === 'default' ? 'at the default URL' : `from ${server.from}`}: ${settings}. Schema ${bench.schema}, dropped at the end; the store’s events table had reached ${formatBytes(Number(size.rows[0]?.bytes ?? 0))}.`,
        'Appends: throughput vs bare = bare time / variant time for the same number of events. Only the append call is timed; generating and sealing the next events is not. Node CPU is this process’s CPU time (every thread) during the timed calls: pg’s encoding of the parameters, the store’s own work, and for SessionLog the sealing; backend CPU is the CPU time of the variant’s own server backends over the same calls (from /proc; n/a when the server is not on this machine), which leaves out the WAL writer and the wait for the WAL flush (fsync). Every variant has its own pg Pool with the store’s settings (4 connections, the same client config) and its own session; the variants take turns one operation at a time, after one untimed operation each (connect, prepare).',
        'The bare loop uses named (prepared) statements, as the store does, and JSON.stringify of each event inside the timed part; the store writes the canonical body remembered when the event was sealed. A single event is one autocommit INSERT (one transaction, one WAL flush) in both. A bare batch is one multi-row INSERT … VALUES (5,000 parameters); the store sends one INSERT … SELECT FROM unnest(type and hash arrays, the bodies as one text split at line breaks) WITH ORDINALITY, the seqs counted from the first. SessionLog.append of a batch of drafts seals it in parts of 250 and streams them through appendAll (BEGIN, a head check, one such INSERT per part, COMMIT): the server writes one part while the next is sealed.',
        'The store’s events table differs from the plain one by a CHECK on session_id (a regular expression and a length, schema version 5), a partial index (seq = 0), a statement trigger that checks the inserted seqs dense once per statement (two index lookups per session it touches), and a statement trigger that takes a shared advisory lock and probes the followers table (LISTEN/NOTIFY for show --follow). The diagnostic rows change the bare loop one thing at a time: the store’s table (its triggers run), the store’s unnest statement form, and both (the store’s own SQL, sent by bare pg).',
        ...writersNotes(writers),
        ...replayNotes(replayed),
      ],
      figures: {
        server: { from: server.from, ...bench.settings },
        schema: bench.schema,
        appendPlan: { ...appendPlan },
        single: appendFigures(appends.single),
        batch: appendFigures(appends.batch),
        writers: writersFigures(writers),
        replay: replayFigures(replayed),
      },
    };
  } finally {
    await bench.drop();
  }
}

export const benchmark: Benchmark = {
  name: 'postgres',
  description: 'PostgreSQL store: appends vs a bare pg loop, 16 writers vs 1, replay and show --surface vs SQLite',
  run,
};

// Run alone: `npx tsx bench/postgres.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
