// `shadowlog copy --from STORE --to STORE --all|<id>…`: sessions moved between stores with the
// exact export bytes kept (SQLite → PostgreSQL → SQLite when SHADOWLOG_TEST_POSTGRES_URL is
// set, SQLite → SQLite always), a conflicting session refused with nothing written, bad store
// URLs exit 2 and an unreachable server exits 1, each with one line; a progress bar on a
// terminal, nothing on a pipe.

import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createCliWorkspace } from '../support/cli.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });

describe('shadowlog copy', () => {
  const workspace = createCliWorkspace();
  const run = workspace.run.bind(workspace);
  const exported = new Map<string, string>();

  beforeAll(async () => {
    // Three demo sessions (compactions, prunes, tool calls) in sqlite:a.db.
    for (const id of ['demo-1', 'demo-2', 'demo-3']) {
      expect((await run(['--store', 'sqlite:a.db', 'demo', '--json', '--session', id])).code).toBe(0);
      exported.set(id, (await run(['--store', 'sqlite:a.db', 'export', id])).stdout);
    }
  });
  afterAll(() => {
    workspace.cleanup();
  });

  it('copies every session with --all, keeping the exact export bytes, and says what it did', async () => {
    const result = await run(['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:b.db', '--all']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      expect.stringMatching(/^copied demo-1: \d+ events$/),
      expect.stringMatching(/^copied demo-2: \d+ events$/),
      expect.stringMatching(/^copied demo-3: \d+ events$/),
    ]);
    expect(lines[3]).toMatch(/^copied 3 sessions \([\d,]+ events\) from sqlite:.*a\.db to sqlite:.*b\.db, every hash kept$/);
    for (const [id, bytes] of exported) expect((await run(['--store', 'sqlite:b.db', 'export', id])).stdout).toBe(bytes);
    expect((await run(['--store', 'sqlite:b.db', 'verify', '--all'])).code).toBe(0);
  });

  it('copies the sessions named, skips those already there, and prints one JSON summary with --json', async () => {
    const result = await run(['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:b.db', 'demo-2', '--json']);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({
      from: expect.stringMatching(/^sqlite:.*a\.db$/),
      to: expect.stringMatching(/^sqlite:.*b\.db$/),
      copied: 0,
      skipped: 1,
      events: 0,
      sessions: [{ sessionId: 'demo-2', status: 'skipped', events: expect.any(Number) }],
    });
    const some = JSON.parse((await run(['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:c.db', 'demo-3', 'demo-1', '--json'])).stdout);
    expect(some).toMatchObject({ copied: 2, skipped: 0, sessions: [{ sessionId: 'demo-3' }, { sessionId: 'demo-1' }] });
    const listed = JSON.parse((await run(['--store', 'sqlite:c.db', 'sessions', '--json'])).stdout) as Array<{ id: string }>;
    expect(listed.map((session) => session.id)).toEqual(['demo-1', 'demo-3']);
  });

  it('refuses a session the target holds with other events, with a typed error, writing nothing of any session', async () => {
    expect((await run(['--store', 'sqlite:d.db', 'demo', '--json', '--session', 'demo-2'])).code).toBe(0);
    const before = (await run(['--store', 'sqlite:d.db', 'export', 'demo-2'])).stdout;
    const result = await run(['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:d.db', '--all']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^shadowlog: SESSION_CONFLICT: sqlite:.*d\.db already holds a session .*: demo-2 \(\d+ events there, \d+ here\); nothing was copied\. .*\n$/,
    );
    expect(result.stderr.split('\n')).toHaveLength(2);
    const json = await run(['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:d.db', '--all', '--json']);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'SESSION_CONFLICT' } });
    const listed = JSON.parse((await run(['--store', 'sqlite:d.db', 'sessions', '--json'])).stdout) as Array<{ id: string }>;
    expect(listed.map((session) => session.id)).toEqual(['demo-2']);
    expect((await run(['--store', 'sqlite:d.db', 'export', 'demo-2'])).stdout).toBe(before);
  });

  it('answers bad usage and bad store URLs with exit 2, an unreachable server with exit 1, each in one line', async () => {
    const usage: string[][] = [
      ['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:b.db'],
      ['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:b.db', '--all', 'demo-1'],
      ['copy', '--to', 'sqlite:b.db', '--all'],
      ['copy', '--from', 'sqlite:a.db', '--all'],
      ['copy', '--from', 'mysql://x/y', '--to', 'sqlite:b.db', '--all'],
      ['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:', '--all'],
      ['copy', '--from', 'sqlite:a.db', '--to', 'postgres://user:secret@host:notaport/db', '--all'],
      ['copy', '--from', 'sqlite:a.db', '--to', 'postgres://localhost/test?schema=Not-Valid', '--all'],
      ['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:a.db', '--all'],
      ['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:b.db', '../etc'],
    ];
    for (const args of usage) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^shadowlog: (USAGE|INVALID_CONFIG|INVALID_SESSION_ID): [^\n]*\n$/);
      expect(result.stderr).not.toContain('secret');
    }
    const unreachable = await run(['copy', '--from', 'sqlite:a.db', '--to', 'postgres://postgres@127.0.0.1:1/test', '--all']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(
      'shadowlog: STORE_UNREACHABLE: cannot connect to PostgreSQL at 127.0.0.1:1: connection refused; is the server running?\n',
    );
    const missing = await run(['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:e.db', 'nobody']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^shadowlog: SESSION_NOT_FOUND: no session nobody /);
  });

  it('draws a progress bar on a terminal and clears it at the end', async () => {
    const stdout = new PassThrough();
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 100 });
    const err: Buffer[] = [];
    stderr.on('data', (chunk: Buffer) => err.push(chunk));
    stdout.resume();
    const args = ['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:f.db', '--all'];
    const code = await main(args, { stdout, stderr, stdin: Readable.from([]), cwd: workspace.cwd });
    expect(code).toBe(0);
    const drawn = Buffer.concat(err).toString('utf8');
    const lines = drawn.split('\r').map((line) => line.replace('\x1b[K', ''));
    expect(lines).toContainEqual(expect.stringMatching(/^copying [█░]{24} +100% {2}3\/3 sessions, [\d,]+\/[\d,]+ events, demo-3$/));
    expect(drawn.endsWith('\r\x1b[K')).toBe(true);
    for (const line of lines) expect(line.length).toBeLessThan(100);
  });
});

