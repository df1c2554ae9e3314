// Part 3 of the PostgreSQL benchmark: `replay` of a real model call late in a 100,000-event
// session, and `show --surface` of it, on PostgreSQL as a ratio to the same on SQLite. The
// session is built once on SQLite by the replay benchmark's builder (real spine turns, synthetic
// turns and compactions, real turns again) and copied into PostgreSQL with appendAll, so both
// stores hold the same events, byte for byte, hashes included.

import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { showCommand } from '../src/cli/commands/show.js';
import { createContext } from '../src/cli/context.js';
import { ScriptedModel } from '../src/providers/scripted-model.js';
import { replay } from '../src/spine/replay.js';
import type { LogStore } from '../src/store/log-store.js';
import { openPostgresStore } from '../src/store/postgres/index.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { type Built, build, type RealCall, type Sizes } from './replay.bench.js';
import {
  type BenchContext,
  clock,
  createTempDirectory,
  elapsedMs,
  type Figures,
  formatCount,
  formatMs,
  formatRate,
  formatRatio,
  median,
  type Table,
} from './support.js';

const SESSION_ID = 'bench-replay';

/** The replay benchmark's sizes, so that the session is the one it replays. */
export const FULL_REPLAY: Sizes = { realFirst: 3_000, syntheticUntil: 94_000, total: 100_000, repeats: 5 };
export const QUICK_REPLAY: Sizes = { realFirst: 1_000, syntheticUntil: 9_400, total: 10_000, repeats: 2 };

interface Server {
  readonly url: string;
  readonly schema: string;
}

interface Operation {
  readonly label: string;
  readonly diagnostic: boolean;
  /** Runs once on `store`; returns something to compare between the stores. */
  readonly run: (store: LogStore) => Promise<string>;
  readonly samples: { sqlite: number[]; postgres: number[] };
}

/** `shadowlog show <id> --surface` in-process: the CLI's own command, its text counted and dropped. */
async function showSurface(store: LogStore): Promise<string> {
  let bytes = 0;
  const stdout = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      bytes += chunk.length;
      callback();
    },
  });
  const io = { stdout, stderr: stdout, stdin: Readable.from([]), cwd: process.cwd() };
  // The context's close() would close the store; it is not called.
  const context = createContext(io, false, async () => store);
  const code = await showCommand(context, SESSION_ID, { view: 'surface' });
  if (code !== 0) throw new Error(`postgres benchmark: show --surface exited ${code}`);
  return `${bytes} bytes`;
}

async function readAll(store: LogStore): Promise<string> {
  let events = 0;
  let lastHash = '';
  for await (const page of store.read(SESSION_ID)) {
    events += page.length;
    lastHash = page.at(-1)?.hash ?? lastHash;
  }
  return `${events} events, last hash ${lastHash}`;
}

function operations(built: Built, late: RealCall): Operation[] {
  const resolveRenderer = (provider: string, modelId: string) => {
    if (provider !== 'scripted') throw new Error(`postgres benchmark: unexpected provider ${provider}`);
    return new ScriptedModel({ modelId, replies: [] });
  };
  return [
    {
      label: `replay of the real call at ~95% (#${formatCount(late.seq)}, turn ${late.turn} step ${late.step})`,
      diagnostic: false,
      run: async (store) => {
        const result = await replay(store, SESSION_ID, { turn: late.turn, step: late.step }, { resolveRenderer, registry: built.registry });
        if (result.seq !== late.seq || !result.verified)
          throw new Error(`postgres benchmark: replayed #${result.seq}, expected #${late.seq}`);
        return result.requestDigest ?? '';
      },
      samples: { sqlite: [], postgres: [] },
    },
    { label: 'show --surface (the CLI command in-process)', diagnostic: false, run: showSurface, samples: { sqlite: [], postgres: [] } },
    {
      label: '  diagnostic: store.read of every event, nothing else',
      diagnostic: true,
      run: readAll,
      samples: { sqlite: [], postgres: [] },
    },
  ];
}

export interface ReplayComparison {
  readonly sizes: Sizes;
  readonly events: number;
  readonly buildMs: number;
  readonly copyMs: number;
  readonly phases: Built['phases'];
  readonly operations: readonly {
    readonly label: string;
    readonly diagnostic: boolean;
    readonly sqliteMs: number[];
    readonly postgresMs: number[];
  }[];
}

