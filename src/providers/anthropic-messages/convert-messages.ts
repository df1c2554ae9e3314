// Renders a neutral request as an Anthropic Messages body. Pure: the body depends only on the
// model id, the request and the settings named by the renderer version.

import type { ContentBlock, JsonObject, JsonValue, ToolCall } from '../../log/event.js';
import type { ModelMessage, ModelRequest } from '../language-model.js';
import { ProviderError } from '../provider-error.js';

export interface AnthropicRenderSettings {
  /** max_tokens when the request names none: the API requires the field. */
  readonly defaultMaxTokens: number;
}

interface Turn {
  readonly role: 'user' | 'assistant';
  readonly content: JsonObject[];
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
    const turn = convertMessage(message);
    // The API refuses empty content and two turns in a row from one role: skip and merge.
    if (turn.content.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === turn.role) last.content.push(...turn.content);
    else turns.push(turn);
  }
  const body: JsonObject = {
    model: modelId,
    max_tokens: params.maxOutputTokens ?? settings.defaultMaxTokens,
    messages: turns.map((turn) => ({ role: turn.role, content: turn.content })),
  };
  if (systemTexts.length > 0) body.system = systemTexts.join('\n\n');
  if (params.tools.length > 0) {
    body.tools = params.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
  }
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.stream) body.stream = true;
  return body;
}

function convertMessage(message: Exclude<ModelMessage, { role: 'system' }>): Turn {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content.flatMap(convertBlock) };
    case 'assistant':
      return {
        role: 'assistant',
        content: [...message.content.flatMap((block) => convertBlock(rejectImage(block, 'assistant'))), ...message.toolCalls.map(toolUse)],
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

function toolUse(call: ToolCall): JsonObject {
  // The API takes only an object as input. Arguments that are not one were malformed text
  // from another provider's model; its tool result already tells the model so.
  const input: JsonValue =
    typeof call.arguments === 'object' && call.arguments !== null && !Array.isArray(call.arguments) ? call.arguments : {};
  return { type: 'tool_use', id: call.callId, name: call.name, input };
}

/**
 * Reasoning and server-tool blocks (log format 2) are not sent yet: sending them back to the
 * provider they came from is the reasoning work of this adapter, and no other provider takes them.
 */
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
