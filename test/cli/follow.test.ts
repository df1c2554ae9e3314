// `shadowlog show <id> --follow`: the record as it grows, printed while another store handle
// appends, as text (the rendering of `show --record`) and as JSONL; stopped by --until-seq,
// --max-events or the abort signal (Ctrl-C). On SQLite, and on PostgreSQL when
// SHADOWLOG_TEST_POSTGRES_URL is set.

import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { LogStore } from '../../src/store/log-store.js';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { followLog } from '../contract/follow-contract.js';
import { type CliResult, createCliWorkspace } from '../support/cli.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });
const events = followLog(16);

/** Appends events[from, to) in small batches, a little apart, while a follower runs. */
async function appendSlowly(store: LogStore, from: number, to: number): Promise<void> {
  for (let seq = from; seq < to; seq += 3) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    await store.append('s1', events.slice(seq, Math.min(seq + 3, to)), { expectedSeq: seq });
  }
}

/** Fails the test instead of hanging when a follow does not stop. */
function within<T>(promise: Promise<T>, milliseconds = 10_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit within ${milliseconds} ms`)), milliseconds)),
  ]);
}

describe('shadowlog show --follow on SQLite', () => {
  const workspace = createCliWorkspace();
  const store = 'sqlite:follow.db';
  let writer: LogStore;
  afterAll(async () => {
    await writer.close();
    workspace.cleanup();
  });

  it('prints the record, then each event as another handle appends it, as show --record renders it, until --until-seq', async () => {
    writer = await openSqliteStore(join(workspace.cwd, 'follow.db'));
    await writer.append('s1', events.slice(0, 4), { expectedSeq: 0 });
    const following = workspace.run(['--store', store, 'show', 's1', '--follow', '--until-seq', '9', '--poll-ms', '20']);
    await appendSlowly(writer, 4, 10);
    const result = await within(following);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [header, ...body] = result.stdout.split('\n');
    expect(header).toBe('following s1 from event #0: each event as it lands (Ctrl-C stops)');
    const record = (await workspace.run(['--store', store, 'show', 's1', '--record'])).stdout.split('\n').slice(1);
    expect(body).toEqual(record);
    expect(body.filter((line) => line.startsWith('#')).at(-1)).toMatch(/^#9 /);
  });

  it('prints one canonical JSON event per line with --json, from --from, for --max-events events', async () => {
    const following = workspace.run([
      '--store',
      store,
      'show',
      's1',
      '--follow',
      '--json',
      '--from',
      '8',
      '--max-events',
      '5',
      '--poll-ms',
      '20',
    ]);
    await appendSlowly(writer, 10, 13);
    const result = await within(following);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toEqual(events.slice(8, 13).map((event) => canonicalJson(event)));
  });

  it('runs until stopped (Ctrl-C) when nothing else stops it, and exits 0', async () => {
    const stop = new AbortController();
    const following = workspace.run(['--store', store, 'show', 's1', '--follow', '--json', '--from', '13', '--poll-ms', '20'], '', {
      signal: stop.signal,
    });
    await appendSlowly(writer, 13, 16);
    await new Promise((resolve) => setTimeout(resolve, 200));
    stop.abort();
    const result: CliResult = await within(following);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toEqual(events.slice(13, 16).map((event) => canonicalJson(event)));
  });

  it('refuses options that do not go together, and an unknown session', async () => {
    for (const args of [
      ['show', 's1', '--follow', '--surface'],
      ['show', 's1', '--follow', '--at', '3'],
      ['show', 's1', '--max-events', '3'],
      ['show', 's1', '--record', '--until-seq', '3'],
      ['show', 's1', '--follow', '--from', '5', '--until-seq', '2'],
      ['show', 's1', '--follow', '--max-events', '0'],
    ]) {
      const result = await workspace.run(['--store', store, ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^shadowlog: USAGE: .*\n$/);
    }
    const missing = await workspace.run(['--store', store, 'show', 'nobody', '--follow']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^shadowlog: SESSION_NOT_FOUND: /);
  });

  it('says in its help that --follow --json prints JSONL', async () => {
    const help = await workspace.run(['show', '--help']);
    expect(help.stdout).toMatch(/--follow .*JSONL/s);
  });
});

describe.skipIf(server === undefined)('shadowlog show --follow on PostgreSQL', () => {
  const pg = server as NonNullable<typeof server>;
  const workspace = createCliWorkspace();
  afterAll(async () => {
    workspace.cleanup();
    await pg.close();
  });

  it('prints each event as another connection appends it, woken by NOTIFY', async () => {
    const schema = pg.freshSchema();
    const url = new URL(pg.url);
    url.searchParams.set('schema', schema);
    const writer = await openPostgresStore(url.toString());
    try {
      await writer.append('s1', events.slice(0, 4), { expectedSeq: 0 });
      // Polling once an hour: only NOTIFY can bring the events in time.
      const following = workspace.run([
        '--store',
        url.toString(),
        'show',
        's1',
        '--follow',
        '--json',
        '--until-seq',
        '12',
        '--poll-ms',
        '3600000',
      ]);
      await appendSlowly(writer, 4, 13);
      const result = await within(following);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout.trimEnd().split('\n')).toEqual(events.slice(0, 13).map((event) => canonicalJson(event)));
    } finally {
      await writer.close();
    }
  });
});
