// Every outcome of `shadowlog compact` has its exit code and its one line (docs/cli.md): 0 for
// `compacted` and for `nothing` (which writes nothing at all: no lifecycle boundary, no policy),
// 1 for every `failed` (a summarizer that cannot be reached, a summary not smaller than its range,
// a compaction cancelled by Ctrl-C, which still releases its lock), and the one-line error of a
// session another process owns. Flags override the recorded policy and the policy file: a retain
// flag replaces the whole retained-tail setting below it.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { startFakeProviderServer } from '../support/fake-provider-server.js';

const workspace = createCliWorkspace();
const cli = (args: string[], options: { signal?: AbortSignal } = {}) =>
  workspace.run(['--store', 'sqlite:outcomes.db', ...args], '', options);

interface Envelope {
  readonly seq: number;
  readonly type: string;
  readonly hash: string;
  readonly data: Record<string, unknown>;
}

async function record(id: string): Promise<Envelope[]> {
  const shown = await cli(['show', id, '--record', '--json']);
  expect(shown.code).toBe(0);
  return (JSON.parse(shown.stdout) as { events: Envelope[] }).events;
}

beforeAll(async () => {
  for (const id of ['d', 'far', 'busy', 'cancel', 'retain', 'file', 'model'])
    expect((await cli(['demo', '--session', id, '--json'])).code).toBe(0);
});
afterAll(() => workspace.cleanup());

