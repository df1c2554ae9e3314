// Each section of an extractive summary, from where its facts are: errors only from failures,
// inline code kept whole, tool calls with their whole arguments, file actions from the calls,
// requests with their status, and the current work of an open request.

import { describe, expect, it } from 'vitest';
import { summarizeExtractively } from '../../src/compaction/extractive-summarizer.js';
import type { SummarySections } from '../../src/compaction/summary-sections.js';
import type { ToolCall } from '../../src/log/event.js';
import type { ModelMessage } from '../../src/providers/language-model.js';

const chars4 = (text: string): number => Math.ceil(text.length / 4);
const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string, toolCalls: ToolCall[] = []): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  toolCalls,
});
const tool = (callId: string, text: string, isError = false): ModelMessage => ({
  role: 'tool',
  callId,
  content: [{ type: 'text', text }],
  isError,
});
const call = (callId: string, name: string, args: ToolCall['arguments']): ToolCall => ({ callId, name, arguments: args });

const CSV_SOURCE = [
  'export class CsvError extends Error {',
  '  constructor(message: string, readonly line: number) {',
  '    super(message);',
  '  }',
  '}',
  "      if (state === 'quoted') throw new CsvError('a quoted field is not closed', line);",
  "        else if (next !== delimiter && next !== '\\n' && next !== '\\r') throw new CsvError('text after a closing quote', line);",
  ...Array.from({ length: 30 }, (_, index) => `  const value${index} = row[${index}] ?? '';`),
].join('\n');

/** A routine listing before the range's messages: room for the summary, which must be smaller than its input. */
const ROOM = [
  assistant('', [call('p0', 'list_packages', { depth: 1 })]),
  tool('p0', Array.from({ length: 60 }, (_, index) => `package-${index} 1.${index}.0 installed`).join('\n')),
];

function sectionsOf(messages: readonly ModelMessage[], maxTokens = 4_000): SummarySections {
  const summary = summarizeExtractively([...ROOM, ...messages], { maxTokens, countTokens: chars4 });
  if (summary === undefined) expect.unreachable('expected a summary');
  return summary.sections;
}

describe('errors and fixes', () => {
  it('takes nothing from code that merely mentions Error, in a result that succeeded or inside inline code', () => {
    const sections = sectionsOf([
      user('Read src/csv.ts and tell me what it throws.'),
      assistant('', [call('r1', 'read_file', { path: 'src/csv.ts' })]),
      tool('r1', CSV_SOURCE),
      assistant('It throws `CsvError` (it `extends Error`) with the line number, e.g. `throw new CsvError(...)`.'),
    ]);
    expect(sections.errors).toEqual([]);
    expect(sections.progress).toEqual(['It throws `CsvError` (it `extends Error`) with the line number, e.g. `throw new CsvError(...)`.']);
  });

  it('takes a failed tool result with its call, and the fix the assistant reported after it', () => {
    const sections = sectionsOf([
      user('Run the tests, please. '.repeat(10)),
      assistant('Running them.', [call('t1', 'run_command', { command: 'npm test' })]),
      tool('t1', ' RUN v4\n FAIL test/a.test.ts\nTypeError: x is undefined\n    at f (src/a.ts:1:2)\nTests 1 failed', true),
      assistant('I guarded `x` in src/a.ts.', [call('e1', 'edit_file', { path: 'src/a.ts', old_string: 'x.y', new_string: 'x?.y' })]),
      tool('e1', 'Edited.'),
      assistant('Fixed: all 12 tests pass now.'),
    ]);
    expect(sections.errors).toEqual([
      {
        error: 'run_command({"command":"npm test"}) failed: FAIL test/a.test.ts TypeError: x is undefined',
        fix: 'Fixed: all 12 tests pass now.',
      },
    ]);
  });

  it('takes an error the assistant reported in prose when no tool failed, and not its words about a failure it explains', () => {
    const reported = sectionsOf([
      user('Start the server on port 3000 and tell me what happens. '.repeat(4)),
      assistant('The server did not start: EADDRINUSE, port 3000 is taken by another process.'),
    ]);
    expect(reported.errors).toEqual([{ error: 'The server did not start: EADDRINUSE, port 3000 is taken by another process.', fix: null }]);
    const explained = sectionsOf([
      user('Build it. '.repeat(20)),
      assistant('', [call('b1', 'run_command', { command: 'npm run build' })]),
      tool('b1', 'error TS2304: Cannot find name "Foo".', true),
      assistant('The TypeError comes from a missing import of Foo in src/b.ts.'),
    ]);
    expect(explained.errors.map((line) => line.error)).toEqual([
      'run_command({"command":"npm run build"}) failed: error TS2304: Cannot find name "Foo".',
    ]);
    expect(explained.progress).toEqual(['The TypeError comes from a missing import of Foo in src/b.ts.']);
  });

  it('names a failure without text by its call', () => {
    const sections = sectionsOf([
      user('Delete the cache directory. '.repeat(10)),
      assistant('', [call('d1', 'delete_path', { path: '.cache' })]),
      tool('d1', '', true),
    ]);
    expect(sections.errors).toEqual([{ error: 'delete_path({"path":".cache"}) failed', fix: null }]);
  });
});

