import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';

const SAMPLE = resolve(import.meta.dirname, '../../examples/sample-session.jsonl');
const SAMPLE_ID = 'sample-fix-parser';

describe('shadowlog command line', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  const importSample = async () => {
    const result = await workspace.run(['--json', 'import', SAMPLE]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as { sessionId: string; events: number; tornFinalLine: boolean };
  };

  it('imports into the embedded SQLite default and lists the session', async () => {
    const imported = await importSample();
    expect(imported).toMatchObject({ sessionId: SAMPLE_ID, events: 32, tornFinalLine: false });
    expect(existsSync(join(workspace.cwd, '.shadowlog/shadowlog.db'))).toBe(true);
    const listed = await workspace.run(['sessions', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: SAMPLE_ID, events: 32 })]);
    const again = await workspace.run(['import', SAMPLE]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing written');
  });

  it('shows the surface as JSON, with [] sources on appended nodes, now and as of a position', async () => {
    await importSample();
    const now = JSON.parse((await workspace.run(['show', SAMPLE_ID, '--surface', '--json'])).stdout);
    expect(now.sessionId).toBe(SAMPLE_ID);
    expect(now.atSeq).toBe(31);
    expect(now.nodes[0]).toEqual({ seq: 1, type: 'system/message', sourceEventSeqs: [] });
    const replacements = now.nodes.filter((node: { sourceEventSeqs: number[] }) => node.sourceEventSeqs.length > 0);
    expect(replacements).toHaveLength(1);

    const early = JSON.parse((await workspace.run(['show', SAMPLE_ID, '--at', '5', '--json'])).stdout);
    expect(early.atSeq).toBe(5);
    expect(early.nodes.map((node: { seq: number }) => node.seq)).toEqual([1, 3, 4, 5]);
  });

  it('shows the record as JSON with every event, and as text with compactions and prunes marked', async () => {
    await importSample();
    const record = JSON.parse((await workspace.run(['show', SAMPLE_ID, '--record', '--json'])).stdout);
    expect(record.events).toHaveLength(32);
    expect(record.events.map((event: { seq: number }) => event.seq)).toEqual([...Array(32).keys()]);
    const text = (await workspace.run(['show', SAMPLE_ID, '--record'])).stdout;
    expect(text).toContain('COMPACTED');
    expect(text).toContain('PRUNED');
    expect(text).toMatch(/#5 tool \(call-1\) {2}\[shadowed by #\d+\]/);
    const surface = (await workspace.run(['show', SAMPLE_ID])).stdout;
    expect(surface).toContain('[REPLACEMENT: replaces');
  });

  it('expands every surface node through origins into exactly the appended messages', async () => {
    await importSample();
    const record = JSON.parse((await workspace.run(['show', SAMPLE_ID, '--record', '--json'])).stdout) as {
      events: Array<{ seq: number; type: string; surfaceOp?: unknown }>;
    };
    const appended = record.events.filter((event) => event.surfaceOp === 'append').map((event) => event.seq);
    const surface = JSON.parse((await workspace.run(['show', SAMPLE_ID, '--json'])).stdout) as { nodes: Array<{ seq: number }> };
    const expanded: number[] = [];
    for (const node of surface.nodes) {
      const result = await workspace.run(['origins', SAMPLE_ID, String(node.seq), '--json']);
      expect(result.code).toBe(0);
      const parsed = JSON.parse(result.stdout) as { seq: number; origins: number[] };
      expect(parsed.seq).toBe(node.seq);
      expanded.push(...parsed.origins);
    }
    expect(expanded).toEqual(appended);
    const logOnly = await workspace.run(['origins', SAMPLE_ID, '0']);
    expect(logOnly.code).toBe(1);
    expect(logOnly.stderr).toMatch(/^shadowlog: NOT_A_SURFACE_EVENT: /);
  });

  it('verifies an intact session, and names the seq of an event changed behind the store', async () => {
    await importSample();
    const ok = await workspace.run(['verify', SAMPLE_ID, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, firstBadSeq: null, problems: [] });

    // Tamper with one event, bypassing the append-only guard on purpose.
    const db = new Database(join(workspace.cwd, '.shadowlog/shadowlog.db'));
    for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as Array<{ name: string }>) {
      db.exec(`DROP TRIGGER "${name}"`);
    }
    const changed = db
      .prepare("UPDATE events SET body = replace(body, 'drops the last field', 'drops the first field') WHERE session_id = ? AND seq = 3")
      .run(SAMPLE_ID);
    expect(changed.changes).toBe(1);
    db.close();

    const bad = await workspace.run(['verify', SAMPLE_ID, '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      ok: false,
      firstBadSeq: 3,
      problems: [expect.objectContaining({ seq: 3, code: 'hash-mismatch' })],
    });
    const all = await workspace.run(['verify', '--all']);
    expect(all.code).toBe(1);
    expect(all.stdout).toContain('FAILED at seq 3');
  });

  it('verifies an export file, naming the exact tampered seq', async () => {
    const lines = readFileSync(SAMPLE, 'utf8').split('\n');
    lines[9] = (lines[9] as string).replace('"turn":2', '"turn":3');
    writeFileSync(join(workspace.cwd, 'tampered.jsonl'), lines.join('\n'));
    const result = await workspace.run(['verify', '--file', 'tampered.jsonl', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, firstBadSeq: 8 });
    const intact = await workspace.run(['verify', '--file', SAMPLE]);
    expect(intact.code).toBe(0);
  });

  it('exports byte for byte what it imported', async () => {
    await importSample();
    const exported = await workspace.run(['export', SAMPLE_ID]);
    expect(exported.stdout).toBe(readFileSync(SAMPLE, 'utf8'));
    const toFile = await workspace.run(['export', SAMPLE_ID, '-o', 'copy.jsonl']);
    expect(toFile.code).toBe(0);
    expect(readFileSync(join(workspace.cwd, 'copy.jsonl'), 'utf8')).toBe(readFileSync(SAMPLE, 'utf8'));
    const imported = JSON.parse((await workspace.run(['import', 'copy.jsonl', '--as', 'copy', '--json'])).stdout);
    expect(imported).toMatchObject({ sessionId: 'copy', events: 32 });
  });

  it('imports from standard input', async () => {
    const result = await workspace.run(['import', '-', '--json'], readFileSync(SAMPLE, 'utf8'));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ sessionId: SAMPLE_ID, events: 32 });
  });

  it('answers bad usage with exit 2 and one line on stderr', async () => {
    const cases: string[][] = [
      ['frobnicate'],
      ['show'],
      ['show', '../etc/passwd'],
      ['show', SAMPLE_ID, '--at', 'abc'],
      ['verify'],
      ['--store', 'mysql://x', 'sessions'],
    ];
    for (const args of cases) {
      const result = await workspace.run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^shadowlog: [A-Z_]+: .+\n$/);
    }
    const json = await workspace.run(['show', '../x', '--json']);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'INVALID_SESSION_ID', message: expect.any(String) } });
  });

  it('says what is missing: an unknown session, a seq past the end, a file that is not there', async () => {
    await importSample();
    const missing = await workspace.run(['show', 'nobody']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^shadowlog: SESSION_NOT_FOUND: no session nobody/);
    const past = await workspace.run(['show', SAMPLE_ID, '--at', '32']);
    expect(past.stderr).toMatch(/^shadowlog: SEQ_OUT_OF_RANGE: /);
    const noFile = await workspace.run(['import', 'nope.jsonl']);
    expect(noFile.code).toBe(2);
    const damaged = readFileSync(SAMPLE, 'utf8').replace('"turn":1}', '"turn":1');
    writeFileSync(join(workspace.cwd, 'damaged.jsonl'), damaged);
    const corrupt = await workspace.run(['import', 'damaged.jsonl', '--as', 'damaged']);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toMatch(/^shadowlog: CORRUPT_LOG: line 4: /);
    expect(JSON.parse((await workspace.run(['sessions', '--json'])).stdout)).toHaveLength(1);
  });

  it('uses the store named by --store or SHADOWLOG_STORE', async () => {
    const result = await workspace.run(['--store', 'sqlite:other.db', 'import', SAMPLE]);
    expect(result.code).toBe(0);
    expect(existsSync(join(workspace.cwd, 'other.db'))).toBe(true);
    expect(existsSync(join(workspace.cwd, '.shadowlog'))).toBe(false);
  });
});
