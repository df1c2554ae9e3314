// `shadowlog checkpoint`, and what show and verify say of fold checkpoints: a checkpoint is
// written beside the log under this machine's checkpoint key, an open starts from it, one
// tampered with (or forged, its digest recomputed without the key) is ignored and reported (show
// notes it on stderr, its answer unchanged), and verify walks everything and names each
// checkpoint's status, failing when one an open would trust disagrees with the log.

import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { nodeSha256 } from '../../src/store/node-sha256.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { keyedCheckpoint, rewriteSqliteCheckpoint } from '../support/checkpoint-tamper.js';
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

  const file = () => join(workspace.cwd, '.shadowlog/shadowlog.db');
  const database = () => new Database(file());
  const storedPayload = () => {
    const db = database();
    try {
      return (db.prepare('SELECT payload FROM fold_checkpoints').get() as { payload: string }).payload;
    } finally {
      db.close();
    }
  };
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

  it('keeps a proven checkpoint of the same fold that a writer left at the head, and writes below one it cannot use', async () => {
    // A writer's checkpoint at the head, with its observer's state beside the fold.
    const store = await openSqliteStore(file());
    try {
      let turns = 0;
      const observer = {
        key: 'counter 1',
        observe: () => {
          turns++;
        },
        save: () => turns,
        restore: (saved: unknown) => {
          turns = saved as number;
        },
      };
      await (await SessionLog.open(store, SAMPLE_ID, { registry: createCliRegistry(), checkpoints: false, observer })).writeCheckpoint();
    } finally {
      await store.close();
    }
    const kept = await workspace.run(['checkpoint', SAMPLE_ID, '--json']);
    expect(kept.code).toBe(0);
    expect(JSON.parse(kept.stdout)).toMatchObject({ seq: 32, written: false, kept: [32] });
    expect((await workspace.run(['checkpoint', SAMPLE_ID])).stdout).toMatch(
      /^sample-fix-parser: a proven fold checkpoint of the same fold is kept already at seq 32 under checkpoint key [0-9a-f]{16} \(/,
    );
    // The one at the head as it was stored before checkpoints were keyed: not proven, and not to be replaced.
    const payload = storedPayload();
    rewriteSqliteCheckpoint(file(), SAMPLE_ID, 32, { payload, digest: nodeSha256.hex(payload) });
    const below = await workspace.run(['checkpoint', SAMPLE_ID, '--json']);
    expect(below.code).toBe(0);
    expect(JSON.parse(below.stdout)).toMatchObject({
      seq: 31,
      written: true,
      kept: [32, 31],
      notUsed: { seq: 32, status: 'unproven', reason: expect.stringMatching(/^it was written before checkpoints were keyed/) },
    });
    const shown = await surfaceJson();
    expect(shown.stderr).toMatch(
      /ignored, not proven by this machine's checkpoint key .*; the session was read from the checkpoint at seq 31\./,
    );
    expect((await workspace.run(['verify', SAMPLE_ID])).code).toBe(0);
  });

  it('ignores a tampered checkpoint, noting it on stderr, and verify calls it corrupt', async () => {
    const before = await surfaceJson();
    await workspace.run(['checkpoint', SAMPLE_ID]);
    // Whoever owns the file can drop the append-only triggers; without the key, the MAC stays the old one.
    rewriteSqliteCheckpoint(file(), SAMPLE_ID, 32, { payload: storedPayload().replace('"nodes":[', '"nodes":[3,') });
    const after = await surfaceJson();
    expect(after.surface).toEqual(before.surface);
    expect(after.stderr).toMatch(
      /^shadowlog: note: sample-fix-parser: fold checkpoint at seq 32 ignored \(corrupt: its payload does not match the MAC written with it under this process's key [0-9a-f]{16}\); the session was read from seq 0/,
    );
    const verified = await workspace.run(['verify', SAMPLE_ID, '--json']);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      ok: true,
      checkpoints: [{ seq: 32, status: 'corrupt', trustedByOpen: false, matchesLog: false }],
    });
  });

  it('ignores a forged checkpoint whose digest is recomputed without the key: show notes it, verify says it differs and is ignored', async () => {
    const before = await surfaceJson();
    await workspace.run(['checkpoint', SAMPLE_ID]);
    const payload = JSON.parse(storedPayload()) as { nodes: number[]; calls: unknown[] };
    const forged = JSON.stringify({ ...payload, nodes: payload.nodes.slice(0, -1), calls: [] });
    rewriteSqliteCheckpoint(file(), SAMPLE_ID, 32, { payload: forged, digest: nodeSha256.hex(forged) });
    const after = await surfaceJson();
    expect(after.surface).toEqual(before.surface);
    expect(after.stderr).toMatch(
      /^shadowlog: note: sample-fix-parser: fold checkpoint at seq 32 ignored, not proven by this machine's checkpoint key \(it was written before checkpoints were keyed: .*\); the session was read from seq 0/,
    );
    expect(after.stderr.split('\n')).toHaveLength(2);
    const verified = await workspace.run(['verify', SAMPLE_ID, '--json']);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      ok: true,
      checkpoints: [{ seq: 32, status: 'unproven', trustedByOpen: false, matchesLog: false }],
    });
    expect((await workspace.run(['verify', SAMPLE_ID])).stdout).toMatch(
      /checkpoint at seq 32: unproven — it was written before checkpoints were keyed: .*; its fold differs from the log's there; an open ignores it/,
    );
  });

  it('fails verify when a checkpoint passes the checks an open makes but disagrees with the log', async () => {
    await workspace.run(['checkpoint', SAMPLE_ID]);
    const row = { payload: storedPayload() };
    // A surface without its last node, MACed under this machine's key: a key holder's bug, which only a walk of the log can tell.
    const payload = JSON.parse(row.payload) as { nodes: number[]; calls: unknown[] };
    const forged = JSON.stringify({ ...payload, nodes: payload.nodes.slice(0, -1), calls: [] });
    expect(forged).not.toBe(row.payload);
    rewriteSqliteCheckpoint(file(), SAMPLE_ID, 32, { payload: forged, digest: keyedCheckpoint(32, forged).digest });
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
