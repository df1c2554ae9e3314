// The command line on a PostgreSQL store: the demo, verify, replay, and moving a session
// between SQLite and PostgreSQL with every hash kept. Needs SHADOWLOG_TEST_POSTGRES_URL.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });

describe.skipIf(server === undefined)('shadowlog on PostgreSQL', () => {
  const pg = server as NonNullable<typeof server>;
  let workspace: ReturnType<typeof createCliWorkspace>;
  let url = '';
  beforeAll(() => {
    workspace = createCliWorkspace();
    const parsed = new URL(pg.url);
    parsed.searchParams.set('schema', pg.freshSchema());
    url = parsed.toString();
  });
  afterAll(async () => {
    workspace.cleanup();
    await pg.close();
  });

  it('runs the demo, verifies it and replays its calls with --store postgres://…', async () => {
    const demo = await workspace.run(['--store', url, 'demo', '--json', '--session', 'pg-demo']);
    expect(demo.stderr).toBe('');
    expect(demo.code).toBe(0);
    expect(JSON.parse(demo.stdout).replays.every((replayed: { verified: boolean }) => replayed.verified)).toBe(true);
    expect((await workspace.run(['--store', url, 'verify', 'pg-demo'])).code).toBe(0);
    const replayed = await workspace.run(['--store', url, 'replay', 'pg-demo', '--turn', '4', '--json']);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ turn: 4, step: 1, verified: true });
    const sessions = JSON.parse((await workspace.run(['--store', url, 'sessions', '--json'])).stdout);
    expect(sessions.map((session: { id: string }) => session.id)).toEqual(['pg-demo']);
  });

  it('moves a session from SQLite to PostgreSQL and back, keeping every hash', async () => {
    expect((await workspace.run(['demo', '--json', '--session', 'moving'])).code).toBe(0);
    expect((await workspace.run(['export', 'moving', '-o', 'moving.jsonl'])).code).toBe(0);
    const imported = await workspace.run(['--store', url, 'import', 'moving.jsonl', '--json']);
    expect(JSON.parse(imported.stdout)).toMatchObject({ sessionId: 'moving', tornFinalLine: false });
    const fromSqlite = (await workspace.run(['export', 'moving'])).stdout;
    const fromPostgres = (await workspace.run(['--store', url, 'export', 'moving'])).stdout;
    expect(fromPostgres).toBe(fromSqlite);
    expect((await workspace.run(['--store', url, 'export', 'moving', '-o', 'back.jsonl'])).code).toBe(0);
    expect(JSON.parse((await workspace.run(['--store', 'sqlite:back.db', 'import', 'back.jsonl', '--json'])).stdout)).toMatchObject({
      sessionId: 'moving',
    });
    expect((await workspace.run(['--store', 'sqlite:back.db', 'export', 'moving'])).stdout).toBe(fromSqlite);
  });

  it('answers an unreachable server with one line and no stack trace', async () => {
    const result = await workspace.run(['--store', 'postgres://postgres@127.0.0.1:1/test', 'sessions']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'shadowlog: STORE_UNREACHABLE: cannot connect to PostgreSQL at 127.0.0.1:1: connection refused; is the server running?\n',
    );
  });
});
