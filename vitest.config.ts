import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Examples and tests import the package by name, as users do (shadowlog, shadowlog/compaction,
// …); they run against the source. One alias per entry of package.json "exports", so a new
// subpath needs no second list here: ./dist/X.js is served from ./src/X.ts.
const packageJson = JSON.parse(readFileSync(source('./package.json'), 'utf8')) as {
  exports: Record<string, { default: string }>;
};
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const aliases = Object.entries(packageJson.exports).map(([subpath, target]) => ({
  find: new RegExp(`^${escapeRegExp(`shadowlog${subpath.slice(1)}`)}$`),
  replacement: source(target.default.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts')),
}));

export default defineConfig({
  resolve: { alias: aliases },
  test: {
    include: ['test/**/*.test.ts'],
    // A checkpoint key of each test file's own, never the one in the real HOME.
    setupFiles: ['./test/support/checkpoint-key-setup.ts'],
    // Child processes run the repository compiled once per run, not through tsx (test/support/node-script.ts).
    globalSetup: ['./test/support/compiled-tree-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
