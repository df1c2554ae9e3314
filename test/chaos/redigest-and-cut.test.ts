// Two attacks on the record that the hash chain alone used to let through (issue 9, items 1 and
// 2), tried on every run with a seed. A tampered-and-redigested log: one stored event's text is
// changed behind the store's back and the digest of a later model call (or a summarizer call)
// recomputed over the changed log, so that the digest still matches; replay must refuse it and
// name the changed seq, in the library and on the CLI. A cut export: a version-2 export cut at a
// random line boundary or a random byte; import must refuse it and store nothing, and
// verify --file must fail it. SQLite always; PostgreSQL when SHADOWLOG_TEST_POSTGRES_URL is set.
// SHADOWLOG_REDIGEST_SEED replays a run; SHADOWLOG_REDIGEST_CASES and SHADOWLOG_CUT_CASES size it.

import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import { COMPACTION_SUMMARY } from '../../src/compaction/event-types.js';
import { replaySummary } from '../../src/compaction/replay-summary.js';
import { CorruptLogError, HashChainError } from '../../src/log/errors.js';
import type { LogEvent, ModelRequestData } from '../../src/log/event.js';
import { requestSurfacesOf } from '../../src/log/request-surface.js';
import { replay } from '../../src/spine/replay.js';
import { exportSession, importSession, verifyJsonlFile } from '../../src/store/jsonl.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { createCliWorkspace } from '../support/cli.js';
import { findPostgres, serverOf } from '../support/postgres.js';
import { seededRandom } from '../support/random-log.js';
import { recordFigures } from './support/figures.js';
import { recordSession, redigestRequest, redigestSummary, withChangedText, withDigest } from './support/recorded-session.js';
import { createPostgresTamperBackend, createSqliteTamperBackend, type TamperBackend } from './support/tamper-backends.js';

const SEED = Number(process.env.SHADOWLOG_REDIGEST_SEED ?? 9_009);
const REDIGESTS = Number(process.env.SHADOWLOG_REDIGEST_CASES ?? 60);
const CUTS = Number(process.env.SHADOWLOG_CUT_CASES ?? 200);
const CLI_EVERY = 10;
const SESSION = 'redigested';

const pg = await findPostgres({ announce: false });
const figures: Record<string, Record<string, number>> = {};

const hasText = (event: LogEvent) =>
  Array.isArray((event.data as { content?: unknown }).content) &&
  (event.data as { content: Array<{ type: string }> }).content.some((block) => block.type === 'text');

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** The CLI's replay of `args`: exit 1 and one typed CORRUPT_LOG line naming the seq. */
async function cliRefuses(backend: TamperBackend, args: string[], seq: number, where: string): Promise<void> {
  const workspace = createCliWorkspace();
  try {
    const result = await workspace.run(['--store', backend.storeSpec, 'replay', SESSION, ...args]);
    expect(result.code, `${where}: ${result.stderr}`).toBe(1);
    expect(result.stdout, where).toBe('');
    expect(result.stderr, where).toMatch(new RegExp(`^shadowlog: CORRUPT_LOG: [^\\n]*breaks at seq ${seq} [^\\n]*\\n$`));
  } finally {
    workspace.cleanup();
  }
}

function runRedigestSuite(name: string, open: () => Promise<TamperBackend>, options: { skip?: boolean } = {}) {
  describe.skipIf(options.skip === true)(`a tampered-and-redigested log on ${name}`, () => {
    it('replay refuses every one, naming the changed seq', async () => {
      const counts = { rounds: 0, turnCalls: 0, summarizerCalls: 0, digestStillMatched: 0, named: 0, cliChecks: 0 };
      figures[`redigest ${name}`] = counts;
      const backend = await open();
      try {
        const events = await recordSession(backend.store, SESSION);
        const options = { resolveRenderer: rendererFor, registry: createCliRegistry() };
        const requests = events.filter((event) => event.type === 'model/request' && event.seq > 3);
        const summaries = events.filter((event) => event.type === COMPACTION_SUMMARY && event.data.requestDigest !== null);
        expect(summaries.length).toBeGreaterThan(0);
        const random = seededRandom(SEED);
        for (let round = 0; round < REDIGESTS; round++) {
          const summaryRound = round % 4 === 3;
          const call = summaryRound
            ? (summaries[random.nextInt(0, summaries.length - 1)] as LogEvent)
            : (requests[random.nextInt(0, requests.length - 1)] as LogEvent);
          // Any earlier event with words in it; half the time one the call was rendered from.
          const shown = summaryRound ? (call.data.shadowedSeqs as number[]) : (requestSurfacesOf(events).get(call.seq) ?? []);
          const pool = (random.nextInt(0, 1) === 0 ? shown.map((seq) => events[seq] as LogEvent) : events.slice(0, call.seq)).filter(
            hasText,
          );
          const target = pool[random.nextInt(0, pool.length - 1)] as LogEvent;
          const changedBody = withChangedText(target, `tampered in round ${round}`);
          const changed = events.map((event) => (event.seq === target.seq ? (JSON.parse(changedBody) as LogEvent) : event));
          const digest = summaryRound ? redigestSummary(changed, call.seq) : redigestRequest(changed, call.seq);
          const originals = [(await backend.row(SESSION, target.seq)).body, (await backend.row(SESSION, call.seq)).body];
          const where = `seed ${SEED}, round ${round}: event ${target.seq} changed, ${call.type} ${call.seq} redigested`;
          await backend.writeBody(SESSION, target.seq, Buffer.from(changedBody, 'utf8'));
          await backend.writeBody(SESSION, call.seq, Buffer.from(withDigest(call, digest), 'utf8'));
          try {
            const data = call.data as unknown as ModelRequestData;
            const id = String(call.data.compactionId);
            const error = await caught(
              summaryRound
                ? replaySummary(backend.store, SESSION, id, rendererFor, { registry: createCliRegistry() })
                : replay(backend.store, SESSION, { turn: data.turn, step: data.step }, options),
            );
            expect(error, where).toBeInstanceOf(HashChainError);
            expect((error as HashChainError).seq, where).toBe(target.seq);
            if ((error as Error).message.includes('the rebuilt request does hash to the digest recorded')) counts.digestStillMatched++;
            if (round % CLI_EVERY === 0) {
              await cliRefuses(
                backend,
                summaryRound ? ['--compaction', id] : ['--turn', String(data.turn), '--step', String(data.step)],
                target.seq,
                where,
              );
              counts.cliChecks++;
            }
            counts.named++;
            if (summaryRound) counts.summarizerCalls++;
            else counts.turnCalls++;
          } finally {
            await backend.writeBody(SESSION, target.seq, Buffer.from(originals[0] as string, 'utf8'));
            await backend.writeBody(SESSION, call.seq, Buffer.from(originals[1] as string, 'utf8'));
          }
          counts.rounds++;
        }
        // The recomputed digest matched the rebuilt request in every round: a digest check alone was fooled each time.
        expect(counts.digestStillMatched).toBe(counts.rounds);
        const last = requests.at(-1)?.data as unknown as ModelRequestData;
        expect(await replay(backend.store, SESSION, { turn: last.turn, step: last.step }, options)).toMatchObject({ verified: true });
        console.log(`redigest on ${name}: ${JSON.stringify(counts)}`);
      } finally {
        await backend.close();
      }
    }, 120_000);
  });
}

