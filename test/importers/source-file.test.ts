// Reading another harness's file line by line (SPEC §11): a torn last line is reported and
// skipped, two records joined on one line are split and reported, anything else malformed is a
// CorruptLogError with its line.

import { describe, expect, it } from 'vitest';
import { splitJoinedRecords } from '../../src/importers/joined-records.js';
import { parseSourceFile } from '../../src/importers/source-file.js';
import { CorruptLogError } from '../../src/log/errors.js';

const parse = (text: string | Uint8Array) => parseSourceFile('file.jsonl', typeof text === 'string' ? Buffer.from(text) : text);

function refusal(text: string | Uint8Array): CorruptLogError {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof CorruptLogError) return error;
    throw error;
  }
  throw new Error('expected a CorruptLogError');
}

describe('reading a source file', () => {
  it('reads one record per line, keeping each line exactly (CRLF endings without their CR)', () => {
    const file = parse('{"a":1}\r\n{"b": [1, 2]}\n');
    expect(file.records).toEqual([
      { line: 1, text: '{"a":1}', value: { a: 1 } },
      { line: 2, text: '{"b": [1, 2]}', value: { b: [1, 2] } },
    ]);
    expect(file).toMatchObject({ lines: 2, tornLine: null, joinedLines: [], bytes: 23 });
  });

  it('reports a torn last line and skips it', () => {
    const file = parse('{"a":1}\n{"b":2}\n{"c":"cut sho');
    expect(file.records.map((record) => record.line)).toEqual([1, 2]);
    expect(file.tornLine).toEqual({ line: 3, bytes: 13 });
  });

  it('reads a last line without a line break when it is whole, and allows one blank last line', () => {
    expect(parse('{"a":1}\n{"b":2}').records).toHaveLength(2);
    expect(parse('{"a":1}\n\n').records).toHaveLength(1);
  });

  it('refuses anything malformed before the last line with its line number', () => {
    expect(refusal('{"a":1}\n{"b":\n{"c":3}\n')).toMatchObject({ line: 2, code: 'CORRUPT_LOG' });
    expect(refusal('{"a":1}\n\n{"c":3}\n').message).toMatch(/^line 2: the line is blank/);
    expect(refusal('{"a":1}\n[1,2]\n').message).toMatch(/^line 2: expected a JSON object \(one record per line\), found an array/);
    expect(refusal(Buffer.concat([Buffer.from('{"a":1}\n{"b":"'), Buffer.from([0xff]), Buffer.from('"}\n{"c":1}\n')])).message).toMatch(
      /^line 2: the line is not valid UTF-8/,
    );
    // A torn line that is not the last was cut, then written after: the file is damaged there.
    expect(refusal('{"a":1}\n{"b":"cut\n{"c":3}\n').line).toBe(2);
  });

  it('splits two records written onto one line, and reports the line', () => {
    const first = '{"type":"user","text":"a } and a { in a string"}';
    const second = '{"type":"assistant","n":2}';
    const file = parse(`{"z":0}\n${first}${second}\n{"y":3}\n`);
    expect(file.records.map((record) => [record.line, record.text])).toEqual([
      [1, '{"z":0}'],
      [2, first],
      [2, second],
      [3, '{"y":3}'],
    ]);
    expect(file.joinedLines).toEqual([{ line: 2, records: 2 }]);
  });
});

describe('telling joined records from damage', () => {
  it('gives the parts back so that they make the line again, whitespace included', () => {
    expect(splitJoinedRecords('{"a":1} {"b":"}{"}')).toEqual(['{"a":1} ', '{"b":"}{"}']);
    expect(splitJoinedRecords('{"a":{"b":[1,{"c":2}]}}{"d":4}{"e":5}')).toEqual(['{"a":{"b":[1,{"c":2}]}}', '{"d":4}', '{"e":5}']);
  });

  it('does not split a torn record followed by a whole one, a single record, or values that are not objects', () => {
    expect(splitJoinedRecords('{"a":"cut{"b":2}')).toBeUndefined();
    expect(splitJoinedRecords('{"a":1}')).toBeUndefined();
    expect(splitJoinedRecords('{"a":1}[2]')).toBeUndefined();
    expect(splitJoinedRecords('{"a":1}x{"b":2}')).toBeUndefined();
    expect(splitJoinedRecords('{"a":1}{"b":2')).toBeUndefined();
  });
});
