// `shadowlog policy`: the resolved trigger for a window as a table and as JSON, and a bad
// configuration's error, which is the library's own message, with exit code 2.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCompactionConfig, resolvePolicy } from '../../src/compaction/policy.js';
import { compactionPreset } from '../../src/compaction/presets.js';
import { ConfigError } from '../../src/log/errors.js';
import { createCliWorkspace } from '../support/cli.js';

/** The message the library gives for this configuration and window. */
function libraryMessage(config: unknown, contextWindow: unknown, reserve: unknown): string {
  try {
    resolvePolicy(parseCompactionConfig(config), { contextWindow: contextWindow as number, reserve: reserve as number });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected the library to reject this configuration');
}

describe('shadowlog policy', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  const json = async (...args: string[]) => {
    const result = await workspace.run(['policy', '--json', ...args]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };

  it.each([
    ['1048576', '256000', 727_040, 126_812, 792_576, 727_040, 1_607_680],
    ['1000000', '0', 800_000, 160_000, 1_000_000, 934_464, 327_680],
    ['1000000', '256000', 678_464, 119_040, 744_000, 678_464, 1_607_680],
    ['327680', '0', 262_144, 52_428, 327_680, 262_144, 327_680],
  ])(
    "--preset dsh --window %s --reserve %s prints the SPEC §6 numbers (DSH's) as JSON",
    async (window, reserve, threshold, retain, messageBudget, pressureBudget, crossoverWindow) => {
      expect(await json('--preset', 'dsh', '--window', window, '--reserve', reserve)).toMatchObject({
        threshold,
        retain,
        messageBudget,
        pressureBudget,
        crossoverWindow,
      });
    },
  );

  it('takes the configuration options', async () => {
    const result = await json('--window', '1000000', '--threshold-ratio', '0.5', '--headroom-tokens', '0', '--retain-tokens', '1000');
    expect(result).toEqual({
      threshold: 500_000,
      retain: 1_000,
      messageBudget: 1_000_000,
      pressureBudget: 1_000_000,
      crossoverWindow: null,
      decidedBy: 'ratio',
      contextWindow: 1_000_000,
      reserve: 0,
      thresholdRatio: 0.5,
      headroomTokens: 0,
      retainRatio: null,
      retainTokens: 1_000,
    });
    expect(await json('--window', '1000000', '--retain-ratio', '0.29')).toMatchObject({ retain: 290_000, retainRatio: 0.29 });
    expect(await json('--preset', 'dsh', '--window', '1,048,576', '--reserve', '256_000')).toMatchObject({ threshold: 727_040 });
  });

  it("--preset dsh gives DSH's numbers, under the flags; an unknown preset is refused", async () => {
    expect(await json('--preset', 'dsh', '--window', '1000000', '--reserve', '256000')).toMatchObject({
      threshold: 678_464,
      retain: 119_040,
      thresholdRatio: 0.8,
      headroomTokens: 65_536,
      retainRatio: 0.16,
    });
    expect(await json('--preset', 'dsh', '--window', '1000000', '--retain-tokens', '1000')).toMatchObject({
      retain: 1_000,
      retainRatio: null,
      headroomTokens: 65_536,
    });
    const unknown = await workspace.run(['policy', '--preset', 'pi', '--window', '1000000']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/INVALID_CONFIG: expected a compaction preset among dsh, found "pi"/);
  });

  it('prints a table that says which term decides', async () => {
    const below = await workspace.run(['policy', '--preset', 'dsh', '--window', '1048576', '--reserve', '256000']);
    expect(below.code).toBe(0);
    expect(below.stdout).toMatch(/^threshold +727,040 {2}.*the headroom decides \(W is below the crossover 1,607,680\)$/m);
    expect(below.stdout).toMatch(/^retain +126,812 {2}floor\(messageBudget × retainRatio \(0\.16\)\)$/m);
    expect(below.stdout).toMatch(/^messageBudget +792,576 {2}W − reserve$/m);
    expect(below.stdout).toMatch(/^pressureBudget +727,040 {2}messageBudget − headroomTokens \(65,536\)$/m);
    expect(below.stdout).toMatch(/^crossoverWindow +1,607,680 {2}/m);
    const above = await workspace.run(['policy', '--preset', 'dsh', '--window', '1000000']);
    expect(above.stdout).toContain('the ratio decides (W is at or above the crossover 327,680)');
    const never = await workspace.run(['policy', '--preset', 'dsh', '--window', '300000', '--threshold-ratio', '1']);
    expect(never.stdout).toContain('the headroom decides at every window');
    expect(never.stdout).toMatch(/^crossoverWindow +none {2}/m);
  });

  it.each([
    [['--preset', 'dsh', '--window', '200000', '--reserve', '150000'], compactionPreset('dsh').config, 200_000, 150_000],
    [['--window', '100000', '--reserve', '150000'], {}, 100_000, 150_000],
    [
      ['--window', '100000', '--reserve', '50000', '--retain-ratio', '0.5', '--headroom-tokens', '30000'],
      { retainRatio: 0.5, headroomTokens: 30_000 },
      100_000,
      50_000,
    ],
    [['--window', '100000', '--retain-tokens', '90000'], { retainTokens: 90_000 }, 100_000, 0],
  ])('fails %j with exit 2 and the library message', async (args, config, contextWindow, reserve) => {
    const result = await workspace.run(['policy', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`shadowlog: INVALID_CONFIG: ${libraryMessage(config, contextWindow, reserve)}\n`);
  });

  it('reports the W 200,000 / reserve 150,000 error with the largest headroom that works', async () => {
    const result = await workspace.run(['policy', '--preset', 'dsh', '--window', '200000', '--reserve', '150000']);
    expect(result.stderr).toContain('headroomTokens 65,536 leaves no pressure budget');
    expect(result.stderr).toContain('The largest headroomTokens that works here is 41,999');
    const fixed = await json('--preset', 'dsh', '--window', '200000', '--reserve', '150000', '--headroom-tokens', '41999');
    expect(fixed).toMatchObject({ threshold: 8_001, retain: 8_000 });
  });

  it.each([
    [['--window', '300000', '--threshold-ratio', '0.8x'], { thresholdRatio: '0.8x' }, 300_000, 0],
    [['--window', '300000', '--threshold-ratio', '1.5'], { thresholdRatio: 1.5 }, 300_000, 0],
    [['--window', '300000', '--retain-ratio', '0.1', '--retain-tokens', '5'], { retainRatio: 0.1, retainTokens: 5 }, 300_000, 0],
    [['--window', '300000', '--headroom-tokens', '1.5'], { headroomTokens: 1.5 }, 300_000, 0],
    [['--window', 'many'], {}, 'many', 0],
    [['--window', '0'], {}, 0, 0],
    [['--window', '300000', '--reserve', '-5'], {}, 300_000, -5],
  ])('rejects the bad values in %j with the library message', async (args, config, contextWindow, reserve) => {
    const result = await workspace.run(['policy', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`shadowlog: INVALID_CONFIG: ${libraryMessage(config, contextWindow, reserve)}\n`);
  });

  it('writes the error as JSON on stderr with --json', async () => {
    const result = await workspace.run(['policy', '--json', '--preset', 'dsh', '--window', '200000', '--reserve', '150000']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: { code: 'INVALID_CONFIG', message: libraryMessage(compactionPreset('dsh').config, 200_000, 150_000) },
    });
  });

  it('needs --window', async () => {
    const result = await workspace.run(['policy']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^shadowlog: USAGE: .*--window/);
  });

  it('shows, for every model it knows, the threshold with the harness reserve and with the model maximum as the reserve', async () => {
    // DSH's numbers, where the reserve moves the threshold (with no headroom it does not below W × ratio).
    const result = await workspace.run(['policy', '--models', '--json', '--preset', 'dsh']);
    expect(result.code).toBe(0);
    const table = JSON.parse(result.stdout) as { defaultReserve: number; models: Array<Record<string, unknown>> };
    expect(table.defaultReserve).toBe(16_384);
    expect(table.models.find((row) => row.model === 'claude-sonnet-4')).toEqual({
      model: 'claude-sonnet-4',
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      reserve: 16_384,
      threshold: 118_080,
      thresholdAtMaxOutput: 70_464,
      retain: 29_378,
    });
    expect(table.models.find((row) => row.model === 'deepseek-chat')).toMatchObject({ reserve: 4_096 });
    const text = await workspace.run(['policy', '--models', '--preset', 'dsh', '--headroom-tokens', '16384']);
    expect(text.stdout).toMatch(/claude-sonnet-4 +200,000 +64,000 +16,384 +160,000 \(80 %\)/);
    expect((await workspace.run(['policy', '--models', '--window', '1000'])).code).toBe(2);
  });
});
