// Rendering for OpenAI chat completions: every message kind, tools and params, explicitly.

import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { JsonObject } from '../../src/log/event.js';
import type { ModelMessage, ModelParams, ModelRequest } from '../../src/providers/language-model.js';
import { createOpenAIChatModel, type OpenAIChatModelOptions } from '../../src/providers/openai-chat/openai-chat-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { UnknownRendererVersionError } from '../../src/providers/renderer-version.js';

const model = (options: Partial<OpenAIChatModelOptions> = {}) =>
  createOpenAIChatModel({ model: 'gpt-4.1-mini', apiKey: 'sk-test', env: {}, ...options });

const NO_TOOLS: ModelParams = { tools: [], stream: false };
const request = (messages: ModelMessage[], params: Partial<ModelParams> = {}): ModelRequest => ({
  messages,
  params: { ...NO_TOOLS, ...params },
});

const CONVERSATION: ModelMessage[] = [
  { role: 'system', content: [{ type: 'text', text: 'You are terse.' }] },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    ],
  },
  {
    role: 'assistant',
    content: [{ type: 'text', text: 'Let me look.' }],
    toolCalls: [{ callId: 'call_1', name: 'lookup', arguments: { query: 'cat', limit: 3 } }],
  },
  { role: 'tool', callId: 'call_1', content: [{ type: 'text', text: 'a cat' }], isError: false },
  { role: 'assistant', content: [], toolCalls: [{ callId: 'call_2', name: 'fail', arguments: {} }] },
  { role: 'tool', callId: 'call_2', content: [{ type: 'text', text: 'boom' }], isError: true },
  { role: 'assistant', content: [{ type: 'text', text: 'It is a cat.' }], toolCalls: [] },
  { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
];

