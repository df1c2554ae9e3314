// Renders a neutral request as an Anthropic Messages body. Pure: the body depends only on the
// model id, the request and the settings named by the renderer version (renderer-versions.ts).
// Version 1 is kept byte for byte, so that sessions it recorded replay to their digests.

import type { CompactionBlock, ContentBlock, ImageBlock, JsonObject, JsonValue, ReasoningBlock, ToolCall } from '../../log/event.js';
import type { ModelMessage, ModelParams, ModelRequest, ToolDefinition } from '../language-model.js';
import { memoized, memoizedRun, type RunMemo } from '../message-memo.js';
import { ProviderError } from '../provider-error.js';
import { placeCacheBreakpoints, type Turn } from './cache-breakpoints.js';
import { ANTHROPIC_REASONING_PROVIDER } from './parse-response.js';
import type {
  AnthropicBlock,
  AnthropicCompactionBlock,
  AnthropicEffort,
  AnthropicImageBlock,
  AnthropicImageMediaType,
  AnthropicMessagesBody,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolChoice,
} from './wire-types.js';

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

/** What a render keeps for the next (see message-memo.ts): each message's turn, and each merged run's. */
export interface AnthropicMemo {
  readonly turns: WeakMap<ModelMessage, Turn>;
  readonly merged: WeakMap<object, RunMemo<Turn>>;
}

export function anthropicMemo(): AnthropicMemo {
  return { turns: new WeakMap(), merged: new WeakMap() };
}

export function convertToAnthropicBody(
  modelId: string,
  request: ModelRequest,
  settings: AnthropicRenderSettings,
  memo?: AnthropicMemo,
): AnthropicMessagesBody {
  const { params } = request;
  const systemTexts: string[] = [];
  const turns: Turn[] = [];
  // The API refuses empty content and two turns in a row from one role: skip and merge. A run
  // of one role's messages is merged into a new turn; the turns kept for one message stay as they are.
  const runMessages: ModelMessage[] = [];
  const runTurns: Turn[] = [];
  const endRun = () => {
    const [only] = runTurns;
    if (only === undefined) return;
    if (runTurns.length === 1) turns.push(only);
    else {
      const members = [...runTurns];
      const make = (): Turn => ({ role: only.role, content: members.flatMap((member) => member.content) });
      turns.push(memo === undefined ? make() : memoizedRun(memo.merged, runMessages, make));
    }
    runMessages.length = 0;
    runTurns.length = 0;
  };
  for (const message of request.messages) {
    if (message.role === 'system') {
      systemTexts.push(...systemTextsOf(message.content));
      continue;
    }
    const turn = memoized(memo?.turns, message, () => convertMessage(message, settings.version));
    if (turn.content.length === 0) continue;
    if (runTurns.length > 0 && (runTurns[0] as Turn).role !== turn.role) endRun();
    runMessages.push(message);
    runTurns.push(turn);
  }
  endRun();
  // An empty message list is the fixed part every request carries (priced, never sent).
  if (settings.version === 2 && turns.length === 0 && request.messages.length > 0) {
    throw new ProviderError(
      'invalid-request',
      'anthropic',
      'the request has a system prompt and no message to answer: Anthropic Messages need at least one user message; send one',
    );
  }
  const body: AnthropicMessagesBody = {
    model: modelId,
    max_tokens: params.maxOutputTokens ?? settings.defaultMaxTokens,
    messages: turns,
  };
  const system = systemTexts.map((text): AnthropicTextBlock => ({ type: 'text', text }));
  if (systemTexts.length > 0) body.system = settings.version === 1 ? systemTexts.join('\n\n') : system;
  const tools = params.tools.map(toolOf);
  if (tools.length > 0) {
    body.tools = tools;
    const choice = toolChoiceOf(params);
    if (choice !== undefined) body.tool_choice = choice;
  }
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.reasoning?.budgetTokens !== undefined) body.thinking = { type: 'enabled', budget_tokens: params.reasoning.budgetTokens };
  if (params.reasoning?.effort !== undefined) body.output_config = { effort: effortOf(params.reasoning.effort) };
  if (params.stream) body.stream = true;
  if (settings.version === 2 && settings.promptCache) body.messages = placeCacheBreakpoints({ tools, system, turns });
  return body;
}

function toolOf(tool: ToolDefinition): AnthropicTool {
  const schema = tool.parameters;
  // The API takes only an object schema; a tool definition is refused here rather than there.
  if (schema.type !== 'object') {
    throw new ProviderError(
      'invalid-request',
      'anthropic',
      `Anthropic Messages take a tool's parameters as a JSON Schema of type object, found type ${JSON.stringify(schema.type) ?? 'none'} for tool ${tool.name}; describe its arguments as an object`,
    );
  }
  return { name: tool.name, description: tool.description, input_schema: { ...schema, type: 'object' } };
}

