// The README stays true: its code example is a real file that runs and prints what its
// comments say, and every shadowlog command it shows runs.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from './support/cli.js';

const ROOT = resolve(import.meta.dirname, '..');
const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

describe('README', () => {
  for (const name of ['quick-start.ts', 'compaction.ts']) {
    it(`embeds examples/${name} verbatim, and the example prints what its comments say`, () => {
      const example = readFileSync(resolve(ROOT, 'examples', name), 'utf8');
      expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
      const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((match) => match[1]);
      expect(expected.length).toBeGreaterThan(0);
      const output = execFileSync(process.execPath, ['--import', 'tsx', `examples/${name}`], { cwd: ROOT, encoding: 'utf8' });
      expect(output.trim().split('\n')).toEqual(expected);
    });
  }

  describe('its commands', () => {
    const workspace = createCliWorkspace();
    afterAll(() => workspace.cleanup());

    // The shadowlog commands of the README's shell blocks (prose mentions are not run).
    const shellBlocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
    const commands = shellBlocks
      .flatMap((block) => block.split('\n'))
      .flatMap((line) => line.replace(/#.*$/, '').split('&&'))
      .map((part) => part.trim())
      .filter((part) => part.startsWith('npx shadowlog '))
      .map((part) => part.slice('npx shadowlog '.length));

    it('are found', () => {
      expect(commands.length).toBeGreaterThan(5);
    });

    it('all run, in the order shown, against a fresh store', async () => {
      for (const command of commands) {
        // Files of the repository named in a command are the repository's, not the workspace's.
        const args = command
          .split(/\s+/)
          .map((arg) => (/^[\w-]+(\/[\w.-]+)*\.\w+$/.test(arg) && existsSync(resolve(ROOT, arg)) ? resolve(ROOT, arg) : arg));
        const result = await workspace.run(args);
        expect(result.stderr, command).toBe('');
        expect(result.code, command).toBe(0);
      }
    });
  });
});
