// How a test starts one of the repository's TypeScript files in a child Node process: from the
// run's compiled tree (test/support/compiled-tree-setup.ts) when there is one, else the source
// through tsx (a test file run outside vitest's global setup). Either way the arguments are
// absolute, so the child may run in any working directory.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = pathToFileURL(createRequire(resolve(ROOT, 'package.json')).resolve('tsx')).href;

/** The path of `script` (absolute, or relative to the repository root) in the compiled tree, if the run has one. */
function compiled(script: string): string | undefined {
  const tree = process.env.SHADOWLOG_TEST_COMPILED_TREE;
  if (tree === undefined || tree === '') return undefined;
  const path = resolve(tree, relative(ROOT, script).replace(/\.(m?)ts$/, '.$1js'));
  if (!existsSync(path)) throw new Error(`${script} is not in the compiled tree ${tree}; is it outside src, test, bench and scripts?`);
  return path;
}

/** The arguments of `node` that run `script` (a .ts file of the repository): `[compiled.js]` or `['--import', tsx, script.ts]`. */
export function nodeScriptArgs(script: string): string[] {
  const absolute = isAbsolute(script) ? script : resolve(ROOT, script);
  const path = compiled(absolute);
  return path === undefined ? ['--import', TSX, absolute] : [path];
}
