// Renders a neutral request as an OpenAI chat-completions body. Pure: the body depends only
// on the model id, the request and the settings named by the renderer version.

import { canonicalJson } from '../../log/canonical-json.js';
import type { CompactionBlock, ContentBlock, ImageBlock, JsonValue, TextBlock, ToolCall } from '../../log/event.js';
import type { ModelMessage, ModelRequest, ToolChoice } from '../language-model.js';
import { memoized, memoizedRun, type RunMemo } from '../message-memo.js';
import { ProviderError } from '../provider-error.js';
import { argumentsTextOf } from '../tool-arguments.js';
import type {
  ChatAssistantMessage,
  ChatCompletionsBody,
  ChatImagePart,
  ChatMessage,
  ChatTextPart,
  ChatToolChoice,
  ChatUserMessage,
} from './wire-types.js';

/** The settings a renderer version names (see renderer-versions.ts). */
export interface OpenAIChatRenderSettings {
  /**
   * OpenAI wants `max_completion_tokens` (its reasoning models refuse `max_tokens`); DeepSeek,
   * Ollama and some older OpenAI-compatible servers know only `max_tokens`.
   */
  readonly maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /**
   * How a call's arguments go back: 'canonical' (version 1), canonical JSON of the value;
   * 'verbatim' (version 2), the text the provider wrote (`argumentsText`, when the log kept it);
   * 'object', that text when it is a JSON object, else {}, for servers that parse it.
   */
  readonly toolArguments: 'canonical' | 'verbatim' | 'object';
  /** Whose reasoning goes back as reasoning_content on tool-calling messages, and whether one without gets "". */
  readonly reasoning?: { readonly provider: string; readonly fill: boolean };
}

/** What a render keeps for the next (see message-memo.ts): each message's conversion, and each run's images. */
export interface OpenAIChatMemo {
  readonly messages: WeakMap<ModelMessage, ConvertedMessage>;
  readonly imageRuns: WeakMap<object, RunMemo<ChatUserMessage>>;
}

export function openAIChatMemo(): OpenAIChatMemo {
  return { messages: new WeakMap(), imageRuns: new WeakMap() };
}

export function convertToOpenAIChatBody(
  modelId: string,
  request: ModelRequest,
  settings: OpenAIChatRenderSettings,
  memo?: OpenAIChatMemo,
): ChatCompletionsBody {
  const { params } = request;
  const body: ChatCompletionsBody = { model: modelId, messages: convertMessages(request.messages, settings, memo) };
  if (params.tools.length > 0) {
    body.tools = params.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    // Both are refused without tools, and mean nothing then.
    if (params.toolChoice !== undefined) body.tool_choice = toolChoiceOf(params.toolChoice);
    if (params.parallelToolCalls !== undefined) body.parallel_tool_calls = params.parallelToolCalls;
  }
  if (params.maxOutputTokens !== undefined) {
    if (settings.maxTokensField === 'max_tokens') body.max_tokens = params.maxOutputTokens;
    else body.max_completion_tokens = params.maxOutputTokens;
  }
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.reasoning?.effort !== undefined) body.reasoning_effort = params.reasoning.effort;
  if (params.stream) {
    body.stream = true;
    // Without this a stream carries no token usage.
    body.stream_options = { include_usage: true };
  }
  return body;
}

function toolChoiceOf(choice: ToolChoice): ChatToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.tool } };
}

/** A message's wire form, and the parts its images add to the user message after its run of tool messages. */
interface ConvertedMessage {
  readonly message: ChatMessage;
  readonly images: ReadonlyArray<ChatTextPart | ChatImagePart>;
}

const NO_IMAGES: ReadonlyArray<ChatTextPart | ChatImagePart> = Object.freeze([]);

function convertMessages(messages: readonly ModelMessage[], settings: OpenAIChatRenderSettings, memo?: OpenAIChatMemo): ChatMessage[] {
  const out: ChatMessage[] = [];
  // Tool messages carry text only, so a tool result's images follow the run of tool
  // messages in a user message (a user message may not split an assistant's tool results).
  let withImages: ConvertedMessage[] = [];
  const flush = () => {
    const members = withImages;
    const make = (): ChatUserMessage => ({ role: 'user', content: members.flatMap((converted) => converted.images) });
    out.push(memo === undefined ? make() : memoizedRun(memo.imageRuns, members, make));
    withImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool' && withImages.length > 0) flush();
    const converted = memoized(memo?.messages, message, () => convertMessage(message, settings));
    out.push(converted.message);
    if (converted.images.length > 0) withImages.push(converted);
  }
  if (withImages.length > 0) flush();
  return out;
}

