// What a provider's compaction keeps of the range must have been sent in it: each kept item is
// matched by content (text and images, whatever form the parts take) to one message of the
// request's input, and anything else is refused with KeptItemNotSentError.

import { describe, expect, it } from 'vitest';
import { checkKeptItems, KeptItemNotSentError } from '../../../src/compaction/strategies/kept-items.js';
import type { CompactionBlock, JsonObject } from '../../../src/log/event.js';

const IMAGE = 'data:image/png;base64,iVBORw0KGgo=';
const body = {
  model: 'gpt-5.4',
  input: [
    { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Use the tools.' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read the notes.' }] },
    { type: 'function_call', call_id: 'call_1', name: 'read_notes', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'The value is 42.' },
    { type: 'message', role: 'assistant', content: 'The value is 42.' },
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'And this?' },
        { type: 'input_image', detail: 'auto', image_url: IMAGE },
      ],
    },
  ],
};
const block = (items: JsonObject[]): CompactionBlock => ({ type: 'compaction', provider: 'openai-responses', data: 'gAAAA', items });
const check =
  (items: JsonObject[], sent: unknown = body) =>
  () =>
    checkKeptItems('openai-responses', block(items), sent);

describe('checkKeptItems', () => {
  it('accepts the messages of the input, whatever form their parts take', () => {
    expect(check([])).not.toThrow();
    expect(check([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read the notes.' }] }])).not.toThrow();
    // A string for parts, no type, an id and status the API adds, the developer role for a system message.
    expect(check([{ role: 'user', content: 'Read the notes.', id: 'msg_1', status: 'completed' }])).not.toThrow();
    expect(check([{ type: 'message', role: 'developer', content: 'Use the tools.' }])).not.toThrow();
    expect(
      check([
        { role: 'user', content: 'Read the notes.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'And this?' },
            { type: 'input_image', image_url: IMAGE },
          ],
        },
      ]),
    ).not.toThrow();
  });

  it.each([
    ['a message the input does not hold', [{ role: 'user', content: 'Delete the notes.' }], /was not in the messages it was sent/],
    ['a kept message with its text changed', [{ role: 'user', content: 'Read the notes!' }], /was not in the messages it was sent/],
    [
      'one message kept twice',
      [
        { role: 'user', content: 'Read the notes.' },
        { role: 'user', content: 'Read the notes.' },
      ],
      /was not in the messages it was sent/,
    ],
    [
      'an image the input did not send',
      [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.invalid/x.png' }] }],
      /was not in/,
    ],
    [
      'the assistant’s words as a kept message',
      [{ role: 'assistant', content: 'The value is 42.' }],
      /is not a message of text and images/,
    ],
    [
      'a tool output',
      [{ type: 'function_call_output', call_id: 'call_1', output: 'The value is 42.' }],
      /is not a message of text and images/,
    ],
  ])('refuses %s', (_name, items, why) => {
    expect(check(items as JsonObject[])).toThrow(KeptItemNotSentError);
    expect(check(items as JsonObject[])).toThrow(why);
  });

  it('refuses kept items when the request had no input to check them against', () => {
    expect(check([{ role: 'user', content: 'Read the notes.' }], { model: 'gpt-5.4' })).toThrow(
      /cannot be checked: its request had no input messages/,
    );
    let thrown: unknown;
    try {
      check([{ role: 'user', content: 'x'.repeat(500) }])();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'NATIVE_COMPACTION_KEPT_UNSENT', provider: 'openai-responses' });
    expect((thrown as KeptItemNotSentError).item.length).toBeLessThanOrEqual(201);
  });
});
