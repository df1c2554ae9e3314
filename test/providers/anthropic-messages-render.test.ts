// Rendering for Anthropic Messages renderer version 1: every message kind, merging, skipping,
// tools and params, exactly as version 1 always rendered them, so that the sessions it recorded
// replay to their digests. What version 2 (the current one) renders differently is in
// anthropic-messages-v2.test.ts.

import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import {
  type AnthropicMessagesModelOptions,
  createAnthropicMessagesModel,
} from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { ModelMessage, ModelParams, ModelRequest } from '../../src/providers/language-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { UnknownRendererVersionError } from '../../src/providers/renderer-version.js';

const current = (options: Partial<AnthropicMessagesModelOptions> = {}) =>
  createAnthropicMessagesModel({ model: 'claude-sonnet-4-5-20250929', apiKey: 'sk-ant-test', env: {}, ...options });

/** The adapter, rendering version 1 (of its own default budget) unless told otherwise. */
const model = (options: Partial<AnthropicMessagesModelOptions> = {}) => {
  const adapter = current(options);
  const v1 = adapter.rendererVersion.replace(/^anthropic-messages\/2;(default_max_tokens=\d+)$/, 'anthropic-messages/1;$1');
  return { ...adapter, render: (request: ModelRequest, version = v1) => adapter.render(request, version) };
};

const request = (messages: ModelMessage[], params: Partial<ModelParams> = {}): ModelRequest => ({
  messages,
  params: { tools: [], stream: false, ...params },
});