/** tool_choice, and parallel calls turned off on it; none when neither is asked for. */
function toolChoiceOf(params: ModelParams): AnthropicToolChoice | undefined {
  const { toolChoice, parallelToolCalls } = params;
  if (toolChoice === undefined && parallelToolCalls !== false) return undefined;
  if (toolChoice === 'none') return { type: 'none' };
  const once = parallelToolCalls === false ? { disable_parallel_tool_use: true as const } : {};
  if (toolChoice === undefined || toolChoice === 'auto') return { type: 'auto', ...once };
  if (toolChoice === 'required') return { type: 'any', ...once };
  return { type: 'tool', name: toolChoice.tool, ...once };
}

const EFFORTS: readonly AnthropicEffort[] = ['low', 'medium', 'high', 'xhigh', 'max'];

function isAnthropicEffort(effort: string): effort is AnthropicEffort {
  return (EFFORTS as readonly string[]).includes(effort);
}

function effortOf(effort: string): AnthropicEffort {
  if (isAnthropicEffort(effort)) return effort;
  throw new ProviderError('invalid-request', 'anthropic', `Anthropic takes a reasoning effort of ${EFFORTS.join(', ')}, found ${effort}`);
}

function convertMessage(message: Exclude<ModelMessage, { role: 'system' }>, version: 1 | 2): Turn {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content.flatMap(convertBlock) };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...message.content.flatMap((block): AnthropicBlock[] => {
            if (block.type === 'reasoning') return version === 2 ? thinkingOf(block) : [];
            if (block.type === 'compaction') return compactionOf(block);
            return convertBlock(rejectImage(block, 'assistant'));
          }),
          ...message.toolCalls.map(toolUse),
        ],
      };
    case 'tool': {
      const content = message.content.flatMap(convertBlock);
      // An empty result is sent without content: an empty text block would be refused.
      return {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: message.callId,
            ...(content.length > 0 ? { content } : {}),
            ...(message.isError ? { is_error: true as const } : {}),
          },
        ],
      };
    }
  }
}

/**
 * Anthropic's own thinking goes back as it came, with its signature (the API requires it on a
 * tool-using turn and checks the signature); redacted thinking as its data. Another provider's
 * reasoning is not sent: Anthropic could not verify it.
 */
function thinkingOf(block: ReasoningBlock): AnthropicBlock[] {
  if (block.provider !== ANTHROPIC_REASONING_PROVIDER) return [];
  if (block.signature !== undefined && block.signature !== '')
    return [{ type: 'thinking', thinking: block.text ?? '', signature: block.signature }];
  if (block.data !== undefined) return [{ type: 'redacted_thinking', data: block.data }];
  return [];
}

function toolUse(call: ToolCall): AnthropicBlock {
  // The API takes only an object as input. Arguments that are not one were malformed text
  // from another provider's model; its tool result already tells the model so.
  const input: JsonObject = isObject(call.arguments) ? call.arguments : {};
  return { type: 'tool_use', id: call.callId, name: call.name, input };
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Anthropic's own compaction goes back as it came, exactly (the server checks it). Another
 * provider's is sent as its readable summary when it has one; an opaque one only its provider
 * can read, so the request is refused rather than sent without what it stands for.
 */
function compactionOf(block: CompactionBlock): Array<AnthropicCompactionBlock | AnthropicTextBlock> {
  if (block.provider === ANTHROPIC_REASONING_PROVIDER && block.text !== undefined) {
    const sent: AnthropicCompactionBlock = { type: 'compaction', content: block.text };
    if (block.data !== undefined) sent.encrypted_content = block.data;
    if (block.signature !== undefined) sent.signature = block.signature;
    if (block.toolChanges !== undefined) sent.tool_changes = [];
    return [sent];
  }
  return foreignCompactionText(block);
}

function foreignCompactionText(block: CompactionBlock): AnthropicTextBlock[] {
  if (block.text !== undefined && block.text !== '') return [{ type: 'text', text: block.text }];
  throw new ProviderError(
    'invalid-request',
    'anthropic',
    `the surface holds an opaque compaction by ${block.provider}, which only ${block.provider} can read; compact that range again with strategy summary before sending it to Anthropic`,
  );
}

/** Text and images; server-tool blocks (log format 2) are not sent yet. */
function convertBlock(block: ContentBlock): Array<AnthropicTextBlock | AnthropicImageBlock> {
  if (block.type === 'image') return [imageOf(block)];
  if (block.type === 'compaction') return foreignCompactionText(block);
  if (block.type !== 'text') return [];
  return block.text === '' ? [] : [{ type: 'text', text: block.text }];
}

const MEDIA_TYPES: readonly AnthropicImageMediaType[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function isAnthropicMediaType(mediaType: string): mediaType is AnthropicImageMediaType {
  return (MEDIA_TYPES as readonly string[]).includes(mediaType);
}

function imageOf(block: ImageBlock): AnthropicImageBlock {
  if (block.data === undefined) return { type: 'image', source: { type: 'url', url: block.url } };
  if (!isAnthropicMediaType(block.mediaType)) {
    throw new ProviderError(
      'invalid-request',
      'anthropic',
      `Anthropic Messages take images of type ${MEDIA_TYPES.join(', ')}, found ${block.mediaType}; convert the image to one of them`,
    );
  }
  return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } };
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
