// A user checks a call's bytes as docs/proxy.md and docs/cli.md show it: a session shadowlog
// itself sent (the offline demo, under a fresh HOME), `replay --json` for the digest it recorded
// and verified, and `replay --wire | sha256sum` through a real shell for the digest of what it
// prints. The two must be the same line a person compares by eye.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessHome, type HarnessHome } from './support/harness-home.js';
import { shadowlog, shadowlogPiped } from './support/journey-cli.js';
import { unreadableLines } from './support/reads-like-a-person.js';

let home: HarnessHome;
beforeAll(async () => {
  home = createHarnessHome([]);
  const demo = await shadowlog(home, ['demo', '--session', 'd']);
  expect(demo.code).toBe(0);
});
afterAll(() => home?.cleanup());

describe('replay --wire | sha256sum', () => {
  it('prints the digest replay verified, for a call and for the call after a compaction', async () => {
    for (const turn of ['2', '4']) {
      const replay = await shadowlog(home, ['replay', 'd', '--turn', turn]);
      expect(replay.code).toBe(0);
      expect(unreadableLines(replay.stdout, { ownLines: (line) => !line.startsWith('  ') })).toEqual([]);
      const verified = /^verified: the rebuilt request hashes to ([0-9a-f]{64}), the digest recorded when it was sent;/m.exec(
        replay.stdout,
      );
      expect(verified, replay.stdout).not.toBeNull();
      const piped = await shadowlogPiped(home, ['replay', 'd', '--turn', turn, '--wire'], 'sha256sum');
      expect({ code: piped.code, stderr: piped.stderr }).toEqual({ code: 0, stderr: '' });
      expect(piped.stdout).toBe(`${verified?.[1]}  -\n`);
    }
  });
});
