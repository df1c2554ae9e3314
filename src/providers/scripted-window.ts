// How the scripted model counts a request against its context window, the way a real server
// does: it prices the whole rendered request (the messages and the tool definitions, which
// servers put in the prompt) and refuses it when input + max_tokens exceeds the window, with
// the wording and error object OpenAI's chat completions API uses. The refusal goes through
// the adapters' own classification, so a caller sees the ProviderError a real server gets.

import { canonicalJson } from '../log/canonical-json.js';
import type { JsonObject } from '../log/event.js';
import { MESSAGE_OVERHEAD_TOKENS, priceOfBlock } from '../meter/measure.js';
import { scriptAwareEstimator } from '../meter/script-aware.js';
import { classifyHttpError, readErrorDetails } from './classify-http-error.js';
import type { ModelLimits, ModelMessage, ToolDefinition } from './language-model.js';
import type { ProviderError } from './provider-error.js';

/** What the scripted server counted of one request body. */
export interface RequestCount {
  /** The messages, priced per message and block as the meter prices surface nodes. */
  readonly messageTokens: number;
  /** The tool definitions: the canonical JSON of the `tools` array, priced as text. */
  readonly toolTokens: number;
  /** The input the server reports as usage: messages and tool definitions. */
  readonly inputTokens: number;
  /** The completion tokens the request reserves: its maxOutputTokens, else the model's default. */
  readonly reservedTokens: number;
}

/**
 * Counts a scripted request body with the script-aware estimator, the meter's default: each
 * message costs MESSAGE_OVERHEAD_TOKENS, each block BLOCK_OVERHEAD_TOKENS plus its text (an
 * image by its size), each tool call its name and the canonical JSON of its arguments; the
 * tool definitions cost the canonical JSON of the `tools` array.
 */
export function countScriptedRequest(body: JsonObject, limits: ModelLimits): RequestCount {
  const count = (text: string) => scriptAwareEstimator.countText(text);
  const messages = Array.isArray(body.messages) ? (body.messages as unknown as ModelMessage[]) : [];
  let messageTokens = 0;
  for (const message of messages) {
    messageTokens += MESSAGE_OVERHEAD_TOKENS;
    for (const block of message.content) {
      messageTokens += priceOfBlock(block, scriptAwareEstimator);
    }
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) messageTokens += count(call.name) + count(canonicalJson(call.arguments));
    }
  }
  const tools = Array.isArray(body.tools) ? (body.tools as unknown as ToolDefinition[]) : [];
  const toolTokens = tools.length === 0 ? 0 : count(canonicalJson(tools));
  const maxOutputTokens = body.maxOutputTokens;
  const reservedTokens = typeof maxOutputTokens === 'number' ? maxOutputTokens : limits.defaultMaxOutputTokens;
  return { messageTokens, toolTokens, inputTokens: messageTokens + toolTokens, reservedTokens };
}

/** The HTTP 400 body OpenAI's chat completions API sends for a request over the window (its older models' wording). */
export function contextWindowErrorBody(count: RequestCount, limits: ModelLimits): JsonObject {
  const requested = count.inputTokens + count.reservedTokens;
  return {
    error: {
      message:
        `This model's maximum context length is ${limits.contextWindow} tokens. However, you requested ${requested} tokens ` +
        `(${count.inputTokens} in the messages, ${count.reservedTokens} in the completion). ` +
        'Please reduce the length of the messages or completion.',
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  };
}

/**
 * The error a server answers a request with when input + reserved completion tokens exceed
 * the window, or undefined when it fits: the body of contextWindowErrorBody, read and
 * classified by the same code the HTTP adapters use.
 */
export function contextWindowRefusal(count: RequestCount, limits: ModelLimits, modelId: string): ProviderError | undefined {
  if (count.inputTokens + count.reservedTokens <= limits.contextWindow) return undefined;
  return classifyHttpError({
    provider: 'scripted',
    service: `the scripted model ${JSON.stringify(modelId)}`,
    status: 400,
    details: readErrorDetails(JSON.stringify(contextWindowErrorBody(count, limits))),
  });
}
