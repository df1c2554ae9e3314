// Vitest global setup: compiles the repository's TypeScript (src, test, bench, scripts) once per
// run into a temporary tree of plain ES modules, file for file, with esbuild — the compiler tsx
// uses, so the code is the same — and names the tree in SHADOWLOG_TEST_COMPILED_TREE for the test
// processes. Tests that start a child Node process (the CLI as a user runs it, crash agents,
// lock holders) run the child from that tree (test/support/node-script.ts): a child then starts in
// about half the time it takes through tsx, which compiles every module again in each child.
// The tree lays out what the source reads beside itself (package.json, examples/, the SQLite
// checkpoint thread, the page's client modules) at the same relative paths, and reaches
// node_modules through a link. It is removed when the run ends.

import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { SHARED_MODULES, transpileClientModule } from '../../src/view/page-script.js';

export const COMPILED_TREE_VARIABLE = 'SHADOWLOG_TEST_COMPILED_TREE';

const ROOT = resolve(import.meta.dirname, '../..');
const COMPILED_DIRECTORIES = ['src', 'test', 'bench', 'scripts'];

function typeScriptFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...typeScriptFiles(path));
    else if (entry.isFile() && /\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

function otherFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...otherFiles(path));
    else if (entry.isFile() && /\.(mjs|cjs|js|json)$/.test(entry.name)) files.push(path);
  }
  return files;
}

export default async function setup(): Promise<() => void> {
  const tree = mkdtempSync(join(tmpdir(), 'shadowlog-test-tree-'));
  // Readable by every user: a test runs a child as `nobody` (test/store/sqlite-read-only.test.ts).
  chmodSync(tree, 0o755);
  const entryPoints = COMPILED_DIRECTORIES.flatMap((name) => typeScriptFiles(join(ROOT, name)));
  await build({
    entryPoints,
    outdir: tree,
    outbase: ROOT,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'error',
    tsconfig: join(ROOT, 'tsconfig.json'),
  });
  // The page's script is joined from the client's modules as TypeScript compiles them (dist/ holds
  // tsc's output, and the source path transpiles with TypeScript): esbuild's form of the same module
  // (exports gathered at the end, double-quoted imports) is not what the joiner reads.
  const clientDirectory = join(ROOT, 'src/view/client');
  const joined = [
    ...readdirSync(clientDirectory)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(clientDirectory, name)),
    ...Object.values(SHARED_MODULES).map((path) => `${resolve(clientDirectory, path)}.ts`),
  ];
  for (const source of joined)
    writeFileSync(join(tree, relative(ROOT, source)).replace(/\.ts$/, '.js'), await transpileClientModule(readFileSync(source, 'utf8')));
  // Plain JavaScript the source loads by path (the checkpoint thread) sits where the source expects it.
  for (const file of otherFiles(join(ROOT, 'src'))) cpSync(file, join(tree, relative(ROOT, file)));
  cpSync(join(ROOT, 'package.json'), join(tree, 'package.json'));
  symlinkSync(join(ROOT, 'examples'), join(tree, 'examples'));
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  process.env[COMPILED_TREE_VARIABLE] = tree;
  return () => rmSync(tree, { recursive: true, force: true });
}
