// The README and the pages under docs/ stay true: their code examples are real files (examples/)
// that run and print what their comments say, and every shadowlog command a page shows in a
// shell block runs, in the order shown, against a fresh store of the page's own.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from './support/cli.js';

const ROOT = resolve(import.meta.dirname, '..');
const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

/** The shadowlog commands of a page's shell blocks (prose mentions are not run). */
function shadowlogCommands(page: string): string[] {
  const shellBlocks = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  return shellBlocks
    .flatMap((block) => block.split('\n'))
    .flatMap((line) => line.replace(/#.*$/, '').split('&&'))
    .map((part) => part.trim())
    .filter((part) => part.startsWith('npx shadowlog '))
    .map((part) => part.slice('npx shadowlog '.length));
}

function describeCommands(name: string, page: string, minimum: number): void {
  describe(`${name}: its commands`, () => {
    const workspace = createCliWorkspace();
    afterAll(() => workspace.cleanup());
    const commands = shadowlogCommands(page);

    it('are found', () => {
      expect(commands.length).toBeGreaterThanOrEqual(minimum);
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
}

// Each example file is embedded verbatim in one page, and runs.
const EXAMPLES: ReadonlyArray<readonly [example: string, page: string]> = [
  ['quick-start.ts', 'README.md'],
  ['compaction.ts', 'docs/compaction.md'],
];

describe('README', () => {
  for (const [name, pagePath] of EXAMPLES) {
    it(`${pagePath} embeds examples/${name} verbatim, and the example prints what its comments say`, () => {
      const example = readFileSync(resolve(ROOT, 'examples', name), 'utf8');
      const page = readFileSync(resolve(ROOT, pagePath), 'utf8');
      expect(page).toContain(`\`\`\`ts\n${example}\`\`\``);
      const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((match) => match[1]);
      expect(expected.length).toBeGreaterThan(0);
      const output = execFileSync(process.execPath, ['--import', 'tsx', `examples/${name}`], { cwd: ROOT, encoding: 'utf8' });
      expect(output.trim().split('\n')).toEqual(expected);
    });
  }

  it('links only to docs pages that exist', () => {
    for (const match of readme.matchAll(/\]\((docs\/[\w./-]+?\.md)(#[\w-]*)?\)/g)) {
      expect(existsSync(resolve(ROOT, match[1] as string)), match[1]).toBe(true);
    }
  });
});

describeCommands('README', readme, 6);

// Each page under docs/ runs its own commands in a fresh store. A page with no commands
// is fine; a page whose commands fail is not.
const DOCS = resolve(ROOT, 'docs');
const pages = existsSync(DOCS)
  ? readdirSync(DOCS)
      .filter((name) => name.endsWith('.md'))
      .sort()
  : [];
for (const name of pages) {
  const page = readFileSync(resolve(DOCS, name), 'utf8');
  if (shadowlogCommands(page).length > 0) describeCommands(`docs/${name}`, page, 1);
}
