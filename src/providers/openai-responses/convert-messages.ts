// Renders a neutral request as an OpenAI Responses API body (POST /v1/responses), stateless:
// `store: false`, every turn sent as input items, so that the log alone holds the conversation
// and replay rebuilds the request from it. Pure: the body depends only on the model id, the
// request and the settings named by the renderer version.

import type { ContentBlock, JsonObject, JsonValue, ToolCall } from '../../log/event.js';
import type { ModelMessage, ModelRequest, ToolChoice } from '../language-model.js';
import { ProviderError } from '../provider-error.js';
import { argumentsTextOf } from '../tool-arguments.js';

export interface OpenAIResponsesRenderSettings {
  /**
   * Ask for reasoning items with their encrypted content on every request (a reasoning model:
   * without it, a stateless request cannot send its reasoning back); otherwise only on requests
   * that set a reasoning effort.
   */
  readonly reasoningModel: boolean;
}

export function convertToOpenAIResponsesBody(modelId: string, request: ModelRequest, settings: OpenAIResponsesRenderSettings): JsonObject {
  const { params } = request;
  const body: JsonObject = { model: modelId, input: request.messages.flatMap(convertMessage), store: false };
  if (params.tools.length > 0) {
    body.tools = params.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: false,
    }));
    if (params.toolChoice !== undefined) body.tool_choice = toolChoiceOf(params.toolChoice);
    if (params.parallelToolCalls !== undefined) body.parallel_tool_calls = params.parallelToolCalls;
  }
  if (params.maxOutputTokens !== undefined) body.max_output_tokens = params.maxOutputTokens;
  if (params.temperature !== undefined) body.temperature = params.temperature;
  const effort = params.reasoning?.effort;
  // A summary of the reasoning, for the record; the reasoning itself arrives encrypted.
  if (effort !== undefined) body.reasoning = { effort, summary: 'auto' };
  if (settings.reasoningModel || effort !== undefined) body.include = ['reasoning.encrypted_content'];
  if (params.stream) body.stream = true;
  return body;
}

function toolChoiceOf(choice: ToolChoice): JsonValue {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.tool };
}

function convertMessage(message: ModelMessage): JsonObject[] {
  switch (message.role) {
    case 'system':
      return [{ type: 'message', role: 'system', content: message.content.map((block) => inputPart(block, 'system')) }];
    case 'user':
      return [{ type: 'message', role: 'user', content: message.content.map((block) => inputPart(block, 'user')) }];
    case 'assistant':
      return [
        // One message per text block: the API takes an assistant's text as a string.
        ...message.content.flatMap((block) => assistantText(block)),
        ...message.toolCalls.map(functionCall),
      ];
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.callId, output: toolOutput(message.content) }];
  }
}

function assistantText(block: ContentBlock): JsonObject[] {
  if (block.type === 'image') throw imageRefused('an assistant message');
  return block.text === '' ? [] : [{ type: 'message', role: 'assistant', content: block.text }];
}

function functionCall(call: ToolCall): JsonObject {
  return { type: 'function_call', call_id: call.callId, name: call.name, arguments: argumentsTextOf(call) };
}

function inputPart(block: ContentBlock, where: 'system' | 'user'): JsonObject {
  if (block.type === 'text') return { type: 'input_text', text: block.text };
  if (where === 'system') throw imageRefused('a system message');
  return imagePart(block);
}

function imagePart(block: Extract<ContentBlock, { type: 'image' }>): JsonObject {
  return { type: 'input_image', detail: 'auto', image_url: `data:${block.mediaType};base64,${block.data}` };
}

/** One text (or none) goes as a string, which every version of the API takes; more, or images, as parts. */
function toolOutput(content: readonly ContentBlock[]): JsonValue {
  const [only] = content;
  if (content.length === 0) return '';
  if (content.length === 1 && only?.type === 'text') return only.text;
  return content.map((block) => (block.type === 'text' ? { type: 'input_text', text: block.text } : imagePart(block)));
}

function imageRefused(where: string): ProviderError {
  return new ProviderError(
    'invalid-request',
    'openai-responses',
    `the OpenAI Responses API takes images only in user messages and tool results, found one in ${where}; move the image to a user message`,
  );
}
