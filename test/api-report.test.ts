// The public surface is reviewed: api/*.api.md holds each entry's exported names and types, as
// scripts/api-report.ts writes them from the TypeScript compiler. A change to what the package
// exports fails here until the report is written again (`npm run api-report`), so the change
// shows in review. The entries of package.json "exports" and tsconfig's paths must agree.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiEntries, generateApiReports, staleApiReports, undocumentedExports } from '../scripts/api-report.js';

const entries = apiEntries();

describe('the API report', () => {
  it('is up to date for every entry (run `npm run api-report` and review the change)', () => {
    const reports = generateApiReports(entries);
    expect([...reports.keys()].sort()).toEqual(entries.map((entry) => entry.reportFile).sort());
    expect(staleApiReports(reports)).toEqual([]);
  }, 120_000);

  it('keeps the root small, and documents every name in it', () => {
    const root = entries.find((entry) => entry.specifier === 'shadowlog');
    expect(root?.source).toBe('src/index.ts');
    if (root === undefined) return;
    const report = readFileSync(new URL('../api/shadowlog.api.md', import.meta.url), 'utf8');
    const names = [...report.matchAll(/^(?:class|interface|type|function|const|let|enum) ([A-Za-z_$][\w$]*)/gm)].map((match) => match[1]);
    expect(new Set(names).size).toBeLessThanOrEqual(36);
    expect(undocumentedExports(root)).toEqual([]);
  }, 120_000);
});

describe('the package entries', () => {
  it('are the same in package.json "exports" and tsconfig.json "paths"', () => {
    const tsconfig = JSON.parse(readFileSync(new URL('../tsconfig.json', import.meta.url), 'utf8')) as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    const paths = Object.entries(tsconfig.compilerOptions.paths)
      .map(([specifier, [target]]) => `${specifier} → ${target?.replace(/^\.\//, '')}`)
      .sort();
    expect(paths).toEqual(entries.map((entry) => `${entry.specifier} → ${entry.source}`).sort());
  });

  it('are area entries: src/index.ts or src/<area>/index.ts', () => {
    for (const entry of entries) expect(entry.source, entry.specifier).toMatch(/^src\/(?:[a-z-]+\/)*index\.ts$/);
  });
});
