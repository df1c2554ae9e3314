// `shadowlog view` on the command line: --out writes the page and says what it holds; a host
// that is not loopback, a bad tune report, and --out with --port are refused before anything
// is written or served.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createCliWorkspace } from '../support/cli.js';
import { TUNE_REPORT, writeDemoSession } from './view-sessions.js';

let workspace: ReturnType<typeof createCliWorkspace>;
beforeAll(async () => {
  ({ workspace } = await writeDemoSession('demo-cli'));
});
afterAll(() => workspace.cleanup());

describe('shadowlog view', () => {
  it('writes one self-contained file with --out and says what it holds', async () => {
    const result = await workspace.run(['view', 'demo-cli', '--out', 'page.html']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const bytes = readFileSync(join(workspace.cwd, 'page.html'));
    expect(result.stdout).toBe(
      `wrote page.html: demo-cli, 93 events, 20 model calls (20 digest-verified, 0 failed), ${bytes.length.toLocaleString('en-US')} bytes\n`,
    );
    const json = await workspace.run(['--json', 'view', 'demo-cli', '--out', 'page2.html']);
    expect(JSON.parse(json.stdout)).toMatchObject({ sessionId: 'demo-cli', events: 93, calls: 20, verified: 20, failed: 0 });
  });

  it('embeds a tune report given with --tune', async () => {
    writeFileSync(join(workspace.cwd, 'tune.json'), JSON.stringify(TUNE_REPORT));
    const result = await workspace.run(['view', 'demo-cli', '--out', 'tuned.html', '--tune', 'tune.json']);
    expect(result.code).toBe(0);
    const html = readFileSync(join(workspace.cwd, 'tuned.html'), 'utf8');
    expect(html).toContain('the cheapest feasible policy within 2 % of the best retention');
    expect(html).not.toContain('<b>');
  });

  it("takes tune's own report: what tune --json prints and the report.json of tune --out", async () => {
    const printed = await workspace.run(['--json', 'tune', 'demo-cli']);
    expect(printed.code).toBe(0);
    writeFileSync(join(workspace.cwd, 'printed.json'), printed.stdout);
    const written = await workspace.run(['tune', 'demo-cli', '--out', 'tune-out']);
    expect(written.code).toBe(0);
    const recommended = (JSON.parse(printed.stdout) as { recommendation: { reason: string } | null }).recommendation;
    for (const report of ['printed.json', join('tune-out', 'report.json')]) {
      const page = `from-${report.replace(/\W/g, '-')}.html`;
      const result = await workspace.run(['view', 'demo-cli', '--out', page, '--tune', report]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const html = readFileSync(join(workspace.cwd, page), 'utf8');
      const embedded = JSON.parse(/<script type="application\/json" id="shadowlog-data">(.*)<\/script>/.exec(html)?.[1] ?? 'null');
      expect(embedded.tune.policies.length).toBeGreaterThan(1);
      expect(embedded.tune.policies[0].summarizerTokens).toEqual({ input: expect.any(Number), output: expect.any(Number) });
      if (recommended !== null) expect(embedded.tune.recommendation.reason).toBe(recommended.reason);
    }
  });

  it('refuses a tune report that is not one, naming the field, and writes nothing', async () => {
    writeFileSync(
      join(workspace.cwd, 'bad-tune.json'),
      JSON.stringify({ ...TUNE_REPORT, policies: [{ ...TUNE_REPORT.policies[0], feasible: 'yes' }] }),
    );
    const result = await workspace.run(['view', 'demo-cli', '--out', 'never.html', '--tune', 'bad-tune.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^shadowlog: INVALID_TUNE_REPORT: bad-tune.json is not a tune report: policies\.0\.feasible: /);
    expect(result.stderr).toContain('tune --out');
    expect(existsSync(join(workspace.cwd, 'never.html'))).toBe(false);
  });

  it('refuses a host that is not loopback without --allow-remote, and --out with --port', async () => {
    const remote = await workspace.run(['view', 'demo-cli', '--host', '0.0.0.0']);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('--host 0.0.0.0 is not a loopback address');
    expect(remote.stderr).toContain('--allow-remote');
    const both = await workspace.run(['view', 'demo-cli', '--out', 'x.html', '--port', '8080']);
    expect(both.code).toBe(2);
    expect(existsSync(join(workspace.cwd, 'x.html'))).toBe(false);
  });

  it('names a session that is not there', async () => {
    const result = await workspace.run(['view', 'no-such', '--out', 'none.html']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/SESSION_NOT_FOUND/);
    expect(existsSync(join(workspace.cwd, 'none.html'))).toBe(false);
  });
});
