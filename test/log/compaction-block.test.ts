// The compaction content block: format 2 only (a version-1 session refuses it, so that a reader
// of version 1 never misreads one), with text or data, and what a reader is shown of it.

import { describe, expect, it } from 'vitest';
import { blockPlaceholder, pricedText, readableText } from '../../src/log/content-block.js';
import { validateCoreData } from '../../src/log/event-data.js';

const readable = { type: 'compaction', provider: 'anthropic', text: 'Earlier: the value is 42.' };
const opaque = {
  type: 'compaction',
  provider: 'openai-responses',
  id: 'cmp_1',
  data: 'gAAAAB',
  items: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read the notes.' }] }],
};
const message = (block: object) => ({ content: [block], toolCalls: [], model: 'm' });

describe('the compaction block', () => {
  it('is taken in format 2 and refused in format 1', () => {
    expect(() => validateCoreData('assistant/message', message(readable), 3, 2)).not.toThrow();
    expect(() => validateCoreData('assistant/message', message(opaque), 3, 2)).not.toThrow();
    expect(() => validateCoreData('assistant/message', message(readable), 3, 1)).toThrow(/one of text, image \(format version 1/);
  });

  it('needs a readable summary or opaque data, and items that are objects', () => {
    expect(() => validateCoreData('assistant/message', message({ type: 'compaction', provider: 'anthropic' }), 3, 2)).toThrow(
      /text \(a readable summary\) or data \(an opaque one\)/,
    );
    expect(() => validateCoreData('assistant/message', message({ ...opaque, items: ['x'] }), 3, 2)).toThrow(/an object/);
    expect(() => validateCoreData('assistant/message', message({ ...readable, provider: '' }), 3, 2)).toThrow(
      expect.objectContaining({ code: 'INVALID_EVENT', field: 'data.content[0].provider', seq: 3 }),
    );
  });

  it('shows a reader who compacted, the summary or the size of what is opaque, and the messages it keeps', () => {
    expect(readableText(readable as never)).toBe('[compaction by anthropic] Earlier: the value is 42.');
    expect(readableText(opaque as never)).toBe(
      '[compaction by openai-responses cmp_1, 6 chars of opaque data; it keeps 1 user message: Read the notes.]',
    );
    expect(blockPlaceholder(readable as never)).toBe('Earlier: the value is 42.');
    expect(blockPlaceholder(opaque as never)).toBe('[openai-responses compaction]\nRead the notes.');
    expect(pricedText(opaque as never)).toContain('gAAAAB');
  });
});