function convertMessage(message: ModelMessage, settings: OpenAIChatRenderSettings): ConvertedMessage {
  switch (message.role) {
    case 'system':
      return { message: { role: 'system', content: textContent(textsOf(message.content, 'system')) }, images: NO_IMAGES };
    case 'user':
      return { message: { role: 'user', content: userContent(message.content) }, images: NO_IMAGES };
    case 'assistant':
      return { message: assistantMessage(message.content, message.toolCalls, settings), images: NO_IMAGES };
    case 'tool': {
      const texts = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
      const images = message.content.filter((block): block is ImageBlock => block.type === 'image');
      return {
        message: { role: 'tool', tool_call_id: message.callId, content: textContent(texts) },
        images:
          images.length === 0
            ? NO_IMAGES
            : [{ type: 'text', text: `Image from the result of tool call ${message.callId}:` }, ...images.map(imagePart)],
      };
    }
  }
}

function assistantMessage(
  content: readonly ContentBlock[],
  toolCalls: readonly ToolCall[],
  settings: OpenAIChatRenderSettings,
): ChatAssistantMessage {
  const texts = textsOf(content, 'assistant');
  const message: ChatAssistantMessage = { role: 'assistant' };
  // With tool calls the content may be absent, and is, rather than an empty string.
  if (texts.length > 0 || toolCalls.length === 0) message.content = textContent(texts);
  const reasoning = settings.reasoning;
  // Only where the server needs it back: DeepSeek refuses a tool-calling turn without it in
  // thinking mode, and reads no reasoning elsewhere.
  if (reasoning !== undefined && toolCalls.length > 0) {
    const thought = content.flatMap((block) =>
      block.type === 'reasoning' && block.provider === reasoning.provider ? [block.text ?? ''] : [],
    );
    if (thought.length > 0 || reasoning.fill) message.reasoning_content = thought.join('');
  }
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call) => ({
      id: call.callId,
      type: 'function',
      function: { name: call.name, arguments: argumentsFor(call, settings.toolArguments) },
    }));
  }
  return message;
}

function argumentsFor(call: ToolCall, rendering: OpenAIChatRenderSettings['toolArguments']): string {
  if (rendering === 'canonical') return serializeArguments(call.arguments);
  const text = argumentsTextOf(call);
  return rendering === 'verbatim' || isJsonObjectText(text) ? text : '{}';
}

/** True when the text parses as a JSON object (the only arguments Ollama and vLLM take back). */
function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Version 1: arguments that are a string are what the model wrote when it was not valid JSON;
 * they go back verbatim. Anything else is canonical JSON, so that the same call always renders
 * to the same bytes.
 */
function serializeArguments(value: JsonValue): string {
  return typeof value === 'string' ? value : canonicalJson(value);
}

/** One text block is sent as a plain string, which every OpenAI-compatible server accepts. */
function textContent(texts: readonly string[]): string | ChatTextPart[] {
  if (texts.length === 0) return '';
  if (texts.length === 1) return texts[0] as string;
  return texts.map((text) => ({ type: 'text', text }));
}

/**
 * Reasoning and server-tool blocks (log format 2) are not sent yet: sending them back to the
 * provider they came from is the reasoning work of this adapter, and no other provider takes them.
 */
function sendable(blocks: readonly ContentBlock[]): Array<TextBlock | ImageBlock> {
  return blocks.flatMap((block): Array<TextBlock | ImageBlock> => {
    if (block.type === 'text' || block.type === 'image') return [block];
    return block.type === 'compaction' ? [compactionText(block)] : [];
  });
}

/** Another provider's compaction goes as its readable summary; an opaque one only its provider can read. */
function compactionText(block: CompactionBlock): TextBlock {
  if (block.text !== undefined && block.text !== '') return { type: 'text', text: block.text };
  throw new ProviderError(
    'invalid-request',
    'openai',
    `the surface holds an opaque compaction by ${block.provider}, which only ${block.provider} can read; compact that range again with strategy summary before sending it to a chat completions server`,
  );
}

function userContent(content: readonly ContentBlock[]): ChatUserMessage['content'] {
  const blocks = sendable(content);
  if (blocks.every((block) => block.type === 'text')) return textContent(blocks.map((block) => block.text));
  return blocks.map((block) => (block.type === 'text' ? { type: 'text', text: block.text } : imagePart(block)));
}

function imagePart(block: ImageBlock): ChatImagePart {
  return { type: 'image_url', image_url: { url: block.data === undefined ? block.url : `data:${block.mediaType};base64,${block.data}` } };
}

function textsOf(blocks: readonly ContentBlock[], role: 'system' | 'assistant'): string[] {
  return sendable(blocks).map((block) => {
    if (block.type === 'text') return block.text;
    throw new ProviderError(
      'invalid-request',
      'openai',
      `OpenAI chat completions accept images only in user and tool messages, found one in a ${role} message; move the image to a user message`,
    );
  });
}
