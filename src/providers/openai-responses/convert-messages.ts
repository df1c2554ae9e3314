// Renders a neutral request as an OpenAI Responses API body (POST /v1/responses), stateless:
// `store: false`, every turn sent as input items, so that the log alone holds the conversation
// and replay rebuilds the request from it. Pure: the body depends only on the model id, the
// request and the settings named by the renderer version.

import type { CompactionBlock, ContentBlock, ImageBlock, JsonValue, ReasoningBlock, ToolCall } from '../../log/event.js';
import type { ModelMessage, ModelRequest, ToolChoice } from '../language-model.js';
import { memoized } from '../message-memo.js';
import { ProviderError } from '../provider-error.js';
import { argumentsTextOf } from '../tool-arguments.js';
import type {
  ResponsesBody,
  ResponsesCompaction,
  ResponsesFunctionCall,
  ResponsesInputImage,
  ResponsesInputPart,
  ResponsesItem,
  ResponsesReasoning,
  ResponsesToolChoice,
} from './wire-types.js';

/** The provider tag of reasoning that came from (and goes back to) the Responses API. */
export const RESPONSES_REASONING_PROVIDER = 'openai';

export interface OpenAIResponsesRenderSettings {
  /**
   * Ask for reasoning items with their encrypted content on every request (a reasoning model:
   * without it, a stateless request cannot send its reasoning back); otherwise only on requests
   * that set a reasoning effort.
   */
  readonly reasoningModel: boolean;
}

/** What a render keeps for the next (see message-memo.ts): each message's input items. */
export type OpenAIResponsesMemo = WeakMap<ModelMessage, ResponsesItem[]>;

export function openAIResponsesMemo(): OpenAIResponsesMemo {
  return new WeakMap();
}

export function convertToOpenAIResponsesBody(
  modelId: string,
  request: ModelRequest,
  settings: OpenAIResponsesRenderSettings,
  memo?: OpenAIResponsesMemo,
): ResponsesBody {
  const { params } = request;
  const input = request.messages.flatMap((message) => memoized(memo, message, () => convertMessage(message)));
  const body: ResponsesBody = { model: modelId, input, store: false };
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

function toolChoiceOf(choice: ToolChoice): ResponsesToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.tool };
}

function convertMessage(message: ModelMessage): ResponsesItem[] {
  switch (message.role) {
    case 'system':
      return [{ type: 'message', role: 'system', content: message.content.flatMap((block) => inputPart(block, 'system')) }];
    case 'user': {
      // A compaction goes as the items it came as, before the rest of the message.
      const compactions = message.content.filter(isOwnCompaction);
      const rest = message.content.filter((block) => !isOwnCompaction(block));
      const content = rest.flatMap((block) => inputPart(block, 'user'));
      const items = compactions.flatMap(compactionItems);
      return content.length === 0 && items.length > 0 ? items : [...items, { type: 'message', role: 'user', content }];
    }
    case 'assistant':
      return [
        // In the order they came: reasoning items, then one message per text block (the API
        // takes an assistant's text as a string), then the calls.
        ...message.content.flatMap((block) => assistantItem(block)),
        ...message.toolCalls.map(functionCall),
      ];
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.callId, output: toolOutput(message.content) }];
  }
}

/**
 * Reasoning goes back as the item it came as, only to OpenAI and only with its encrypted content
 * (a stateless request cannot name a stored item); another provider's reasoning, and the
 * provider's own tools, are not sent.
 */
function assistantItem(block: ContentBlock): ResponsesItem[] {
  switch (block.type) {
    case 'image':
      throw imageRefused('an assistant message');
    case 'text':
      return block.text === '' ? [] : [{ type: 'message', role: 'assistant', content: block.text }];
    case 'reasoning':
      return reasoningItem(block);
    case 'compaction':
      if (isOwnCompaction(block)) return compactionItems(block);
      return [{ type: 'message', role: 'assistant', content: foreignCompactionText(block) }];
    default:
      return [];
  }
}

