// Keeps the arrows of CONVENTIONS.md true: cli → compaction → spine → log (cli → importers →
// compaction, store, log for the importers of other harnesses), store → log,
// meter → log; log imports nothing from Node or the rest of the project; the spine never
// imports compaction. Providers may use the meter: the scripted model counts a request's
// tokens against its window, as a server does. The CLI is a user of the library like any other:
// outside its own files it imports only the public entries (src/index.ts and the
// src/<area>/index.ts files package.json "exports" publishes).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

/** The source files behind package.json "exports": ./dist/X.js is built from src/X.ts. */
function publicEntries(): Set<string> {
  const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default: string }> };
  return new Set(
    Object.values(packageJson.exports).map((target) => join(ROOT, target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'))),
  );
}

/** For each layer, the layers it may import. */
const ALLOWED: Record<string, readonly string[]> = {
  log: ['log'],
  meter: ['meter', 'log'],
  store: ['store', 'log'],
  providers: ['providers', 'log', 'meter'],
  spine: ['spine', 'log', 'store', 'meter', 'providers'],
  compaction: ['compaction', 'spine', 'log', 'store', 'meter', 'providers'],
  importers: ['importers', 'compaction', 'log', 'store', 'meter', 'providers'],
  tune: ['tune', 'whatif', 'importers', 'compaction', 'spine', 'log', 'store', 'meter', 'providers'],
  view: ['view', 'whatif', 'compaction', 'spine', 'log', 'store', 'meter', 'providers'],
  whatif: ['whatif', 'compaction', 'spine', 'log', 'store', 'meter', 'providers'],
  proxy: ['proxy', 'importers', 'log', 'store', 'meter', 'providers'],
  otel: ['otel', 'log', 'store'],
  // The AI SDK recorder reads an app's prompt by the proxy's rule, and mounts the harness's compaction.
  'ai-sdk': ['ai-sdk', 'proxy', 'compaction', 'spine', 'log', 'store', 'meter', 'providers'],
  cli: ['cli', 'otel', 'tune', 'proxy', 'view', 'whatif', 'importers', 'compaction', 'spine', 'log', 'store', 'meter', 'providers'],
  '.': ['.', 'importers', 'compaction', 'spine', 'log', 'store', 'meter', 'providers'],
};

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function layerOf(file: string): string {
  const first = relative(SRC, file).split('/')[0] as string;
  return first.endsWith('.ts') ? '.' : first;
}

function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [
    ...source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm),
    ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] as string);
}

describe('layering', () => {
  const files = sourceFiles(SRC);

  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('imports only along the allowed arrows', () => {
    const violations: string[] = [];
    for (const file of files) {
      const layer = layerOf(file);
      const allowed = ALLOWED[layer];
      if (allowed === undefined) {
        violations.push(`${relative(SRC, file)}: layer ${layer} has no rule; add it to ALLOWED`);
        continue;
      }
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) {
          if (layer === 'log') violations.push(`${relative(SRC, file)} imports ${specifier}; log/ imports nothing outside itself`);
          continue;
        }
        const target = layerOf(resolve(dirname(file), specifier));
        if (!allowed.includes(target)) violations.push(`${relative(SRC, file)} (${layer}) imports ${specifier} (${target})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('lets the CLI use the library through its public entries only', () => {
    const entries = publicEntries();
    const violations: string[] = [];
    for (const file of files.filter((path) => layerOf(path) === 'cli')) {
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
        if (layerOf(target) === 'cli' || entries.has(target)) continue;
        violations.push(
          `${relative(SRC, file)} imports ${specifier}; import it from ${relative(SRC, target).split('/')[0]}/index.ts (export it there if it is missing)`,
        );
      }
    }
    expect(violations).toEqual([]);
  });
});
