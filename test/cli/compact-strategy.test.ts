// `shadowlog compact --strategy NAME` compacts the demo session with that strategy, and the log
// still verifies and every model call still replays; `auto` is summary there, the scripted model
// having no compaction of its own, which `native` refuses, writing nothing (test/cli/compact-native
// has it compacted by a provider that has one); an unknown name is refused with the choices.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';

describe('compact --strategy', () => {
  const workspace = createCliWorkspace();
  beforeAll(async () => {
    expect((await workspace.run(['demo', '--session', 'd', '--json'])).code).toBe(0);
  });
  afterAll(() => workspace.cleanup());

  async function verifiesAndReplays() {
    const verify = await workspace.run(['verify', 'd']);
    expect(verify.code).toBe(0);
    const replay = await workspace.run(['replay', 'd', '--turn', '1']);
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
  }

  it('compacts with summary, and the log verifies and replays', async () => {
    const result = await workspace.run(['compact', 'd', '--strategy', 'summary', '--json']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'compacted', strategy: 'summary' });
    await verifiesAndReplays();
  });

  it('compacts with mask, naming the tool, size and seq of each original, and the log verifies and replays', async () => {
    const result = await workspace.run(['compact', 'd', '--strategy', 'mask', '--keep-results', '0', '--json']);
    expect(result.stderr).toBe('');
    const outcome = JSON.parse(result.stdout) as { status: string; strategy: string; shadowedSeqs: number[]; replacementSeqs: number[] };
    expect(outcome).toMatchObject({ status: 'compacted', strategy: 'mask' });
    expect(outcome.replacementSeqs.length).toBe(outcome.shadowedSeqs.length);
    expect(outcome.shadowedSeqs.length).toBeGreaterThan(0);
    const surface = (await workspace.run(['show', 'd', '--full'])).stdout;
    for (const seq of outcome.shadowedSeqs)
      expect(surface).toMatch(
        new RegExp(
          `\\[masked tool result: read_file returned [\\d,]+ characters \\([\\d,]+ tokens\\); the original is event #${seq} of the log\\]`,
        ),
      );
    await verifiesAndReplays();
    // Nothing is left to mask.
    const again = await workspace.run(['compact', 'd', '--strategy', 'mask', '--keep-results', '0']);
    expect(again.stdout).toMatch(/nothing to compact/);
  });

  it('compacts with recall into a handle that names its range, size and outline, and the log verifies and replays', async () => {
    // The demo's turns, run again so that there is a range outside the retained tail.
    expect((await workspace.run(['demo', '--session', 'r', '--json'])).code).toBe(0);
    const result = await workspace.run(['compact', 'r', '--strategy', 'recall', '--retain-tokens', '300', '--json']);
    expect(result.stderr).toBe('');
    const outcome = JSON.parse(result.stdout) as { status: string; strategy: string; summarySeq: number };
    expect(outcome).toMatchObject({ status: 'compacted', strategy: 'recall' });
    const surface = (await workspace.run(['show', 'r', '--full'])).stdout;
    expect(surface).toMatch(
      /Earlier context was compacted: \d+ earlier messages \(the surface from #\d+ to #\d+, [\d,]+ tokens\) were taken off the context and kept whole in the log, under recall handle "[0-9a-f]{8}"\. Outline:\n\s*<compacted-summary>/,
    );
    expect(surface).toMatch(/call recall: \{"action":"search"/);
    expect((await workspace.run(['verify', 'r'])).code).toBe(0);
    expect((await workspace.run(['replay', 'r', '--turn', '1'])).code).toBe(0);
    expect((await workspace.run(['compact', 'r', '--json'])).code).toBe(0);
  });

  it('compacts with auto, which is summary for the scripted provider, and the log verifies and replays', async () => {
    expect((await workspace.run(['demo', '--session', 'a', '--json'])).code).toBe(0);
    const result = await workspace.run(['compact', 'a', '--strategy', 'auto', '--json']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'compacted', strategy: 'summary' });
    expect((await workspace.run(['verify', 'a'])).code).toBe(0);
    expect((await workspace.run(['replay', 'a', '--turn', '1'])).code).toBe(0);
  });

  it('refuses native for the scripted provider and writes nothing', async () => {
    const before = (await workspace.run(['show', 'd', '--record', '--json'])).stdout;
    const result = await workspace.run(['compact', 'd', '--strategy', 'native']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/NATIVE_COMPACTION_UNAVAILABLE: .*scripted offers none/);
    expect((await workspace.run(['show', 'd', '--record', '--json'])).stdout).toBe(before);
  });

  it('refuses an unknown strategy with the choices', async () => {
    const result = await workspace.run(['compact', 'd', '--strategy', 'shrink']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/INVALID_CONFIG: strategy must be one of "summary", "mask", "recall", "native", "auto"/);
  });
});