function isOwnCompaction(block: ContentBlock): block is CompactionBlock {
  return block.type === 'compaction' && block.provider === OPENAI_RESPONSES_COMPACTION_PROVIDER && block.data !== undefined;
}

/** The provider tag of compactions that came from (and go back to) the Responses API. */
export const OPENAI_RESPONSES_COMPACTION_PROVIDER = 'openai-responses';

/**
 * The compacted window as the compact endpoint returned it: the user messages it keeps, then the
 * compaction item. The messages go back as input messages (the input takes no id or status on them).
 */
function compactionItems(block: CompactionBlock): ResponsesItem[] {
  const item: ResponsesCompaction = { type: 'compaction', encrypted_content: block.data as string };
  if (block.id !== undefined) item.id = block.id;
  return [...(block.items ?? []).map(keptMessage), item];
}

function keptMessage(item: JsonValue): ResponsesItem {
  const record = typeof item === 'object' && item !== null && !Array.isArray(item) ? item : {};
  const role = record.role === 'system' ? 'system' : 'user';
  const parts = Array.isArray(record.content) ? record.content : typeof record.content === 'string' ? [record.content] : [];
  const content = parts.flatMap((part): ResponsesInputPart[] => {
    if (typeof part === 'string') return [{ type: 'input_text', text: part }];
    if (typeof part !== 'object' || part === null || Array.isArray(part)) return [];
    if (typeof part.text === 'string') return [{ type: 'input_text', text: part.text }];
    if (part.type === 'input_image' && typeof part.image_url === 'string')
      return [{ type: 'input_image', detail: 'auto', image_url: part.image_url }];
    return [];
  });
  return { type: 'message', role, content };
}

/** Another provider's compaction: its readable summary; an opaque one only its provider can read. */
function foreignCompactionText(block: CompactionBlock): string {
  if (block.text !== undefined && block.text !== '') return block.text;
  throw new ProviderError(
    'invalid-request',
    'openai-responses',
    `the surface holds an opaque compaction by ${block.provider}, which only ${block.provider} can read; compact that range again with strategy summary before sending it to the Responses API`,
  );
}

function reasoningItem(block: ReasoningBlock): ResponsesReasoning[] {
  if (block.provider !== RESPONSES_REASONING_PROVIDER || block.id === undefined || block.data === undefined) return [];
  const item: ResponsesReasoning = {
    type: 'reasoning',
    id: block.id,
    summary: (block.summary ?? []).map((text) => ({ type: 'summary_text', text })),
    encrypted_content: block.data,
  };
  if (block.text !== undefined) item.content = [{ type: 'reasoning_text', text: block.text }];
  return [item];
}

function functionCall(call: ToolCall): ResponsesFunctionCall {
  return { type: 'function_call', call_id: call.callId, name: call.name, arguments: argumentsTextOf(call) };
}

/** Text and images; blocks a user or system message does not carry on this API are left out. */
function inputPart(block: ContentBlock, where: 'system' | 'user'): ResponsesInputPart[] {
  if (block.type === 'text') return [{ type: 'input_text', text: block.text }];
  if (block.type === 'compaction') return [{ type: 'input_text', text: foreignCompactionText(block) }];
  if (block.type !== 'image') return [];
  if (where === 'system') throw imageRefused('a system message');
  return [imagePart(block)];
}

function imagePart(block: ImageBlock): ResponsesInputImage {
  const url = block.data === undefined ? block.url : `data:${block.mediaType};base64,${block.data}`;
  return { type: 'input_image', detail: 'auto', image_url: url };
}

/** One text (or none) goes as a string, which every version of the API takes; more, or images, as parts. */
function toolOutput(content: readonly ContentBlock[]): string | ResponsesInputPart[] {
  const parts = content.flatMap((block) => inputPart(block, 'user'));
  const [only] = content;
  if (parts.length === 0) return '';
  if (parts.length === 1 && only?.type === 'text') return only.text;
  return parts;
}

function imageRefused(where: string): ProviderError {
  return new ProviderError(
    'invalid-request',
    'openai-responses',
    `the OpenAI Responses API takes images only in user messages and tool results, found one in ${where}; move the image to a user message`,
  );
}
