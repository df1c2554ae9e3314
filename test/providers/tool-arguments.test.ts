// Tool-call arguments as the log keeps them: the value, and the provider's exact text whenever
// the value alone would not give it back; and the JSON source of one value in a response.

import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { ToolCall } from '../../src/log/event.js';
import { jsonSourceAt } from '../../src/providers/json-source.js';
import { argumentsFromText, argumentsFromValue, argumentsTextOf, readToolArguments } from '../../src/providers/tool-arguments.js';

const call = (fields: Pick<ToolCall, 'arguments'> & { argumentsText?: string }): ToolCall => ({ callId: 'c', name: 'read', ...fields });
const DEEP = `${'['.repeat(600)}${']'.repeat(600)}`;

describe('arguments that arrive as text', () => {
  // [text, what is stored for a text protocol (OpenAI), what is stored for an object protocol (Anthropic)]
  const cases: Array<[string, object, object]> = [
    ['{"path":"a.ts"}', { arguments: { path: 'a.ts' } }, { arguments: { path: 'a.ts' } }],
    ['{"path": "a.ts"}', { arguments: { path: 'a.ts' }, argumentsText: '{"path": "a.ts"}' }, { arguments: { path: 'a.ts' } }],
    ['{"z":1,"a":2}', { arguments: { z: 1, a: 2 }, argumentsText: '{"z":1,"a":2}' }, { arguments: { z: 1, a: 2 } }],
    ['{"n":1.0,"e":"\\u00e9"}', { arguments: { n: 1, e: 'é' }, argumentsText: '{"n":1.0,"e":"\\u00e9"}' }, { arguments: { n: 1, e: 'é' } }],
    ['"README.md"', { arguments: 'README.md', argumentsText: '"README.md"' }, { arguments: 'README.md', argumentsText: '"README.md"' }],
    ['{path: a.ts', { arguments: '{path: a.ts', argumentsText: '{path: a.ts' }, { arguments: '{path: a.ts', argumentsText: '{path: a.ts' }],
    ['{"n":1e400}', { arguments: '{"n":1e400}', argumentsText: '{"n":1e400}' }, { arguments: '{"n":1e400}', argumentsText: '{"n":1e400}' }],
    [DEEP, { arguments: DEEP, argumentsText: DEEP }, { arguments: DEEP, argumentsText: DEEP }],
    ['', { arguments: {}, argumentsText: '' }, { arguments: {} }],
    ['{}', { arguments: {} }, { arguments: {} }],
    ['[1,2]', { arguments: [1, 2] }, { arguments: [1, 2] }],
    ['null', { arguments: null }, { arguments: null }],
  ];
  for (const [text, forText, forObject] of cases) {
    it(`keeps ${JSON.stringify(text.slice(0, 30))} so that it can be read back`, () => {
      expect(argumentsFromText(text, 'text')).toEqual(forText);
      expect(argumentsFromText(text, 'object')).toEqual(forObject);
    });
  }

  it('gives the exact text back for a text protocol, whatever form it had', () => {
    for (const [text] of cases) {
      const rendered = argumentsTextOf(call(argumentsFromText(text, 'text')));
      expect(rendered).toBe(text);
    }
  });

  it('never stores a value the log cannot hold: everything kept is canonical JSON', () => {
    for (const [text] of cases) {
      for (const protocol of ['text', 'object'] as const) expect(() => canonicalJson(argumentsFromText(text, protocol))).not.toThrow();
    }
  });
});

describe('arguments that arrive as a value', () => {
  it('keeps a value the log can hold, and reads the source text of one it cannot', () => {
    expect(argumentsFromValue({ path: 'a' }, () => 'unused')).toEqual({ arguments: { path: 'a' } });
    expect(argumentsFromValue('README.md', () => 'unused')).toEqual({ arguments: 'README.md', argumentsText: '"README.md"' });
    expect(argumentsFromValue({ n: Number.POSITIVE_INFINITY }, () => '{"n": 1e400}')).toEqual({
      arguments: '{"n": 1e400}',
      argumentsText: '{"n": 1e400}',
    });
    // With no source text, the value is left as it came: the spine records such an answer as it arrived.
    expect(argumentsFromValue({ n: Number.NEGATIVE_INFINITY }, () => undefined)).toEqual({ arguments: { n: Number.NEGATIVE_INFINITY } });
  });
});

describe('the arguments a tool is given', () => {
  it('is the value, or a message the model can act on', () => {
    expect(readToolArguments(call({ arguments: { path: 'a' } }))).toEqual({ ok: true, value: { path: 'a' } });
    expect(readToolArguments(call({ arguments: { path: 'a' }, argumentsText: '{"path": "a"}' }))).toEqual({
      ok: true,
      value: { path: 'a' },
    });
    expect(readToolArguments(call(argumentsFromText('"README.md"', 'text')))).toEqual({ ok: true, value: 'README.md' });
    expect(readToolArguments(call(argumentsFromText('', 'text')))).toEqual({ ok: true, value: {} });
    expect(readToolArguments(call(argumentsFromText('{path: a', 'text')))).toEqual({
      ok: false,
      message: 'the arguments are not valid JSON: {path: a',
    });
    expect(readToolArguments(call(argumentsFromText('{"n":1e400}', 'text')))).toEqual({
      ok: false,
      message: 'the arguments are JSON that cannot be read exactly ($.n must be a finite number, found Infinity): {"n":1e400}',
    });
    // A string without text is what earlier versions stored for text that was not JSON.
    expect(readToolArguments(call({ arguments: '{broken' }))).toEqual({ ok: false, message: 'the arguments are not valid JSON: {broken' });
  });
});

describe('the JSON source of a value', () => {
  const body =
    '{"content": [ {"type":"text","text":"a \\" ] }"}, {"type": "tool_use", "input" : {"n": 1e400, "s": "x,}"} } ], "input": 3, "input": 4}';

  it('finds a value by its path, as written', () => {
    expect(jsonSourceAt(body, ['content', 1, 'input'])).toBe('{"n": 1e400, "s": "x,}"}');
    expect(jsonSourceAt(body, ['content', 1, 'input', 'n'])).toBe('1e400');
    expect(jsonSourceAt(body, ['content', 0, 'text'])).toBe('"a \\" ] }"');
    // The last of two equal keys, as JSON.parse reads it.
    expect(jsonSourceAt(body, ['input'])).toBe('4');
    expect(jsonSourceAt(body, [])).toBe(body);
  });

  it('finds nothing where there is no such value', () => {
    expect(jsonSourceAt(body, ['content', 2])).toBeUndefined();
    expect(jsonSourceAt(body, ['missing'])).toBeUndefined();
    expect(jsonSourceAt(body, ['content', 'input'])).toBeUndefined();
    expect(jsonSourceAt(body, [0])).toBeUndefined();
    expect(jsonSourceAt('{}', ['a'])).toBeUndefined();
    expect(jsonSourceAt('[]', [0])).toBeUndefined();
  });
});
