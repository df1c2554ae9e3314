// Renders a neutral request as an Anthropic Messages body. Pure: the body depends only on the
// model id, the request and the settings named by the renderer version (renderer-versions.ts).
// Version 1 is kept byte for byte, so that sessions it recorded replay to their digests.

import type { ContentBlock, JsonObject, JsonValue, ReasoningBlock, ToolCall } from '../../log/event.js';
import type { ModelMessage, ModelParams, ModelRequest } from '../language-model.js';
import { ProviderError } from '../provider-error.js';
import { placeCacheBreakpoints, type Turn } from './cache-breakpoints.js';
import { ANTHROPIC_REASONING_PROVIDER } from './parse-response.js';

export interface AnthropicRenderSettings {
  /** max_tokens when the request names none: the API requires the field. */
  readonly defaultMaxTokens: number;
  /**
   * 1: the system prompt as one string, reasoning not sent back, no cache breakpoints.
   * 2: the system prompt as text blocks; Anthropic's thinking sent back with its signature;
   * a request with nothing but a system prompt refused before it is sent.
   */
  readonly version: 1 | 2;
  /** Version 2: cache_control breakpoints on the stable prefix (cache-breakpoints.ts). */
  readonly promptCache: boolean;
}

export function convertToAnthropicBody(modelId: string, request: ModelRequest, settings: AnthropicRenderSettings): JsonObject {
  const { params } = request;
  const systemTexts: string[] = [];
  const turns: Turn[] = [];
  for (const message of request.messages) {
    if (message.role === 'system') {
      systemTexts.push(...systemTextsOf(message.content));
      continue;
    }
    const turn = convertMessage(message, settings.version);
    // The API refuses empty content and two turns in a row from one role: skip and merge.
    if (turn.content.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === turn.role) last.content.push(...turn.content);
    else turns.push(turn);
  }
  // An empty message list is the fixed part every request carries (priced, never sent).
  if (settings.version === 2 && turns.length === 0 && request.messages.length > 0) {
    throw new ProviderError(
      'invalid-request',
      'anthropic',
      'the request has a system prompt and no message to answer: Anthropic Messages need at least one user message; send one',
    );
  }
  const maxTokens = params.maxOutputTokens ?? settings.defaultMaxTokens;
  const body: JsonObject = { model: modelId, max_tokens: maxTokens, messages: turns.map((turn) => ({ role: turn.role, content: turn.content })) };
  const system = systemTexts.map((text): JsonObject => ({ type: 'text', text }));
  if (systemTexts.length > 0) body.system = settings.version === 1 ? systemTexts.join('\n\n') : system;
  const tools = params.tools.map((tool): JsonObject => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
  if (tools.length > 0) {
    body.tools = tools;
    const choice = toolChoiceOf(params);
    if (choice !== undefined) body.tool_choice = choice;
  }
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.reasoning?.budgetTokens !== undefined) body.thinking = { type: 'enabled', budget_tokens: params.reasoning.budgetTokens };
  if (params.reasoning?.effort !== undefined) body.output_config = { effort: params.reasoning.effort };
  if (params.stream) body.stream = true;
  if (settings.version === 2 && settings.promptCache) placeCacheBreakpoints({ tools, system, turns });
  return body;
}

/** tool_choice, and parallel calls turned off on it; none when neither is asked for. */
function toolChoiceOf(params: ModelParams): JsonObject | undefined {
  const { toolChoice, parallelToolCalls } = params;
  if (toolChoice === undefined && parallelToolCalls !== false) return undefined;
  const choice: JsonObject =
    toolChoice === undefined || toolChoice === 'auto'
      ? { type: 'auto' }
      : toolChoice === 'required'
        ? { type: 'any' }
        : toolChoice === 'none'
          ? { type: 'none' }
          : { type: 'tool', name: toolChoice.tool };
  if (parallelToolCalls === false && toolChoice !== 'none') choice.disable_parallel_tool_use = true;
  return choice;
}

function convertMessage(message: Exclude<ModelMessage, { role: 'system' }>, version: 1 | 2): Turn {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content.flatMap(convertBlock) };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...message.content.flatMap((block) => {
            if (block.type === 'reasoning') return version === 2 ? thinkingOf(block) : [];
            return convertBlock(rejectImage(block, 'assistant'));
          }),
          ...message.toolCalls.map(toolUse),
        ],
      };
    case 'tool': {
      const content = message.content.flatMap(convertBlock);
      const result: JsonObject = { type: 'tool_result', tool_use_id: message.callId };
      // An empty result is sent without content: an empty text block would be refused.
      if (content.length > 0) result.content = content;
      if (message.isError) result.is_error = true;
      return { role: 'user', content: [result] };
    }
  }
}

/**
 * Anthropic's own thinking goes back as it came, with its signature (the API requires it on a
 * tool-using turn and checks the signature); redacted thinking as its data. Another provider's
 * reasoning is not sent: Anthropic could not verify it.
 */
function thinkingOf(block: ReasoningBlock): JsonObject[] {
  if (block.provider !== ANTHROPIC_REASONING_PROVIDER) return [];
  if (block.signature !== undefined && block.signature !== '') return [{ type: 'thinking', thinking: block.text ?? '', signature: block.signature }];
  if (block.data !== undefined) return [{ type: 'redacted_thinking', data: block.data }];
  return [];
}

function toolUse(call: ToolCall): JsonObject {
  // The API takes only an object as input. Arguments that are not one were malformed text
  // from another provider's model; its tool result already tells the model so.
  const input: JsonValue =
    typeof call.arguments === 'object' && call.arguments !== null && !Array.isArray(call.arguments) ? call.arguments : {};
  return { type: 'tool_use', id: call.callId, name: call.name, input };
}

/** Server-tool blocks (log format 2) are not sent yet. */
function convertBlock(block: ContentBlock): JsonObject[] {
  if (block.type === 'image') {
    if (block.data === undefined) return [{ type: 'image', source: { type: 'url', url: block.url } }];
    return [{ type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } }];
  }
  if (block.type !== 'text') return [];
  return block.text === '' ? [] : [{ type: 'text', text: block.text }];
}

function systemTextsOf(blocks: readonly ContentBlock[]): string[] {
  return blocks.flatMap((block) => {
    const text = rejectImage(block, 'system');
    return text.type === 'text' && text.text !== '' ? [text.text] : [];
  });
}

function rejectImage(block: ContentBlock, role: 'system' | 'assistant'): ContentBlock {
  if (block.type !== 'image') return block;
  throw new ProviderError(
    'invalid-request',
    'anthropic',
    `Anthropic Messages accept images only in user messages and tool results, found one in a ${role} message; move the image to a user message`,
  );
}
