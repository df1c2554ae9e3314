// `shadowlog checkpoint`, and what show and verify say of fold checkpoints: a checkpoint is
// written beside the log, an open starts from it, one tampered with is ignored and reported
// (show notes it on stderr, its answer unchanged), and verify walks everything and names each
// checkpoint's status, failing when one an open would trust disagrees with the log.

import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeSha256 } from '../../src/store/node-sha256.js';
import { createCliWorkspace } from '../support/cli.js';

const SAMPLE = resolve(import.meta.dirname, '../../examples/sample-session.jsonl');
const SAMPLE_ID = 'sample-fix-parser';

describe('shadowlog checkpoint', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(async () => {
    workspace = createCliWorkspace();
    expect((await workspace.run(['import', SAMPLE])).code).toBe(0);
  });
  afterEach(() => workspace.cleanup());

  const database = () => new Database(join(workspace.cwd, '.shadowlog/shadowlog.db'));
  const surfaceJson = async () => {
    const result = await workspace.run(['show', SAMPLE_ID, '--json']);
    expect(result.code).toBe(0);
    return { surface: JSON.parse(result.stdout) as unknown, stderr: result.stderr };
  };

  it('writes a checkpoint at the head that show opens from and verify finds valid', async () => {
    const before = await surfaceJson();
    const written = await workspace.run(['checkpoint', SAMPLE_ID, '--json']);
    expect(written.code).toBe(0);
    expect(JSON.parse(written.stdout)).toMatchObject({ sessionId: SAMPLE_ID, seq: 32, kept: [32] });
    const after = await surfaceJson();
    expect(after).toEqual({ surface: before.surface, stderr: '' });
    const verified = await workspace.run(['verify', SAMPLE_ID, '--json']);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, checkpoints: [{ seq: 32, status: 'valid' }] });
    expect((await workspace.run(['verify', SAMPLE_ID])).stdout).toContain('checkpoint at seq 32: valid');
    expect((await workspace.run(['checkpoint', 'nobody'])).code).toBe(1);
  });

  it('ignores a tampered checkpoint, noting it on stderr, and verify calls it corrupt', async () => {
    const before = await surfaceJson();
    await workspace.run(['checkpoint', SAMPLE_ID]);
    const db = database();
    db.prepare('UPDATE fold_checkpoints SET payload = replace(payload, \'"nodes":[\', \'"nodes":[3,\')').run();
    db.close();
    const after = await surfaceJson();
    expect(after.surface).toEqual(before.surface);
    expect(after.stderr).toMatch(
      /^shadowlog: note: sample-fix-parser: fold checkpoint at seq 32 ignored \(corrupt: its payload does not match the digest written with it\); the session was read from seq 0/,
    );
    const verified = await workspace.run(['verify', SAMPLE_ID, '--json']);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, checkpoints: [{ seq: 32, status: 'corrupt' }] });
  });

  it('fails verify when a checkpoint passes the checks an open makes but disagrees with the log', async () => {
    await workspace.run(['checkpoint', SAMPLE_ID]);
    const db = database();
    const row = db.prepare('SELECT payload FROM fold_checkpoints').get() as { payload: string };
    // A surface without its last node, digest and all recomputed: only a walk of the log can tell.
    const payload = JSON.parse(row.payload) as { nodes: number[]; calls: unknown[] };
    const forged = JSON.stringify({ ...payload, nodes: payload.nodes.slice(0, -1), calls: [] });
    expect(forged).not.toBe(row.payload);
    db.prepare('UPDATE fold_checkpoints SET payload = ?, digest = ?').run(forged, nodeSha256.hex(forged));
    db.close();
    const verified = await workspace.run(['verify', SAMPLE_ID, '--json']);
    expect(verified.code).toBe(1);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      ok: false,
      problems: [],
      checkpoints: [{ seq: 32, status: 'corrupt', trustedByOpen: true }],
    });
    expect((await workspace.run(['verify', SAMPLE_ID])).stdout).toMatch(/FAILED — the log is intact.*\n.*an open would trust it/);
  });
});
