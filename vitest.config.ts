import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do; tests run them against the source.
    alias: [
      { find: /^shadowlog\/store\/sqlite$/, replacement: source('./src/store/sqlite/index.ts') },
      { find: /^shadowlog\/store\/postgres$/, replacement: source('./src/store/postgres/index.ts') },
      { find: /^shadowlog$/, replacement: source('./src/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
