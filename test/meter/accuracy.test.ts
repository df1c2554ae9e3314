// The accuracy bar of the default meter (SPEC §10, test/fixtures/corpus/README.md): on every
// file of the shared corpus, the script-aware estimate is within ±15 % of the exact
// o200k_base count, computed here with the real tokenizer. The table is printed so that the
// figures show in the test output, chars4 beside it for comparison.

import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chars4Estimator, createEstimator, scriptAwareEstimator } from '../../src/meter/index.js';

const CORPUS = resolve(import.meta.dirname, '../fixtures/corpus/meter');
const TOLERANCE = 0.15;

interface Row {
  readonly file: string;
  readonly exact: number;
  readonly scriptAware: number;
  readonly chars4: number;
}

const error = (estimate: number, exact: number) => (estimate - exact) / exact;
const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;

function renderTable(rows: readonly Row[]): string {
  const header = ['file', 'o200k_base', 'script-aware', 'error', 'chars4', 'error'];
  const cells = rows.map((row) => [
    row.file,
    String(row.exact),
    String(row.scriptAware),
    percent(error(row.scriptAware, row.exact)),
    String(row.chars4),
    percent(error(row.chars4, row.exact)),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => (line[column] as string).length)));
  const line = (values: readonly string[]) =>
    values
      .map((value, column) => (column === 0 ? value.padEnd(widths[column] as number) : value.padStart(widths[column] as number)))
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(line)].join('\n');
}

describe('meter accuracy on the shared corpus', () => {
  const files = readdirSync(CORPUS)
    .filter((name) => name.endsWith('.txt'))
    .sort();

  it('has the corpus files', () => {
    expect(files).toEqual(['code.ts.txt', 'en.txt', 'ja.txt', 'ko.txt', 'mixed-log.txt', 'tool-output.json.txt', 'vi.txt', 'zh.txt']);
  });

  it('keeps the script-aware estimate within ±15 % of o200k_base on every file', async () => {
    const o200k = await createEstimator('o200k_base');
    const rows: Row[] = files.map((file) => {
      const text = readFileSync(join(CORPUS, file), 'utf8');
      return {
        file,
        exact: o200k.countText(text),
        scriptAware: scriptAwareEstimator.countText(text),
        chars4: chars4Estimator.countText(text),
      };
    });
    console.log(`\nToken meter accuracy against o200k_base (bar: script-aware within ±${TOLERANCE * 100} %)\n${renderTable(rows)}\n`);
    for (const row of rows) {
      expect(row.exact, row.file).toBeGreaterThan(0);
      expect(
        Math.abs(error(row.scriptAware, row.exact)),
        `${row.file}: script-aware ${row.scriptAware} vs o200k_base ${row.exact}`,
      ).toBeLessThanOrEqual(TOLERANCE);
    }
  });
});