describe('a cut export', () => {
  it('is refused by import at every kind of cut, and failed by verify --file', async () => {
    const counts = { cuts: 0, atLineBoundary: 0, midLine: 0, inTrailer: 0, refused: 0, verifyFailed: 0 };
    figures['cut export'] = counts;
    const source = await createSqliteTamperBackend();
    let text: string;
    try {
      await recordSession(source.store, SESSION, 8);
      const output = new PassThrough();
      const chunks: Buffer[] = [];
      output.on('data', (chunk: Buffer) => chunks.push(chunk));
      await exportSession(source.store, SESSION, output);
      text = Buffer.concat(chunks).toString('utf8');
    } finally {
      await source.close();
    }
    const bytes = Buffer.from(text, 'utf8');
    const boundaries = [...bytes.entries()].filter(([, byte]) => byte === 10).map(([index]) => index + 1);
    const trailerStart = boundaries.at(-2) as number;
    const random = seededRandom(SEED + 1);
    for (let round = 0; round < CUTS; round++) {
      // A cut after a whole line (the header kept, the trailer lost), or at any byte of the file past the header.
      // Every tenth cut lands inside the trailer line itself.
      const atBoundary = round % 10 !== 9 && random.nextInt(0, 1) === 0;
      const cut = atBoundary
        ? (boundaries[random.nextInt(0, boundaries.length - 2)] as number)
        : random.nextInt(round % 10 === 9 ? trailerStart + 1 : (boundaries[0] as number) + 1, bytes.length - 2);
      const piece = bytes.subarray(0, cut);
      const where = `seed ${SEED + 1}, round ${round}: cut at byte ${cut} of ${bytes.length}`;
      const store = new MemoryLogStore();
      const error = await caught(importSession(store, Readable.from([piece]), { registry: createCliRegistry() }));
      expect(error, where).toBeInstanceOf(CorruptLogError);
      // Past the header, every cut is one that drops the trailer (or is a blank line after events: the same).
      if (cut > (boundaries[1] as number)) expect((error as Error).message, where).toMatch(/the export ends before its trailer/);
      expect(await store.listSessions(), where).toEqual([]);
      const verified = await verifyJsonlFile(Readable.from([piece]), { registry: createCliRegistry() });
      expect(verified.report.ok, where).toBe(false);
      counts.cuts++;
      counts.refused++;
      counts.verifyFailed++;
      if (atBoundary || bytes[cut - 1] === 10) counts.atLineBoundary++;
      else if (cut > trailerStart) counts.inTrailer++;
      else counts.midLine++;
    }
    // The whole file is still accepted: the refusals are about the cuts.
    expect((await importSession(new MemoryLogStore(), Readable.from([bytes]), { registry: createCliRegistry() })).trailer).toBe('ok');
    expect(counts.atLineBoundary).toBeGreaterThan(0);
    expect(counts.midLine).toBeGreaterThan(0);
    expect(counts.inTrailer).toBeGreaterThan(0);
    console.log(`cut export: ${JSON.stringify(counts)}`);
  }, 120_000);
});

afterAll(async () => {
  recordFigures('redigest-and-cut', { seed: SEED, suites: figures });
  await pg?.close();
});

runRedigestSuite('SQLite', createSqliteTamperBackend);
// Without SHADOWLOG_TEST_POSTGRES_URL the PostgreSQL suite is reported as skipped.
runRedigestSuite('PostgreSQL', () => createPostgresTamperBackend(serverOf(pg)), { skip: pg === undefined });
