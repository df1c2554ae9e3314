// Tamper evidence (issue 6, item 5): with the store's append-only guard deliberately bypassed,
// one changed byte of one stored event must make verify name exactly that seq, a deleted event
// must be named as a gap, and a body that stops being JSON must get a typed error naming the
// seq. On SQLite (a real file) always; on PostgreSQL when SHADOWLOG_TEST_POSTGRES_URL is set.

import { afterAll, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { CorruptLogError } from '../../src/log/errors.js';
import type { EventDraft } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { SessionLog } from '../../src/store/session-log.js';
import { createCliWorkspace } from '../support/cli.js';
import { fixedNow } from '../support/events.js';
import { findPostgres, serverOf } from '../support/postgres.js';
import { buildRandomLog, seededRandom } from '../support/random-log.js';
import { recordFigures } from './support/figures.js';
import { createPostgresTamperBackend, createSqliteTamperBackend, type TamperBackend } from './support/tamper-backends.js';

const SEED = Number(process.env.SHADOWLOG_TAMPER_SEED ?? 6_006);
const TAMPERS = Number(process.env.SHADOWLOG_TAMPER_CASES ?? 120);
const CLI_EVERY = 15;
const SESSION = 'tampered';

const pg = await findPostgres({ announce: false });
const figures: Record<string, { changedBytes: number; named: number; notJson: number; deletionsTried: number; cliChecks: number }> = {};

type Outcome = { readonly firstBadSeq: number | null; readonly code: string };

/** verify over the store: the report's first bad seq, or the seq a typed read error names. */
async function verifyStore(backend: TamperBackend): Promise<Outcome> {
  try {
    const report = await verifyLog(backend.store.read(SESSION), { registry: createCliRegistry() });
    return { firstBadSeq: report.firstBadSeq, code: report.problems[0]?.code ?? 'ok' };
  } catch (error) {
    if (!(error instanceof CorruptLogError)) throw error;
    // Without a seq field, the seq its message names.
    const named = /(?:event|seq) (\d+)/.exec(error.message);
    return { firstBadSeq: error.seq ?? (named === null ? null : Number(named[1])), code: error.code };
  }
}

/** The CLI's `verify <id> --json`: exit 1, and either a report or one typed error line. */
async function verifyCli(backend: TamperBackend): Promise<Outcome> {
  const workspace = createCliWorkspace();
  try {
    const result = await workspace.run(['--store', backend.storeSpec, '--json', 'verify', SESSION]);
    expect(result.code, result.stderr).toBe(1);
    if (result.stdout !== '') {
      const report = JSON.parse(result.stdout) as { ok: boolean; firstBadSeq: number | null; problems: Array<{ code: string }> };
      expect(report.ok).toBe(false);
      return { firstBadSeq: report.firstBadSeq, code: report.problems[0]?.code ?? 'ok' };
    }
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const error = (JSON.parse(lines[0] as string) as { error: { code: string; message: string } }).error;
    expect(error.code).not.toBe('INTERNAL');
    const named = /(?:event|seq) (\d+)/.exec(error.message);
    return { firstBadSeq: named === null ? null : Number(named[1]), code: error.code };
  } finally {
    workspace.cleanup();
  }
}

function asCliValid(draft: EventDraft): EventDraft {
  const error = (draft.data as Record<string, unknown>).error;
  if (draft.type !== 'compaction/end' || typeof error !== 'string') return draft;
  return { ...draft, data: { ...draft.data, error: { message: error } } };
}

function runSuite(name: string, open: () => Promise<TamperBackend>, options: { utf8Only: boolean; skip?: boolean }) {
  describe.skipIf(options.skip === true)(`tamper evidence on ${name}`, () => {
    it('names the seq of one changed byte, and the seq of a body that is no longer JSON', async () => {
      const counts = { changedBytes: 0, named: 0, notJson: 0, deletionsTried: 0, cliChecks: 0 };
      figures[name] = counts;
      const backend = await open();
      try {
        const random = seededRandom(SEED);
        const generated = buildRandomLog(SEED, { targetEvents: 80 });
        const log = await SessionLog.create(backend.store, SESSION, {
          now: fixedNow,
          registry: createCliRegistry(),
          harnessVersion: 'test',
        });
        // The random log's failed compactions carry a bare error string; the CLI's registry
        // wants {message}, so write them as the compaction capability does.
        for (const batch of generated.batches.slice(1)) await log.append(batch.map(asCliValid));
        const events = log.nextSeq;
        expect(await verifyStore(backend)).toEqual({ firstBadSeq: null, code: 'ok' });

        for (let round = 0; round < TAMPERS; round++) {
          const seq = random.nextInt(0, events - 1);
          const row = await backend.row(SESSION, seq);
          const bytes = Buffer.from(row.body, 'utf8');
          const position = random.nextInt(0, bytes.length - 1);
          const original = bytes[position] as number;
          // Any other byte; on PostgreSQL (text must be UTF-8) another printable ASCII byte, at an ASCII position.
          if (options.utf8Only && original >= 0x80) continue;
          let replacement = options.utf8Only ? random.nextInt(0x20, 0x7e) : random.nextInt(0, 255);
          if (replacement === original) replacement = original === 0x7e ? 0x20 : original + 1;
          const changed = Buffer.from(bytes);
          changed[position] = replacement;
          await backend.writeBody(SESSION, seq, changed);
          counts.changedBytes++;
          let notJson = false;
          try {
            JSON.parse(changed.toString('utf8'));
          } catch {
            notJson = true;
            counts.notJson++;
          }
          const where = `seq ${seq}, byte ${position}: ${String.fromCharCode(original)} → ${String.fromCharCode(replacement)} (0x${replacement.toString(16)})`;
          const outcome = await verifyStore(backend);
          expect(outcome.firstBadSeq, where).toBe(seq);
          if (notJson) expect(outcome.code, where).toBe('CORRUPT_LOG');
          if (round % CLI_EVERY === 0) {
            expect((await verifyCli(backend)).firstBadSeq, `CLI, ${where}`).toBe(seq);
            counts.cliChecks++;
          }
          counts.named++;
          await backend.writeBody(SESSION, seq, bytes);
        }
        expect(await verifyStore(backend)).toEqual({ firstBadSeq: null, code: 'ok' });
        expect(counts.changedBytes).toBeGreaterThan(TAMPERS / 2);

        console.log(`tamper evidence on ${name}: ${JSON.stringify(counts)}`);
      } finally {
        await backend.close();
      }
    }, 120_000);

    it('names the gap where an event was deleted', async () => {
      const counts = figures[name] ?? { changedBytes: 0, named: 0, notJson: 0, deletionsTried: 0, cliChecks: 0 };
      figures[name] = counts;
      const backend = await open();
      try {
        const random = seededRandom(SEED + 1);
        const log = await SessionLog.create(backend.store, SESSION, {
          now: fixedNow,
          registry: createCliRegistry(),
          harnessVersion: 'test',
        });
        for (const batch of buildRandomLog(SEED + 1, { targetEvents: 40 }).batches.slice(1)) await log.append(batch.map(asCliValid));
        const events = log.nextSeq;
        const problems: string[] = [];
        // A deleted event (not the last: a log cut at its tail is a shorter valid log).
        for (const seq of [0, 1, random.nextInt(2, events - 3), events - 2]) {
          const row = await backend.row(SESSION, seq);
          await backend.deleteRow(SESSION, seq);
          const outcome = await verifyStore(backend);
          const cli = await verifyCli(backend);
          if (outcome.firstBadSeq !== seq || cli.firstBadSeq !== seq)
            problems.push(
              `deleted seq ${seq} of ${events}: library names ${outcome.firstBadSeq} (${outcome.code}), CLI names ${cli.firstBadSeq} (${cli.code})`,
            );
          counts.cliChecks++;
          counts.deletionsTried++;
          await backend.insertRow(row);
        }
        expect(await verifyStore(backend)).toEqual({ firstBadSeq: null, code: 'ok' });
        expect(problems).toEqual([]);
      } finally {
        await backend.close();
      }
    }, 120_000);
  });
}

afterAll(async () => {
  recordFigures('tamper', { seed: SEED, backends: figures });
  await pg?.close();
});

runSuite('SQLite', createSqliteTamperBackend, { utf8Only: false });
// Without SHADOWLOG_TEST_POSTGRES_URL the PostgreSQL suite is reported as skipped.
runSuite('PostgreSQL', () => createPostgresTamperBackend(serverOf(pg)), { utf8Only: true, skip: pg === undefined });
