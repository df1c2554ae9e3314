// Commands that only read never create a store: pointed at a mistyped SQLite path or PostgreSQL
// schema they say STORE_NOT_FOUND (exit 1) and leave nothing behind, where they used to create
// an empty store and report it as fine.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });

/** Every reading command, as it is run against a store that holds (or should hold) session `s`. */
const READERS: ReadonlyArray<readonly string[]> = [
  ['sessions'],
  ['show', 's'],
  ['show', 's', '--record'],
  ['show', 's', '--follow', '--max-events', '1'],
  ['verify', '--all'],
  ['verify', 's'],
  ['export', 's'],
  ['stats', 's'],
  ['origins', 's', '1'],
  ['replay', 's', '--turn', '1'],
];

function expectNotFound(result: { code: number; stdout: string; stderr: string }, label: string): void {
  expect(result.stdout, label).toBe('');
  expect(result.stderr, label).toMatch(/^shadowlog: STORE_NOT_FOUND: /);
  expect(result.stderr.trim().split('\n'), label).toHaveLength(1);
  expect(result.code, label).toBe(1);
}

describe('reading commands on a SQLite store that does not exist', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it.each(READERS.map((args) => [args.join(' '), args]))('%s refuses it and creates nothing', async (_label, args) => {
    const result = await workspace.run(['--store', 'sqlite:typo/none.db', ...args]);
    expectNotFound(result, args.join(' '));
    expect(readdirSync(workspace.cwd)).toEqual([]);
  });

  it('the default store is not created by a reader either, and a writer then creates it', async () => {
    expectNotFound(await workspace.run(['sessions']), 'sessions');
    expect(existsSync(join(workspace.cwd, '.shadowlog'))).toBe(false);
    expect((await workspace.run(['demo', '--session', 's', '--json'])).code).toBe(0);
    const listed = await workspace.run(['sessions', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 's' })]);
  });

  it('copy reads its source without creating it', async () => {
    const result = await workspace.run(['copy', '--from', 'sqlite:typo/none.db', '--to', 'sqlite:target.db', '--all']);
    expectNotFound(result, 'copy');
    expect(readdirSync(workspace.cwd)).toEqual([]);
  });
});

describe.skipIf(server === undefined)('reading commands on a PostgreSQL schema that does not exist', () => {
  const pg = server as NonNullable<typeof server>;
  const workspace = createCliWorkspace();
  afterAll(async () => {
    workspace.cleanup();
    await pg.close();
  });

  it('each refuses it, and the schema is not created', async () => {
    const schema = pg.freshSchema();
    const url = new URL(pg.url);
    url.searchParams.set('schema', schema);
    for (const args of READERS) expectNotFound(await workspace.run(['--store', url.toString(), ...args]), args.join(' '));
    const found = await pg.admin.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
    expect(found.rowCount).toBe(0);
  });
});