const LOOKUP = {
  name: 'lookup',
  description: 'Looks things up',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

describe('OpenAI chat render', () => {
  it('renders every message kind, tools and params', () => {
    const rendered = model().render(request(CONVERSATION, { tools: [LOOKUP], maxOutputTokens: 256, temperature: 0.2, stream: true }));
    expect(rendered.body).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'You are terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"limit":3,"query":"cat"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
        { role: 'assistant', tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'fail', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_2', content: 'boom' },
        { role: 'assistant', content: 'It is a cat.' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [{ type: 'function', function: LOOKUP }],
      max_completion_tokens: 256,
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('leaves out tools, the token budget, temperature and streaming when not asked for', () => {
    const rendered = model().render(request([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]));
    expect(rendered.body).toEqual({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('sends several text blocks as text parts and empty content as an empty string', () => {
    const texts = [
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ] as const;
    const rendered = model().render(
      request([
        { role: 'system', content: [...texts] },
        { role: 'user', content: [] },
        { role: 'assistant', content: [], toolCalls: [] },
        { role: 'user', content: [...texts] },
      ]),
    );
    const parts = [
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ];
    expect(rendered.body.messages).toEqual([
      { role: 'system', content: parts },
      { role: 'user', content: '' },
      { role: 'assistant', content: '' },
      { role: 'user', content: parts },
    ]);
  });

  it('serializes tool-call arguments canonically, and sends arguments that were not JSON verbatim', () => {
    const rendered = model().render(
      request([
        {
          role: 'assistant',
          content: [],
          toolCalls: [
            { callId: 'a', name: 'nested', arguments: { b: 1, a: { d: [2, { z: true, y: null }], c: 'é' } } },
            { callId: 'b', name: 'broken', arguments: '{"path": "/tmp' },
          ],
        },
      ]),
    );
    expect(rendered.body.messages).toEqual([
      {
        role: 'assistant',
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'nested', arguments: '{"a":{"c":"é","d":[2,{"y":null,"z":true}]},"b":1}' } },
          { id: 'b', type: 'function', function: { name: 'broken', arguments: '{"path": "/tmp' } },
        ],
      },
    ]);
  });

  it('sends the arguments as the provider wrote them (version 2), and renders earlier sessions as version 1 did', () => {
    const calls: ModelMessage = {
      role: 'assistant',
      content: [],
      toolCalls: [
        { callId: 'a', name: 'read', arguments: { path: 'a.ts', limit: 1 }, argumentsText: '{"path": "a.ts", "limit": 1}' },
        { callId: 'b', name: 'read', arguments: 'README.md', argumentsText: '"README.md"' },
        { callId: 'c', name: 'read', arguments: '{"n":1e400}', argumentsText: '{"n":1e400}' },
        { callId: 'd', name: 'now', arguments: {}, argumentsText: '' },
        { callId: 'e', name: 'read', arguments: { path: 'e.ts' }, providerCallId: 'call_0' },
        { callId: 'f', name: 'read', arguments: '{broken' },
      ],
    };
    const sent = (version?: string) => {
      const [assistant] = model().render(request([calls]), version).body.messages as JsonObject[];
      return ((assistant as JsonObject).tool_calls as JsonObject[]).map((call) => [call.id, (call.function as JsonObject).arguments]);
    };
    expect(sent()).toEqual([
      ['a', '{"path": "a.ts", "limit": 1}'],
      ['b', '"README.md"'],
      ['c', '{"n":1e400}'],
      ['d', ''],
      ['e', '{"path":"e.ts"}'],
      ['f', '{broken'],
    ]);
    expect(sent('openai-chat/1')).toEqual([
      ['a', '{"limit":1,"path":"a.ts"}'],
      ['b', 'README.md'],
      ['c', '{"n":1e400}'],
      ['d', '{}'],
      ['e', '{"path":"e.ts"}'],
      ['f', '{broken'],
    ]);
  });

  it("sends a tool result's images in a user message after the run of tool messages", () => {
    const image = { type: 'image', mediaType: 'image/jpeg', data: '/9j/4AAQ' } as const;
    const rendered = model().render(
      request([
        {
          role: 'assistant',
          content: [],
          toolCalls: [
            { callId: 'shot', name: 'screenshot', arguments: {} },
            { callId: 'ls', name: 'list', arguments: {} },
          ],
        },
        { role: 'tool', callId: 'shot', content: [{ type: 'text', text: 'captured' }, image], isError: false },
        { role: 'tool', callId: 'ls', content: [{ type: 'text', text: 'a.txt' }], isError: false },
        { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
      ]),
    );
    expect(rendered.body.messages).toEqual([
      expect.objectContaining({ role: 'assistant' }),
      { role: 'tool', tool_call_id: 'shot', content: 'captured' },
      { role: 'tool', tool_call_id: 'ls', content: 'a.txt' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image from the result of tool call shot:' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
        ],
      },
      { role: 'user', content: 'and now?' },
    ]);
  });

  it('refuses an image in a system message with a typed error', () => {
    const image = { type: 'image', mediaType: 'image/png', data: 'AA==' } as const;
    expect(() => model().render(request([{ role: 'system', content: [image] }]))).toThrow(ProviderError);
    expect(() => model().render(request([{ role: 'assistant', content: [image], toolCalls: [] }]))).toThrow(
      /only in user and tool messages/,
    );
  });

  it('is deterministic: the same request renders to the same bytes', () => {
    const first = model().render(request(CONVERSATION, { tools: [LOOKUP], stream: true }));
    const second = model().render(structuredClone(request(CONVERSATION, { tools: [LOOKUP], stream: true })));
    expect(canonicalJson(second.body)).toBe(canonicalJson(first.body));
  });

  it('names max_tokens in its renderer version, and renders a recorded version whatever it is configured with', () => {
    const budget = request([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], { maxOutputTokens: 64 });
    const modern = model();
    const legacy = model({ maxTokensField: 'max_tokens' });
    expect(modern.rendererVersion).toBe('openai-chat/2');
    expect(legacy.rendererVersion).toBe('openai-chat/2;max_tokens');
    expect(legacy.render(budget).body).toMatchObject({ max_tokens: 64 });
    expect(legacy.render(budget).body).not.toHaveProperty('max_completion_tokens');
    expect(modern.render(budget, 'openai-chat/2;max_tokens').body).toEqual(legacy.render(budget).body);
    expect(legacy.render(budget, 'openai-chat/2').body).toEqual(modern.render(budget).body);
    // Version 1, which earlier sessions recorded, still renders the field it named.
    expect(modern.render(budget, 'openai-chat/1;max_tokens').body).toEqual(legacy.render(budget).body);
    expect(legacy.render(budget, 'openai-chat/1').body).toEqual(modern.render(budget).body);
  });

  it('refuses a renderer version it does not know', () => {
    const hi = request([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
    expect(() => model().render(hi, 'openai-chat/3')).toThrow(UnknownRendererVersionError);
    expect(() => model().render(hi, 'anthropic-messages/1;default_max_tokens=10')).toThrow(
      'the openai-chat adapter cannot render version "anthropic-messages/1;default_max_tokens=10"; it renders openai-chat/2 or openai-chat/2;max_tokens or openai-chat/1 or openai-chat/1;max_tokens',
    );
    let thrown: unknown;
    try {
      model().render(hi, 'openai-chat/0');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'UNKNOWN_RENDERER_VERSION', rendererVersion: 'openai-chat/0', adapter: 'openai-chat' });
  });
});
