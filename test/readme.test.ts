// The README stays true: its code example is a real file that runs and prints what its
// comments say, and every shadowlog command it shows runs.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from './support/cli.js';

const ROOT = resolve(import.meta.dirname, '..');
const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('embeds examples/quick-start.ts verbatim, and the example prints what its comments say', () => {
    const example = readFileSync(resolve(ROOT, 'examples/quick-start.ts'), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
    const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((match) => match[1]);
    expect(expected.length).toBeGreaterThan(0);
    const output = execFileSync(process.execPath, ['--import', 'tsx', 'examples/quick-start.ts'], { cwd: ROOT, encoding: 'utf8' });
    expect(output.trim().split('\n')).toEqual(expected);
  });

  describe('its commands', () => {
    const workspace = createCliWorkspace();
    afterAll(() => workspace.cleanup());

    const commands = [...readme.matchAll(/npx shadowlog ([^&\n#]+?)\s*(?:&&|#|\n)/g)].map((match) => (match[1] as string).trim());

    it('are found', () => {
      expect(commands.length).toBeGreaterThan(5);
    });

    it('all run, in the order shown, against a fresh store', async () => {
      for (const command of commands) {
        const args = command.split(/\s+/).map((arg) => (arg === 'examples/sample-session.jsonl' ? resolve(ROOT, arg) : arg));
        const result = await workspace.run(args);
        expect(result.stderr, command).toBe('');
        expect(result.code, command).toBe(0);
      }
    });
  });
});
