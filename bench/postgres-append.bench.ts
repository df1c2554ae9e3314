// Benchmark: appends to the PostgreSQL store alone (the first part of `postgres`): single events
// and 1,000-event batches, through the store and through SessionLog (validation and sealing
// included), against a bare `pg` insert loop doing the same inserts in the same run. The server
// is found as `postgres` finds it; the schema is the run's own, dropped at the end.
//
//   npm run bench -- postgres-append [--quick]

import { appendFigures, appendTable, FULL_APPEND, measureAppends, QUICK_APPEND } from './postgres-append.js';
import { benchServerUrl, createBenchSchema, probeServer } from './postgres-server.js';
import { type BenchContext, type Benchmark, type BenchReport, runIfMain } from './support.js';

async function run(context: BenchContext): Promise<BenchReport> {
  const server = benchServerUrl();
  const skipped = await probeServer(server);
  if (skipped !== undefined) return { tables: [], notes: [skipped], figures: { skipped: true, reason: skipped } };
  const bench = await createBenchSchema(server.url);
  try {
    context.progress(`postgres-append: schema ${bench.schema}`);
    const appends = await measureAppends(bench, context.quick ? QUICK_APPEND : FULL_APPEND, context.progress);
    return {
      tables: [appendTable(appends.single), appendTable(appends.batch)],
      notes: [
        'Throughput vs bare = bare time / variant time for the same number of events; only the append call is timed. The notes of `npm run bench -- postgres` describe the variants.',
      ],
      figures: { single: appendFigures(appends.single), batch: appendFigures(appends.batch) },
    };
  } finally {
    await bench.drop();
  }
}

export const benchmark: Benchmark = {
  name: 'postgres-append',
  description: 'PostgreSQL appends (single and 1,000-event batches) vs a bare pg insert loop',
  run,
};

await runIfMain(import.meta.url, benchmark);