const text = (value: string) => ({ type: 'text', text: value }) as const;
const PNG = { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' } as const;
const LOOKUP = {
  name: 'lookup',
  description: 'Looks things up',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

describe('Anthropic Messages render', () => {
  it('renders every message kind, tools and params', () => {
    const rendered = model().render(
      request(
        [
          { role: 'system', content: [text('You are terse.')] },
          { role: 'user', content: [text('What is in this picture?'), PNG] },
          {
            role: 'assistant',
            content: [text('Let me look.')],
            toolCalls: [{ callId: 'toolu_1', name: 'lookup', arguments: { query: 'cat' } }],
          },
          { role: 'tool', callId: 'toolu_1', content: [text('a cat'), PNG], isError: false },
          { role: 'assistant', content: [], toolCalls: [{ callId: 'toolu_2', name: 'fail', arguments: {} }] },
          { role: 'tool', callId: 'toolu_2', content: [text('boom')], isError: true },
          { role: 'assistant', content: [text('It is a cat.')], toolCalls: [] },
          { role: 'user', content: [text('Thanks')] },
        ],
        { tools: [LOOKUP], maxOutputTokens: 256, temperature: 0.2, stream: true },
      ),
    );
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
    expect(rendered.body).toEqual({
      model: 'claude-sonnet-4-5-20250929',
      system: 'You are terse.',
      max_tokens: 256,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What is in this picture?' }, image] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { query: 'cat' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a cat' }, image] }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'fail', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'boom' }], is_error: true }],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'It is a cat.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
      ],
      tools: [{ name: 'lookup', description: 'Looks things up', input_schema: LOOKUP.parameters }],
      temperature: 0.2,
      stream: true,
    });
  });

  it("uses the model's default max_tokens, and leaves out system, tools, temperature and stream when not asked for", () => {
    const rendered = model().render(request([{ role: 'user', content: [text('Hi')] }]));
    expect(rendered.body).toEqual({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 64_000,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('joins the text of every system message into the top-level system', () => {
    const rendered = model().render(
      request([
        { role: 'system', content: [text('Rule one.'), text(''), text('Rule two.')] },
        { role: 'user', content: [text('Hi')] },
        { role: 'system', content: [text('Summary of earlier turns.')] },
      ]),
    );
    expect(rendered.body.system).toBe('Rule one.\n\nRule two.\n\nSummary of earlier turns.');
    expect(rendered.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });

  it('merges adjacent same-role messages, tool results and a following user message into one user turn', () => {
    const rendered = model().render(
      request([
        { role: 'user', content: [text('one')] },
        { role: 'user', content: [text('two')] },
        {
          role: 'assistant',
          content: [],
          toolCalls: [
            { callId: 'a', name: 'x', arguments: {} },
            { callId: 'b', name: 'y', arguments: {} },
          ],
        },
        { role: 'tool', callId: 'a', content: [text('A')], isError: false },
        { role: 'tool', callId: 'b', content: [], isError: false },
        { role: 'user', content: [text('go on')] },
      ]),
    );
    expect(rendered.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'x', input: {} },
          { type: 'tool_use', id: 'b', name: 'y', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'A' }] },
          { type: 'tool_result', tool_use_id: 'b' },
          { type: 'text', text: 'go on' },
        ],
      },
    ]);
  });

  it('skips empty text blocks, and messages left empty, merging the turns around them', () => {
    const rendered = model().render(
      request([
        { role: 'user', content: [text('Hi'), text('')] },
        { role: 'assistant', content: [text('Hello')], toolCalls: [] },
        { role: 'user', content: [text('')] },
        { role: 'assistant', content: [text(''), text('again')], toolCalls: [] },
      ]),
    );
    expect(rendered.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Hello' },
          { type: 'text', text: 'again' },
        ],
      },
    ]);
  });

  it('sends {} as the input of a call whose arguments are not an object', () => {
    const rendered = model().render(
      request([{ role: 'assistant', content: [], toolCalls: [{ callId: 'c', name: 'read', arguments: '{"path": "/tm' }] }]),
    );
    expect(rendered.body.messages).toEqual([{ role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'read', input: {} }] }]);
  });

  it('sends the input object whatever text it came as, {} for anything else, and the session-unique id', () => {
    const rendered = model().render(
      request([
        {
          role: 'assistant',
          content: [],
          toolCalls: [
            { callId: 'a', name: 'read', arguments: { path: 'a.ts' }, argumentsText: '{"path": "a.ts"}' },
            { callId: 'b', name: 'read', arguments: 'README.md', argumentsText: '"README.md"' },
            { callId: 'c', name: 'read', arguments: '{"n":1e400}', argumentsText: '{"n":1e400}' },
            { callId: 'shadowlog-call-4-4', name: 'read', arguments: [1], providerCallId: 'a' },
          ],
        },
      ]),
    );
    expect(rendered.body.messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'read', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'b', name: 'read', input: {} },
          { type: 'tool_use', id: 'c', name: 'read', input: {} },
          { type: 'tool_use', id: 'shadowlog-call-4-4', name: 'read', input: {} },
        ],
      },
    ]);
  });

  it('refuses an image in a system or assistant message with a typed error', () => {
    expect(() => model().render(request([{ role: 'system', content: [PNG] }]))).toThrow(ProviderError);
    expect(() => model().render(request([{ role: 'assistant', content: [PNG], toolCalls: [] }]))).toThrow(
      /only in user messages and tool results/,
    );
  });

  it('is deterministic: the same request renders to the same bytes', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: [text('Hi')] },
      { role: 'assistant', content: [], toolCalls: [{ callId: 'c', name: 'x', arguments: { b: 1, a: [1, { d: 2, c: 3 }] } }] },
    ];
    expect(canonicalJson(model().render(request(messages)).body)).toBe(
      canonicalJson(model().render(structuredClone(request(messages))).body),
    );
  });

  it('names the default budget in its renderer version, so replay renders the budget that was sent', () => {
    const hi = request([{ role: 'user', content: [text('Hi')] }]);
    const small = model({ defaultMaxOutputTokens: 1_024 });
    expect(current().rendererVersion).toBe('anthropic-messages/2;default_max_tokens=64000');
    expect(small.rendererVersion).toBe('anthropic-messages/2;default_max_tokens=1024');
    expect(current({ promptCache: false }).rendererVersion).toBe('anthropic-messages/2;default_max_tokens=64000;no-cache');
    expect(small.render(hi).body.max_tokens).toBe(1_024);
    expect(model().render(hi, small.rendererVersion).body).toEqual(small.render(hi, small.rendererVersion).body);
    expect(model().render(hi, 'anthropic-messages/1;default_max_tokens=1024').body).toEqual(small.render(hi).body);
    expect(model().render({ ...hi, params: { ...hi.params, maxOutputTokens: 10 } }, small.rendererVersion).body.max_tokens).toBe(10);
  });

  it('refuses a renderer version it does not know', () => {
    const hi = request([{ role: 'user', content: [text('Hi')] }]);
    for (const version of [
      'anthropic-messages/3;default_max_tokens=10',
      'anthropic-messages/1;default_max_tokens=10;no-cache',
      'anthropic-messages/2;default_max_tokens=10;cache',
      'anthropic-messages/1',
      'anthropic-messages/1;default_max_tokens=0',
      'openai-chat/1',
    ]) {
      expect(() => model().render(hi, version)).toThrow(UnknownRendererVersionError);
    }
    expect(() => model().render(hi, 'openai-chat/1')).toThrow(
      'the anthropic-messages adapter cannot render version "openai-chat/1"; it renders anthropic-messages/1;default_max_tokens=N or anthropic-messages/2;default_max_tokens=N[;no-cache]',
    );
  });
});
