// The PostgreSQL part of the search benchmark (search.bench.ts): the same synthetic sessions in a
// store of the run's own schema, searched through the pg_trgm index, against ILIKE over the
// events' bodies; and the append cost of the index: 1,000-event batches inserted by schema
// version 6's statement (the log alone) into a schema migrated to version 6, against
// store.append (the log and its index in one statement) at version 7. Skipped when no server
// answers (bench/postgres-server.ts).

import type { LogEvent } from '../src/log/event.js';
import { MIGRATIONS, migrate, openPostgresStore } from '../src/store/postgres/index.js';
import { insertValues } from '../src/store/postgres/statements.js';
import { benchServerUrl, createBenchSchema, probeServer } from './postgres-server.js';
import { clock, elapsedMs, type Figures, formatCount, formatMs, formatRate, formatRatio, median, type Table } from './support.js';

export interface PostgresSearchPlan {
  readonly events: number;
  readonly sessionEvents: number;
  readonly appendEvents: number;
  readonly runs: number;
  readonly batches: (index: number, count: number) => Iterable<LogEvent[]>;
  readonly needle: () => LogEvent[];
  /** How many sessions get a planted needle, spread evenly. */
  readonly needleSessions: number;
  readonly queries: readonly { readonly label: string; readonly text: string }[];
  readonly progress: (message: string) => void;
}

async function* asAsync<T>(items: Iterable<T>): AsyncIterable<T> {
  yield* items;
}

async function timeMedian<T>(runs: number, work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  let result = await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = clock();
    result = await work();
    times.push(elapsedMs(start));
  }
  return { ms: median(times), result };
}

export async function postgresSearch(plan: PostgresSearchPlan): Promise<{ tables: Table[]; notes: string[]; figures: Figures } | string> {
  const server = benchServerUrl();
  const skipped = await probeServer(server);
  if (skipped !== undefined) return skipped;
  const indexed = await createBenchSchema(server.url);
  const bare = await createBenchSchema(server.url);
  try {
    const store = await openPostgresStore(server.url, { schema: indexed.schema });
    const sessions = Math.ceil(plan.events / plan.sessionEvents);
    plan.progress(`postgres: building ${formatCount(plan.events)} events in ${sessions} sessions`);
    const needleEvery = Math.max(1, Math.floor(sessions / plan.needleSessions));
    const buildStart = clock();
    let built = 0;
    for (let index = 0; index < sessions; index++) {
      const count = Math.min(plan.sessionEvents, plan.events - built);
      built += await store.appendAll(`session-${index}`, asAsync(plan.batches(index, count)), { expectedSeq: 0 });
      if (index % needleEvery === 0 && index / needleEvery < plan.needleSessions)
        await store.append(`needle-${index}`, plan.needle(), { expectedSeq: 0 });
    }
    const buildMs = elapsedMs(buildStart);
    const rows: string[][] = [];
    const figures: Figures = { events: plan.events, buildMs };
    for (const query of plan.queries) {
      const searched = await timeMedian(plan.runs, () => store.search({ text: query.text }));
      const baseline = await timeMedian(2, () =>
        indexed.admin.query(`SELECT session_id, seq FROM "${indexed.schema}".events WHERE body ILIKE $1 LIMIT 50`, [`%${query.text}%`]),
      );
      rows.push([
        query.label,
        String(searched.result.hits.length) + (searched.result.truncated ? '+' : ''),
        formatMs(searched.ms),
        formatMs(baseline.ms),
        formatRatio(searched.ms / baseline.ms),
      ]);
      figures[query.label] = { searchMs: searched.ms, ilikeScanMs: baseline.ms, hits: searched.result.hits.length };
    }
    const size = await indexed.admin.query<{ events: string; search: string }>(
      `SELECT pg_total_relation_size('"${indexed.schema}".events') AS events,
              pg_total_relation_size('"${indexed.schema}".search_rows') + pg_total_relation_size('"${indexed.schema}".search_shadowed') AS search`,
    );
    const eventBytes = Number(size.rows[0]?.events);
    const indexBytes = Number(size.rows[0]?.search);
    figures.eventBytes = eventBytes;
    figures.indexBytes = indexBytes;

    plan.progress(`postgres: append cost, ${formatCount(plan.appendEvents)} events`);
    const client = await bare.admin.connect();
    let bareMs = 0;
    try {
      await migrate(client, bare.schema, 'bench', MIGRATIONS.slice(0, 6));
      const sql = `INSERT INTO "${bare.schema}".events (session_id, seq, type, hash, body)
        SELECT $1, $2::bigint + batch.n - 1, batch.type, batch.hash, batch.body
        FROM unnest($3::text[], $4::text[], string_to_array($5, E'\\n')) WITH ORDINALITY AS batch (type, hash, body, n)`;
      const start = clock();
      for (const batch of plan.batches(50_000, plan.appendEvents)) await client.query(sql, insertValues('append', batch));
      bareMs = elapsedMs(start);
    } finally {
      client.release();
    }
    const start = clock();
    for (const batch of plan.batches(50_000, plan.appendEvents)) {
      await store.append('append', batch, { expectedSeq: (batch[0] as LogEvent).seq });
    }
    const storeMs = elapsedMs(start);
    figures.append = { bareMs, storeMs, events: plan.appendEvents };
    await store.close();
    return {
      tables: [
        {
          title: `PostgreSQL search on ${formatCount(plan.events)} events in ${sessions} sessions (pg_trgm GIN); built in ${formatMs(buildMs)} (${formatRate((plan.events / buildMs) * 1000)} with the index); search_rows and search_shadowed ${formatRatio(indexBytes / eventBytes)} the bytes of events`,
          columns: ['query', 'hits', 'search', 'ILIKE scan of bodies', 'search / baseline'],
          rows,
        },
        {
          title: `PostgreSQL append cost of the index: ${formatCount(plan.appendEvents)} events in 1,000-event batches`,
          columns: ['variant', 'time', 'rate', 'vs log alone'],
          rows: [
            ['log alone (schema 6 statement)', formatMs(bareMs), formatRate((plan.appendEvents / bareMs) * 1000), '1.00×'],
            [
              'store.append (schema 7: log and index, one statement)',
              formatMs(storeMs),
              formatRate((plan.appendEvents / storeMs) * 1000),
              formatRatio(storeMs / bareMs),
            ],
          ],
        },
      ],
      notes: [
        `PostgreSQL: search medians of ${plan.runs} runs after a warm-up; the ILIKE scan is SELECT … WHERE body ILIKE '%text%' LIMIT 50 (median of 2)`,
      ],
      figures,
    };
  } finally {
    await indexed.drop();
    await bare.drop();
  }
}