describe('compact: outcomes, exit codes and lines', () => {
  it('compacted: exit 0 and the surface before and after', async () => {
    const result = await cli(['compact', 'd', '--retain-tokens', '300']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      /^d: compacted \d+ nodes into summary #\d+; surface \d+ → \d+ tokens \(see `shadowlog origins d \d+`\)\n$/,
    );
  });

  it('nothing to compact: exit 0, status "nothing", and not one event written', async () => {
    const before = await record('d');
    const text = await cli(['compact', 'd', '--retain-tokens', '2500']);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toBe('d: nothing to compact: no range outside the retained tail can be shadowed\n');
    const json = await cli(['compact', 'd', '--retain-tokens', '2500', '--json']);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(json.stdout)).toEqual({
      status: 'nothing',
      message: 'nothing to compact: no range outside the retained tail can be shadowed',
    });
    // No session/end-seed, no compaction/policy: the log is as it was, to the hash.
    expect(await record('d')).toEqual(before);
  });

  it('a summary not smaller than its range: exit 1, status failed, and the lock released', async () => {
    // With a 300-token tail, the range left is the earlier summary alone, which summarizes to itself.
    const text = await cli(['compact', 'd', '--retain-tokens', '300']);
    expect(text.code).toBe(1);
    expect(text.stderr).toBe('');
    expect(text.stdout).toMatch(/^d: compaction failed \(summary\): the summary \(\d+ tokens\) is not smaller than what it would replace/);
    const json = await cli(['compact', 'd', '--retain-tokens', '300', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'failed', reason: 'summary', orphaned: false });
    expect((await record('d')).at(-1)).toMatchObject({ type: 'compaction/end', data: { error: { reason: 'summary' } } });
    expect((await cli(['verify', 'd'])).code).toBe(0);
  });

  it('a summarizer that cannot be reached: exit 1 in text and in --json, with the cause', async () => {
    // A port on loopback that nothing listens on: a server's, closed.
    const closed = await startFakeProviderServer();
    await closed.close();
    const summarizer = ['--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', `${closed.baseUrl}/v1`];
    const text = await cli(['compact', 'far', ...summarizer]);
    expect(text.code).toBe(1);
    expect(text.stderr).toBe('');
    expect(text.stdout).toMatch(/^far: compaction failed \(summary\): the summarizer failed: could not reach http:\/\/127\.0\.0\.1:\d+/);
    const json = await cli(['compact', 'far', ...summarizer, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'failed', reason: 'summary', cause: { code: 'PROVIDER_NETWORK' } });
  });

  it('a session another process owns: one line, SESSION_BUSY, exit 1, nothing written', async () => {
    const store = await openSqliteStore(join(workspace.cwd, 'outcomes.db'));
    try {
      const ownership = await store.acquireOwnership('busy');
      const before = await record('busy');
      const result = await cli(['compact', 'busy']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^shadowlog: SESSION_BUSY: [^\n]+\n$/);
      expect(await record('busy')).toEqual(before);
      await ownership.release();
    } finally {
      await store.close();
    }
  });

  it('Ctrl-C during the summary: status cancelled, exit 1, and compaction/end releases the lock', async () => {
    const server = await startFakeProviderServer();
    try {
      server.enqueue({ type: 'stall' });
      const stop = new AbortController();
      const running = cli(
        ['compact', 'cancel', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', `${server.baseUrl}/v1`, '--json'],
        {
          signal: stop.signal,
        },
      );
      while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      stop.abort();
      const result = await running;
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toMatchObject({ status: 'failed', reason: 'cancelled', orphaned: false });
      expect((await record('cancel')).at(-1)).toMatchObject({ type: 'compaction/end', data: { error: { reason: 'cancelled' } } });
      expect((await cli(['verify', 'cancel'])).code).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('compact: flags over the policy file over the recorded policy', () => {
  /** The latest compaction/policy: its configuration and the retained tail it resolved to. */
  const latestPolicy = async (id: string) => {
    const policy = (await record(id)).filter((event) => event.type === 'compaction/policy').at(-1);
    return { config: policy?.data.config as Record<string, unknown>, retain: policy?.data.retain };
  };
  // The demo's message budget: a 3,200-token window less its 512-token reserve.
  const BUDGET = 3_200 - 512;

  it('--retain-tokens over a recorded retainRatio, then --retain-ratio over the recorded retainTokens', async () => {
    const tokens = await cli(['compact', 'retain', '--retain-tokens', '300', '--json']);
    expect(tokens.stderr).toBe('');
    expect(JSON.parse(tokens.stdout)).toMatchObject({ status: 'compacted' });
    expect(await latestPolicy('retain')).toMatchObject({ retain: 300, config: { retainTokens: 300 } });
    const ratio = await cli(['compact', 'retain', '--retain-ratio', '0.05', '--json']);
    expect(ratio.stderr).toBe('');
    const outcome = JSON.parse(ratio.stdout) as { status: string };
    expect(ratio.code).toBe(outcome.status === 'failed' ? 1 : 0);
    const policy = await latestPolicy('retain');
    expect(policy).toMatchObject({ retain: Math.floor(BUDGET * 0.05), config: { retainRatio: 0.05 } });
    expect(policy.config).not.toHaveProperty('retainTokens');
  });

  it("a policy file's retainTokens over the recorded retainRatio, and a flag's --retain-ratio over the file's retainTokens", async () => {
    writeFileSync(join(workspace.cwd, 'policy.json'), JSON.stringify({ retainTokens: 300 }));
    const file = await cli(['compact', 'file', '--compaction-config', 'policy.json', '--json']);
    expect(file.stderr).toBe('');
    expect(JSON.parse(file.stdout)).toMatchObject({ status: 'compacted' });
    expect(await latestPolicy('file')).toMatchObject({ retain: 300, config: { retainTokens: 300 } });
    const flag = await cli(['compact', 'file', '--compaction-config', 'policy.json', '--retain-ratio', '0.05', '--json']);
    expect(flag.stderr).toBe('');
    const policy = await latestPolicy('file');
    expect(policy).toMatchObject({ retain: Math.floor(BUDGET * 0.05), config: { retainRatio: 0.05 } });
    expect(policy.config).not.toHaveProperty('retainTokens');
  });

  it("a flag over the file's policy for the session's model, which would otherwise still decide", async () => {
    const perModel = { modelPolicies: [{ provider: 'scripted', model: 'demo-script', retainTokens: 300, thresholdRatio: 0.7 }] };
    writeFileSync(join(workspace.cwd, 'per-model.json'), JSON.stringify(perModel));
    const result = await cli(['compact', 'model', '--compaction-config', 'per-model.json', '--retain-ratio', '0.05', '--json']);
    expect(result.stderr).toBe('');
    const policy = (await record('model')).filter((event) => event.type === 'compaction/policy').at(-1)?.data;
    // The flag's tail; the file's threshold ratio for the model, which no flag replaced.
    expect(policy).toMatchObject({ retain: Math.floor(BUDGET * 0.05), threshold: Math.floor(3_200 * 0.7) });
  });

  it('both in one layer are still refused', async () => {
    writeFileSync(join(workspace.cwd, 'both.json'), JSON.stringify({ retainTokens: 300, retainRatio: 0.1 }));
    const result = await cli(['compact', 'file', '--compaction-config', 'both.json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^shadowlog: INVALID_CONFIG: retainRatio and retainTokens are exclusive/);
  });
});
