import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCsv } from '../src/csv.js';
import { formatCsv } from '../src/format.js';

test('parses plain rows', () => {
  assert.deepEqual(parseCsv('a,b,c\n1,2,3\n'), [['a', 'b', 'c'], ['1', '2', '3']]);
});

test('keeps commas and quotes inside quoted fields', () => {
  assert.deepEqual(parseCsv('"a,b","say ""hi"""\n'), [['a,b', 'say "hi"']]);
});

test('keeps line breaks inside quoted fields', () => {
  assert.deepEqual(parseCsv('"line one\nline two",x\n'), [['line one\nline two', 'x']]);
});

test('keeps an empty last field', () => {
  assert.deepEqual(parseCsv('a,b,\n'), [['a', 'b', '']]);
});

test('accepts another delimiter', () => {
  assert.deepEqual(parseCsv('a;b\n', { delimiter: ';' }), [['a', 'b']]);
});

test('round-trips through formatCsv', () => {
  const rows = [['id', 'note'], ['1', 'has, comma'], ['2', 'has "quote"']];
  assert.deepEqual(parseCsv(`${formatCsv(rows)}\n`), rows);
});
