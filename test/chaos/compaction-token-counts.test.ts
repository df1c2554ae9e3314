// The shared Codex rollout, imported, tuned with --policy-file and compacted with that file, as
// a user would: an earlier shadowlog printed `surface 53413 → -28205 tokens` here and chained
// `tokensAfter: -28205` into the log, the surface's calibrated total less the range's raw
// estimates (the estimator prices the rollout's encrypted reasoning at about 2.4 times what the
// provider counted); and it reserved 1 completion token where `tune` had assumed the harness's
// 16,384. Now the surface after is measured as the meter measures any surface, every count in
// the log is a non-negative integer, the next compaction's "before" is this one's "after", and
// the log verifies without a warning.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const SESSION = 'codex-019a93b9-f380-7600-98ff-940e6b99603c';
const workspace = createCliWorkspace();
const cli = (args: string[]) => workspace.run(['--store', 'sqlite:codex.db', ...args]);

interface Envelope {
  readonly seq: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

async function events(): Promise<Envelope[]> {
  const shown = await cli(['show', SESSION, '--record', '--json']);
  expect(shown.code).toBe(0);
  return (JSON.parse(shown.stdout) as { events: Envelope[] }).events;
}

/** Every number in `value` that is not a non-negative safe integer, with its path; a policy's configuration and calibration hold ratios. */
function badCounts(value: unknown, path: string): string[] {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? [] : [`${path} = ${value}`];
  if (Array.isArray(value)) return value.flatMap((item, index) => badCounts(item, `${path}[${index}]`));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value)
      .filter(([key]) => key !== 'config' && key !== 'calibration')
      .flatMap(([key, item]) => badCounts(item, `${path}.${key}`));
  return [];
}

beforeAll(async () => {
  const imported = await cli(['import', corpusFile(CORPUS_FILES.codexOld)]);
  expect(imported.code).toBe(0);
  const tuned = await cli(['tune', SESSION, '--policy-file', 'policy.json']);
  expect(tuned.stderr).toBe('');
  expect(tuned.code).toBe(0);
}, 120_000);
afterAll(() => workspace.cleanup());

describe('compact --compaction-config on the imported Codex rollout', () => {
  let after = 0;

  it('prints and stores a surface after that is a measure, never below zero, and reserves what tune assumed', async () => {
    const result = await cli(['compact', SESSION, '--compaction-config', 'policy.json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = /surface (\d+) → (\d+) tokens/.exec(result.stdout);
    expect(result.stdout.replaceAll(SESSION, 'SESSION')).not.toMatch(/-\d/);
    expect(printed).not.toBeNull();
    const [before, printedAfter] = [Number(printed?.[1]), Number(printed?.[2])];
    expect(printedAfter).toBeLessThan(before);
    after = printedAfter;

    const log = await events();
    const summary = log.find((event) => event.type === 'compaction/summary');
    expect(summary?.data).toMatchObject({ tokensBefore: before, tokensAfter: printedAfter });
    const compactionEvents = log.filter((event) => event.type.startsWith('compaction/'));
    expect(compactionEvents.flatMap((event) => badCounts(event.data, `#${event.seq} ${event.type}`))).toEqual([]);
    // What `tune` assumed for the call (the harness's 16,384 for gpt-5.1-codex, its maximum being 128,000), not 1.
    expect(log.find((event) => event.type === 'compaction/policy')?.data).toMatchObject({ reserve: 16_384, contextWindow: 258_400 });

    const verify = await cli(['verify', SESSION, '--json']);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, problems: [], warnings: [] });
  });

  it("the next compaction measures the surface this one said it left (to rounding's one token)", async () => {
    const next = await cli(['compact', SESSION, '--retain-tokens', '1000', '--json']);
    expect(next.stderr).toBe('');
    const outcome = JSON.parse(next.stdout) as { status: string; tokensBefore: number; tokensAfter: number };
    expect(outcome.status).toBe('compacted');
    expect(Math.abs(outcome.tokensBefore - after)).toBeLessThanOrEqual(1);
    expect(outcome.tokensAfter).toBeGreaterThanOrEqual(0);
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
    expect((await cli(['verify', SESSION])).stdout).toMatch(/: ok — /);
  });
});

describe("the policy file tune writes for Claude Code's baseline, which keeps no tail", () => {
  // {thresholdRatio 0.84, headroomTokens 0, retainTokens 0}: the whole surface is shadowed, the
  // case where the earlier code printed `surface 53413 → -77951 tokens` (53,413 − 132,460 + 1,096).
  const zero = (args: string[]) => workspace.run(['--store', 'sqlite:codex-zero.db', ...args]);

  it('measures the surface after at or above zero, below the surface before, and the log verifies without a warning', async () => {
    expect((await zero(['import', corpusFile(CORPUS_FILES.codexOld)])).code).toBe(0);
    writeFileSync(join(workspace.cwd, 'claude-code.json'), JSON.stringify({ thresholdRatio: 0.84, headroomTokens: 0, retainTokens: 0 }));
    const result = await zero(['compact', SESSION, '--compaction-config', 'claude-code.json', '--json']);
    expect(result.stderr).toBe('');
    const outcome = JSON.parse(result.stdout) as { status: string; shadowedSeqs: number[]; tokensBefore: number; tokensAfter: number };
    expect(outcome.status).toBe('compacted');
    expect(outcome.tokensAfter).toBeGreaterThanOrEqual(0);
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
    const verify = JSON.parse((await zero(['verify', SESSION, '--json'])).stdout);
    expect(verify).toMatchObject({ ok: true, problems: [], warnings: [] });
  });
});