export async function measureReplay(server: Server, sizes: Sizes, context: BenchContext): Promise<ReplayComparison> {
  const directory = createTempDirectory('postgres-replay');
  try {
    const sqlite = await openSqliteStore(join(directory.path, 'log.db'));
    try {
      const built = await build(sqlite, sizes, {
        ...context,
        progress: (message) => context.progress(`postgres: ${message.replace(/^replay: /, '')}`),
      });
      const late = built.realCalls.find((call) => call.seq >= 0.95 * built.events);
      if (late === undefined) throw new Error('postgres benchmark: no real call at or after 95% of the session');
      const postgres = await openPostgresStore(server.url, { schema: server.schema });
      try {
        context.progress(`postgres: copying the ${formatCount(built.events)}-event session from SQLite (appendAll)`);
        const copyStart = clock();
        const copied = await postgres.appendAll(SESSION_ID, sqlite.read(SESSION_ID), { expectedSeq: 0 });
        const copyMs = elapsedMs(copyStart);
        const [sqliteHead, postgresHead] = [await sqlite.head(SESSION_ID), await postgres.head(SESSION_ID)];
        if (copied !== built.events || sqliteHead?.lastHash !== postgresHead?.lastHash) {
          throw new Error(`postgres benchmark: the copy holds ${copied} events ending ${postgresHead?.lastHash}, expected ${built.events}`);
        }
        const ops = operations(built, late);
        context.progress(`postgres: timing replay and show --surface on both stores, ${sizes.repeats} times each, interleaved`);
        const stores = [
          { name: 'sqlite' as const, store: sqlite as LogStore },
          { name: 'postgres' as const, store: postgres as LogStore },
        ];
        // Round 0 warms up (caches, prepared statements) and is not counted.
        for (let repeat = 0; repeat <= sizes.repeats; repeat++) {
          for (const operation of ops) {
            const order = repeat % 2 === 0 ? stores : [...stores].reverse();
            const answers: string[] = [];
            for (const { name, store } of order) {
              const start = clock();
              answers.push(await operation.run(store));
              const ms = elapsedMs(start);
              if (repeat > 0) operation.samples[name].push(ms);
            }
            if (answers[0] !== answers[1]) {
              throw new Error(`postgres benchmark: ${operation.label.trim()} differs between the stores: ${answers.join(' vs ')}`);
            }
          }
        }
        return {
          sizes,
          events: built.events,
          buildMs: built.buildMs,
          copyMs,
          phases: built.phases,
          operations: ops.map((operation) => ({
            label: operation.label,
            diagnostic: operation.diagnostic,
            sqliteMs: operation.samples.sqlite,
            postgresMs: operation.samples.postgres,
          })),
        };
      } finally {
        await postgres.close();
      }
    } finally {
      await sqlite.close();
    }
  } finally {
    directory.cleanup();
  }
}

export function replayTable(result: ReplayComparison): Table {
  return {
    title: `Reading a ${formatCount(result.events)}-event session: PostgreSQL vs SQLite (median of ${result.sizes.repeats}, interleaved)`,
    columns: ['operation', 'SQLite', 'PostgreSQL', 'PostgreSQL / SQLite'],
    rows: result.operations.map((operation) => {
      const sqlite = median(operation.sqliteMs);
      const postgres = median(operation.postgresMs);
      return [operation.label, formatMs(sqlite), formatMs(postgres), formatRatio(postgres / sqlite)];
    }),
  };
}

export function replayFigures(result: ReplayComparison): Figures {
  return {
    sizes: { ...result.sizes },
    events: result.events,
    buildMs: result.buildMs,
    copyMs: result.copyMs,
    phases: { ...result.phases },
    operations: result.operations.map((operation) => ({
      label: operation.label.trim(),
      diagnostic: operation.diagnostic,
      sqliteMedianMs: median(operation.sqliteMs),
      postgresMedianMs: median(operation.postgresMs),
      ratio: median(operation.postgresMs) / median(operation.sqliteMs),
      sqliteSamplesMs: operation.sqliteMs,
      postgresSamplesMs: operation.postgresMs,
    })),
  };
}

export function replayNotes(result: ReplayComparison): string[] {
  return [
    `The session is the replay benchmark’s: real spine turns to #${formatCount(result.phases.realFirstEnd)}, synthetic turns and compactions to #${formatCount(result.phases.syntheticEnd)}, real turns in a new lifecycle to #${formatCount(result.events)}; built on SQLite in ${formatMs(result.buildMs)}, then copied into PostgreSQL with one appendAll (one transaction, read page by page from SQLite) in ${formatMs(result.copyMs)} (${formatRate((result.events * 1000) / result.copyMs)}). The heads’ hashes are checked equal.`,
    'Replay reads the log up to the call, folding as it goes, then renders and hashes one request (its digest is checked); show --surface is the CLI’s showCommand run in-process on the open store (SessionLog.open: read and fold everything, then render every surface node as text, which is counted and dropped). Each answer is checked equal between the stores. Both stores read in pages of 1,000 events; PostgreSQL parses each stored body with JSON.parse, as SQLite does.',
  ];
}