describe.skipIf(server === undefined)('shadowlog copy between SQLite and PostgreSQL', () => {
  const pg = server as NonNullable<typeof server>;
  const workspace = createCliWorkspace();
  afterAll(async () => {
    workspace.cleanup();
    await pg.close();
  });

  it('moves sessions SQLite → PostgreSQL → SQLite with the exact export bytes', async () => {
    const url = new URL(pg.url);
    url.searchParams.set('schema', pg.freshSchema());
    const postgres = url.toString();
    const exported = new Map<string, string>();
    for (const id of ['trip-1', 'trip-2']) {
      expect((await workspace.run(['--store', 'sqlite:from.db', 'demo', '--json', '--session', id])).code).toBe(0);
      exported.set(id, (await workspace.run(['--store', 'sqlite:from.db', 'export', id])).stdout);
    }
    const there = await workspace.run(['copy', '--from', 'sqlite:from.db', '--to', postgres, '--all', '--json']);
    expect(there.stderr).toBe('');
    expect(JSON.parse(there.stdout)).toMatchObject({ copied: 2, skipped: 0 });
    for (const [id, bytes] of exported) expect((await workspace.run(['--store', postgres, 'export', id])).stdout).toBe(bytes);
    const back = await workspace.run(['copy', '--from', postgres, '--to', 'sqlite:back.db', '--all']);
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/copied 2 sessions \([\d,]+ events\) from postgres:\/\/.* to sqlite:.*back\.db, every hash kept\n$/);
    for (const [id, bytes] of exported) expect((await workspace.run(['--store', 'sqlite:back.db', 'export', id])).stdout).toBe(bytes);
    // Again: everything is there already, and nothing is written.
    expect(
      JSON.parse((await workspace.run(['copy', '--from', 'sqlite:from.db', '--to', postgres, '--all', '--json'])).stdout),
    ).toMatchObject({
      copied: 0,
      skipped: 2,
      events: 0,
    });
  });
});
