// Every body the adapters render is one the official SDKs' parameter types allow: the renderers
// are typed by the wire types of each adapter (wire-types.ts), without casts, and these checks,
// which the type check of `npm test` runs, hold those types to the SDKs' own. The SDKs are dev
// dependencies only: the adapters keep sending their own canonical bytes.

import type { MessageCreateParamsBase as BetaMessageCreateParamsBase } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions/completions';
import type { ResponseCompactParams, ResponseCreateParamsBase } from 'openai/resources/responses/responses';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { convertToAnthropicBody } from '../../src/providers/anthropic-messages/convert-messages.js';
import { renderAnthropicCompaction } from '../../src/providers/anthropic-messages/native-compaction.js';
import type { AnthropicBlock, AnthropicCompactionBlock, AnthropicMessagesBody } from '../../src/providers/anthropic-messages/wire-types.js';
import type { ModelRequest } from '../../src/providers/language-model.js';
import { convertToOpenAIChatBody } from '../../src/providers/openai-chat/convert-messages.js';
import type { ChatCompletionsBody } from '../../src/providers/openai-chat/wire-types.js';
import { convertToOpenAIResponsesBody } from '../../src/providers/openai-responses/convert-messages.js';
import { renderOpenAIResponsesCompaction } from '../../src/providers/openai-responses/native-compaction.js';
import type { ResponsesBody, ResponsesCompactBody } from '../../src/providers/openai-responses/wire-types.js';

/** A type error here, not a failed assertion, is what a body outside the SDK's types gives. */
function accepted<Allowed>(_body: Allowed): true {
  return true;
}

const EVERYTHING: ModelRequest = {
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', provider: 'anthropic', text: 'Hm.', signature: 'sig' },
        { type: 'reasoning', provider: 'openai', id: 'rs_1', summary: ['s'], data: 'enc' },
        { type: 'reasoning', provider: 'deepseek', text: 'Think.' },
        { type: 'text', text: 'Let me see.' },
      ],
      toolCalls: [{ callId: 'call_1', name: 'look', arguments: { at: 'x' } }],
    },
    {
      role: 'tool',
      callId: 'call_1',
      content: [
        { type: 'text', text: 'seen' },
        { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
      isError: true,
    },
    { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
  ],
  params: {
    tools: [{ name: 'look', description: 'Looks', parameters: { type: 'object', properties: { at: { type: 'string' } } } }],
    maxOutputTokens: 4_096,
    temperature: 0.5,
    stream: true,
    reasoning: { effort: 'high', budgetTokens: 2_048 },
    toolChoice: { tool: 'look' },
    parallelToolCalls: false,
  },
};

describe("the rendered bodies and the official SDKs' parameter types", () => {
  it('Anthropic Messages: every version renders a MessageCreateParams', () => {
    // Without a compaction (the beta's block and edit), a body is one the generally available API takes.
    type GeneralBody = Omit<AnthropicMessagesBody, 'messages' | 'context_management'> & {
      messages: Array<{ role: 'user' | 'assistant'; content: Exclude<AnthropicBlock, AnthropicCompactionBlock>[] }>;
    };
    expectTypeOf<GeneralBody>().toExtend<MessageCreateParamsBase>();
    // With one, it is one the compaction beta (compact-2026-01-12) takes.
    expectTypeOf<AnthropicMessagesBody>().toExtend<BetaMessageCreateParamsBase>();
    for (const version of [1, 2] as const) {
      const body = convertToAnthropicBody('claude-sonnet-4-5', EVERYTHING, { defaultMaxTokens: 64_000, version, promptCache: true });
      expect(accepted<BetaMessageCreateParamsBase>(body)).toBe(true);
    }
  });

  it('OpenAI chat completions: every setting renders a ChatCompletionCreateParams', () => {
    expectTypeOf<ChatCompletionsBody>().toExtend<ChatCompletionCreateParamsBase>();
    const settings = [
      { maxTokensField: 'max_completion_tokens', toolArguments: 'canonical' },
      { maxTokensField: 'max_tokens', toolArguments: 'object', reasoning: { provider: 'deepseek', fill: true } },
    ] as const;
    for (const setting of settings)
      expect(accepted<ChatCompletionCreateParamsBase>(convertToOpenAIChatBody('gpt-4.1', EVERYTHING, setting))).toBe(true);
  });

  it('OpenAI Responses: renders a ResponseCreateParams', () => {
    expectTypeOf<ResponsesBody>().toExtend<ResponseCreateParamsBase>();
    expect(accepted<ResponseCreateParamsBase>(convertToOpenAIResponsesBody('gpt-5', EVERYTHING, { reasoningModel: true }))).toBe(true);
  });

  it("the providers' compactions: the request, and the conversation that sends the compaction back", () => {
    // Each provider's compaction goes back only to it (another's opaque one is refused, not sent).
    const compactedBy = (block: ModelRequest['messages'][number]['content'][number]): ModelRequest => ({
      messages: [{ role: 'assistant', content: [block], toolCalls: [] }, ...EVERYTHING.messages.slice(1)],
      params: EVERYTHING.params,
    });
    const anthropicCompacted = compactedBy({
      type: 'compaction',
      provider: 'anthropic',
      text: 'Earlier: 42.',
      signature: 'sig',
      toolChanges: [],
    });
    const responsesCompacted = compactedBy({
      type: 'compaction',
      provider: 'openai-responses',
      id: 'cmp_1',
      data: 'gAAAA',
      items: [{ type: 'message', role: 'user', content: 'Look' }],
    });
    const settings = { defaultMaxTokens: 64_000, version: 2, promptCache: true } as const;
    expect(accepted<BetaMessageCreateParamsBase>(convertToAnthropicBody('claude-sonnet-4-6', anthropicCompacted, settings))).toBe(true);
    const version = 'anthropic-compact_20260112/1 anthropic-messages/2;default_max_tokens=64000';
    expect(
      accepted<BetaMessageCreateParamsBase>(
        renderAnthropicCompaction('claude-sonnet-4-6', EVERYTHING, version).body as AnthropicMessagesBody,
      ),
    ).toBe(true);
    expectTypeOf<ResponsesCompactBody>().toExtend<ResponseCompactParams>();
    expect(accepted<ResponseCreateParamsBase>(convertToOpenAIResponsesBody('gpt-5.4', responsesCompacted, { reasoningModel: true }))).toBe(
      true,
    );
    const compact = renderOpenAIResponsesCompaction('gpt-5.4', EVERYTHING, 'openai-responses-compact/1 openai-responses/1', () => ({
      reasoningModel: false,
    }));
    expect(accepted<ResponseCompactParams>(compact.body as ResponsesCompactBody)).toBe(true);
  });
});
