// `shadowlog compact <id>` runs under the policy the session recorded (the demo's: a 3,200-token
// window with no headroom), where it used to fall back to the defaults and refuse; flags still
// override it; `stats` and `show --record` say which policy each compaction ran under.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';

describe('compact under the recorded policy', () => {
  const workspace = createCliWorkspace();
  beforeAll(async () => {
    expect((await workspace.run(['demo', '--session', 'd', '--json'])).code).toBe(0);
  });
  afterAll(() => workspace.cleanup());

  it('compacts the demo session with no flags', async () => {
    const result = await workspace.run(['compact', 'd', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'compacted' });
  });

  it('lets a flag override the recorded policy', async () => {
    const refused = await workspace.run(['compact', 'd', '--headroom-tokens', '65536']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^shadowlog: INVALID_CONFIG: .*headroomTokens/);
  });

  it('reports the policies and which one each compaction ran under', async () => {
    const stats = JSON.parse((await workspace.run(['stats', 'd', '--json'])).stdout) as {
      policies: Array<{ seq: number; contextWindow: number; threshold: number }>;
      compactionRuns: Array<{ trigger: string; policySeq: number | null; outcome: string }>;
    };
    // The demo's lifecycle, and the one `compact` started.
    expect(stats.policies.length).toBe(2);
    expect(stats.policies.every((policy) => policy.contextWindow === 3_200)).toBe(true);
    const seqs = new Set(stats.policies.map((policy) => policy.seq));
    expect(stats.compactionRuns.length).toBeGreaterThanOrEqual(3);
    for (const run of stats.compactionRuns) expect(seqs.has(run.policySeq as number)).toBe(true);
    expect(stats.compactionRuns.at(-1)).toMatchObject({ trigger: 'manual', outcome: 'compacted', policySeq: stats.policies[1]?.seq });
    const text = (await workspace.run(['show', 'd', '--record'])).stdout;
    expect(text).toMatch(
      /── compaction policy for scripted\/[^:]+: window 3,200, reserve [\d,]+, fixed part [\d,]+ tokens → threshold [\d,]+/,
    );
    expect(text).toMatch(/compaction [0-9a-f]{8} starts \(trigger: pressure, turn \d+, policy #\d+\)/);
  });

  it('lays a preset over the recorded policy, and refuses an unknown one before writing anything', async () => {
    // DSH's headroom leaves the demo's 3,200-token window no room: the preset replaced the recorded headroom 0.
    const dsh = await workspace.run(['compact', 'd', '--preset', 'dsh', '--prune']);
    expect(dsh.code).toBe(2);
    expect(dsh.stderr).toMatch(/^shadowlog: INVALID_CONFIG: .*headroomTokens 65,536/);
    const unknown = await workspace.run(['compact', 'd', '--preset', 'tiny']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^shadowlog: INVALID_CONFIG: expected a compaction preset among dsh, found "tiny"/);
    // A flag over the preset: the headroom the window needs.
    const over = await workspace.run(['compact', 'd', '--preset', 'dsh', '--headroom-tokens', '0', '--json']);
    expect(over.stderr).toBe('');
    expect(JSON.parse(over.stdout)).toMatchObject({ status: expect.stringMatching(/compacted|nothing/) });
  });
});