describe('inline code', () => {
  const answer =
    "Found it: in src/csv.ts, endRow() only ends the field when it is not empty (line 32: `if (field !== '') endField();`). For \"a,b,\" the last field is '' and is dropped.";

  it('never splits a sentence inside a code span', () => {
    const sections = sectionsOf([user('Find the cause of the lost empty field. '.repeat(6)), assistant(answer)]);
    expect(sections.progress[0]).toBe(
      "Found it: in src/csv.ts, endRow() only ends the field when it is not empty (line 32: `if (field !== '') endField();`).",
    );
    expect(sections.identifiers).toContain('endRow()');
  });

  it('cuts a long line before a code span, never inside it', () => {
    // One sentence of about 330 characters whose code span straddles the 300-grapheme cut.
    const long = `The parser keeps its state in ${'a small machine with four states, '.repeat(7)}see \`${'a'.repeat(60)} !== b\` for the quoted case.`;
    const sections = sectionsOf([user('Explain the parser states in detail. '.repeat(10)), assistant(long)]);
    const line = sections.progress[0] ?? '';
    expect((line.match(/`/g) ?? []).length % 2).toBe(0);
    expect(line).toBe(`The parser keeps its state in ${'a small machine with four states, '.repeat(7)}see…`);
  });
});

describe('tool calls and files', () => {
  const messages = [
    user('Look at the CSV code and fix the empty field bug. '.repeat(4)),
    assistant('', [call('s1', 'search_files', { text: 'endField()' })]),
    tool('s1', "src/csv.ts:32: if (field !== '') endField();"),
    assistant('', [call('s2', 'search_files', { text: 'empty last field', path: 'test' })]),
    tool('s2', "test/csv.test.ts:18: test('keeps an empty last field', () => {"),
    assistant('', [call('r1', 'read_file', { path: 'src/csv.ts' })]),
    tool('r1', CSV_SOURCE),
    assistant('', [call('w1', 'write_file', { path: 'src/csv.ts', content: CSV_SOURCE })]),
    tool('w1', 'Wrote src/csv.ts.'),
    assistant('', [call('w2', 'write_file', { path: 'test/empty-field.test.ts', content: 'test("x", () => {});' })]),
    tool('w2', 'Wrote test/empty-field.test.ts.'),
    assistant('', [call('e1', 'edit_file', { path: 'README.md', old_string: 'Known issue', new_string: 'Fixed' })]),
    tool('e1', 'Edited README.md.'),
    assistant('Done: see src/format.ts for the writer, which was already right.'),
  ];

  it('shows each call that is not a plain file operation with its whole arguments', () => {
    expect(sectionsOf(messages).toolCalls).toEqual([
      'list_packages({"depth":1}) → ok',
      'search_files({"text":"endField()"}) → ok',
      'search_files({"path":"test","text":"empty last field"}) → ok',
    ]);
  });

  it('says what was done to each file: a write after a read modifies, a new file is created, a path in prose is mentioned', () => {
    expect(sectionsOf(messages).files).toEqual([
      { path: 'src/csv.ts', action: 'modified' },
      { path: 'test/empty-field.test.ts', action: 'created' },
      { path: 'README.md', action: 'modified' },
      { path: 'src/format.ts', action: 'mentioned' },
    ]);
  });

  it('does not list the names inside what a tool returned as identifiers', () => {
    expect(sectionsOf(messages).identifiers).not.toContain('value0');
  });
});

describe('requests and the current work', () => {
  it('marks answered requests done and the unanswered one open, with its last step and stated next step', () => {
    const sections = sectionsOf([
      user('How many rows does data/orders.csv have?'),
      assistant('', [call('r1', 'read_file', { path: 'data/orders.csv' })]),
      tool('r1', 'order_id,city\n'.repeat(200)),
      assistant('It has 200 rows.'),
      user('Now check the changelog for the line-break fix.'),
      assistant('I will read CHANGELOG.md next.', [call('r2', 'read_file', { path: 'CHANGELOG.md' })]),
    ]);
    expect(sections.requests).toEqual([
      { status: 'done', text: 'How many rows does data/orders.csv have?' },
      { status: 'open', text: 'Now check the changelog for the line-break fix.' },
    ]);
    expect(sections.progress).toEqual(['It has 200 rows.']);
    expect(sections.current).toEqual({
      work: 'the open request; last step: read_file({"path":"CHANGELOG.md"}) → no result yet',
      nextStep: 'I will read CHANGELOG.md next.',
    });
  });

  it('has no current work once every request is answered', () => {
    const sections = sectionsOf([user('What is 6 × 7? Explain the steps. '.repeat(5)), assistant('It is 42: six sevens.')]);
    expect(sections.current).toBeNull();
  });
});
