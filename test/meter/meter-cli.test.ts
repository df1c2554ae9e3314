// `shadowlog meter <file|->`: every estimator and tokenizer on a file or standard input, as a
// table or as the JSON of SPEC §12, and one-line errors with exit 2 for bad input.

import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';

const CORPUS = resolve(import.meta.dirname, '../fixtures/corpus/meter');

interface MeterJson {
  file: string;
  characters: number;
  bytes: number;
  estimators: Record<string, number>;
  tokenizers: Record<string, number>;
}

describe('shadowlog meter', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('prints the JSON of SPEC §12 for a file', async () => {
    const result = await workspace.run(['--json', 'meter', join(CORPUS, 'en.txt')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as MeterJson;
    expect(Object.keys(report.estimators)).toEqual(['chars4', 'script-aware']);
    expect(Object.keys(report.tokenizers)).toEqual(['o200k_base', 'cl100k_base', 'llama3']);
    for (const count of [...Object.values(report.estimators), ...Object.values(report.tokenizers)]) {
      expect(Number.isSafeInteger(count) && count > 0).toBe(true);
    }
    // chars4 is exactly ceil(UTF-16 length / 4); the file is ASCII, so length = bytes.
    expect(report.estimators.chars4).toBe(Math.ceil(report.bytes / 4));
    expect(report).toMatchObject({ characters: 922, bytes: 922 });
  });

  it('prints a table with each count and its ratio to o200k_base', async () => {
    const result = await workspace.run(['meter', join(CORPUS, 'zh.txt')]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/zh\.txt: 308 characters, 918 bytes$/);
    expect(lines[1]).toMatch(/^METER\s+TOKENS\s+× o200k_base$/);
    const rows = lines.slice(2).map((line) => line.trim().split(/\s+/));
    expect(rows.map((row) => row[0])).toEqual(['chars4', 'script-aware', 'o200k_base', 'cl100k_base', 'llama3']);
    expect(rows.find((row) => row[0] === 'o200k_base')?.[2]).toBe('1.00');
    // chars4 underprices Chinese about threefold.
    expect(Number(rows.find((row) => row[0] === 'chars4')?.[2])).toBeLessThan(0.5);
  });

  it('reads standard input with -, counting special-token text as text', async () => {
    const result = await workspace.run(['meter', '-', '--json'], 'héllo <|endoftext|> wörld\n');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as MeterJson;
    expect(report).toMatchObject({ file: '(standard input)', characters: 26, bytes: 28 });
    for (const count of Object.values(report.tokenizers)) expect(count).toBeGreaterThan(6);
  });

  it('meters an empty input as zero everywhere', async () => {
    const result = await workspace.run(['meter', '-']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/o200k_base\s+0\s+–/);
  });

  it('refuses a missing file with exit 2 and one line', async () => {
    const result = await workspace.run(['meter', 'no-such-file.txt']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('shadowlog: USAGE: no file no-such-file.txt; give the path of a text file, or - for standard input\n');
  });

  it('refuses a directory as every command refuses an input that is not a regular file (NOT_A_FILE, exit 1)', async () => {
    const result = await workspace.run(['meter', '.']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^shadowlog: NOT_A_FILE: \. is a directory/);
  });

  it('refuses a file that is not UTF-8, naming the first bad byte, with exit 2', async () => {
    writeFileSync(join(workspace.cwd, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café\n" in Latin-1
    const result = await workspace.run(['meter', 'latin1.txt']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'shadowlog: USAGE: expected UTF-8 text in latin1.txt, found a byte sequence that is not UTF-8 at byte 3; meter counts text: convert the file to UTF-8 first (iconv -t UTF-8)\n',
    );
    const json = await workspace.run(['--json', 'meter', 'latin1.txt']);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'USAGE', message: expect.stringContaining('not UTF-8 at byte 3') } });
  });

  it('finds the first bad byte after valid multi-byte text, and refuses overlong and surrogate forms', async () => {
    const cases: Array<[number[], number]> = [
      [[0xe4, 0xb8, 0xad, 0xff], 3], // 中 then a byte that is never UTF-8
      [[0x61, 0xc0, 0xaf], 1], // an overlong '/'
      [[0xed, 0xa0, 0x80], 0], // an encoded surrogate
      [[0xe4, 0xb8], 0], // cut short at the end
    ];
    for (const [bytes, offset] of cases) {
      writeFileSync(join(workspace.cwd, 'bad.txt'), Buffer.from(bytes));
      const result = await workspace.run(['meter', 'bad.txt']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`not UTF-8 at byte ${offset};`);
    }
  });
});
