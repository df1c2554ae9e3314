// A deterministic model for tests and the offline demo. It is built from a list of replies
// or a function of the request; a call nothing was scripted for throws. It renders and
// "sends" like a real adapter, so the spine and replay treat it like any other, and it keeps
// its window like a real server: a request whose input (messages and tool definitions, by
// the script-aware estimator) plus reserved completion tokens exceeds the context window is
// refused with the context-overflow ProviderError a real server's answer classifies as
// (scripted-window.ts has the rule). A refused request reaches no script.

import { setTimeout as sleep } from 'node:timers/promises';
import { canonicalJson } from '../log/canonical-json.js';
import { ShadowlogError } from '../log/errors.js';
import type { ContentBlock, JsonObject, JsonValue, ToolCall } from '../log/event.js';
import { scriptAwareEstimator } from '../meter/script-aware.js';
import type {
  FinishReason,
  LanguageModel,
  ModelLimits,
  ModelMessage,
  ModelRequest,
  ModelResult,
  RenderedRequest,
  SendOptions,
} from './language-model.js';
import { memoized } from './message-memo.js';
import { ProviderError } from './provider-error.js';
import { contextWindowRefusal, countScriptedRequest } from './scripted-window.js';

export const SCRIPTED_RENDERER_VERSION = 'scripted/1';

export interface ScriptedReply {
  readonly text?: string;
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments: JsonValue; readonly callId?: string }>;
  readonly finishReason?: FinishReason;
  /**
   * Overrides the usage the model reports. By default it reports what it counted: input = the
   * messages and tool definitions it was sent, output = its answer's text and tool calls, both
   * by the script-aware estimator.
   */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  /** Fail this call instead of answering. */
  readonly error?: ProviderError;
}

/** What a script sees of a call: the messages and params as sent, and the call's index from 0 among the calls that reached the script. */
export interface ScriptedCall {
  readonly messages: readonly ModelMessage[];
  readonly body: JsonObject;
  readonly index: number;
}

export interface ScriptedModelOptions {
  readonly modelId?: string;
  readonly limits?: ModelLimits;
  /** The replies in order, or a function that answers each call. */
  readonly replies: readonly ScriptedReply[] | ((call: ScriptedCall) => ScriptedReply);
  /** Wait this long before answering (the CLI's --model-latency). */
  readonly latencyMs?: number;
}

export class ScriptExhaustedError extends ShadowlogError {
  constructor(index: number, scripted: number) {
    super(
      'SCRIPT_EXHAUSTED',
      `the scripted model was called ${index + 1} times but has only ${scripted} replies; script a reply for every call`,
    );
  }
}

/** A model that answers from a script: for tests and the demo, no network. It records every request it is sent. */
export class ScriptedModel implements LanguageModel {
  readonly provider = 'scripted';
  readonly modelId: string;
  readonly rendererVersion = SCRIPTED_RENDERER_VERSION;
  readonly limits: ModelLimits;
  /** Every body it was sent, in order, refused ones included. */
  readonly calls: JsonObject[] = [];
  private readonly options: ScriptedModelOptions;
  /** Calls that fitted the window and reached the script: the index of the next reply. */
  private scripted = 0;
  /** Each message's and tool list's wire form, kept from one render to the next (providers/message-memo.ts). */
  private readonly wireForms = new WeakMap<object, JsonValue>();

  constructor(options: ScriptedModelOptions) {
    this.options = options;
    this.modelId = options.modelId ?? 'scripted';
    this.limits = options.limits ?? { contextWindow: 128_000, defaultMaxOutputTokens: 4_096 };
  }

  render(request: ModelRequest, rendererVersion: string = SCRIPTED_RENDERER_VERSION): RenderedRequest {
    if (rendererVersion !== SCRIPTED_RENDERER_VERSION) {
      throw new ProviderError(
        'invalid-request',
        this.provider,
        `the scripted model renders ${SCRIPTED_RENDERER_VERSION}, not ${rendererVersion}`,
      );
    }
    const params = request.params;
    const body: Record<string, JsonValue> = {
      model: this.modelId,
      // The messages and tools as plain JSON: what canonical JSON keeps of them.
      messages: request.messages.map((message) => memoized(this.wireForms, message, () => plainJson(message))),
      tools: memoized(this.wireForms, params.tools, () => plainJson(params.tools)),
      stream: params.stream,
    };
    if (params.maxOutputTokens !== undefined) body.maxOutputTokens = params.maxOutputTokens;
    if (params.temperature !== undefined) body.temperature = params.temperature;
    return { body };
  }

  async send(rendered: RenderedRequest, options: SendOptions = {}): Promise<ModelResult> {
    this.calls.push(rendered.body);
    if (this.options.latencyMs !== undefined && this.options.latencyMs > 0) {
      await sleep(this.options.latencyMs, undefined, options.signal === undefined ? {} : { signal: options.signal }).catch(
        (error: unknown) => {
          throw new ProviderError('aborted', this.provider, 'the call was aborted', { cause: error });
        },
      );
    }
    if (options.signal?.aborted === true) throw new ProviderError('aborted', this.provider, 'the call was aborted');
    const count = countScriptedRequest(rendered.body, this.limits);
    const refusal = contextWindowRefusal(count, this.limits, this.modelId);
    if (refusal !== undefined) throw refusal;
    const index = this.scripted++;
    const replies = this.options.replies;
    const reply =
      typeof replies === 'function'
        ? replies({ messages: rendered.body.messages as unknown as ModelMessage[], body: rendered.body, index })
        : replies[index];
    if (reply === undefined) throw new ScriptExhaustedError(index, (replies as readonly ScriptedReply[]).length);
    if (reply.error !== undefined) throw reply.error;

    const content: ContentBlock[] = reply.text === undefined || reply.text === '' ? [] : [{ type: 'text', text: reply.text }];
    if (reply.text !== undefined && reply.text !== '') options.onTextDelta?.(reply.text);
    const used = usedCallIds(rendered.body.messages);
    const toolCalls: ToolCall[] = (reply.toolCalls ?? []).map((call, position) => ({
      callId: call.callId ?? freshCallId(`call-${index + 1}-${position + 1}`, used),
      name: call.name,
      arguments: call.arguments,
    }));
    // Like a real server, it counts the whole request as input: messages, tool definitions, parameters.
    const usage = reply.usage ?? {
      inputTokens: count.inputTokens,
      outputTokens:
        scriptAwareEstimator.countText(reply.text ?? '') +
        (toolCalls.length === 0 ? 0 : scriptAwareEstimator.countText(canonicalJson(toolCalls))),
    };
    return {
      content,
      toolCalls,
      finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
      usage,
      responseModel: this.modelId,
    };
  }
}

function plainJson(value: unknown): JsonValue {
  return JSON.parse(canonicalJson(value)) as JsonValue;
}

/** The tool call ids of the messages a request carries. */
function usedCallIds(messages: JsonValue | undefined): Set<string> {
  const used = new Set<string>();
  if (!Array.isArray(messages)) return used;
  for (const message of messages as unknown as ModelMessage[]) {
    if (message.role === 'assistant') for (const call of message.toolCalls) used.add(call.callId);
  }
  return used;
}

/**
 * A deterministic id that no call on the surface uses: the numbering starts again with each
 * model instance, so a model continuing an earlier session's surface must not repeat an id.
 */
function freshCallId(candidate: string, used: ReadonlySet<string>): string {
  let id = candidate;
  for (let suffix = 2; used.has(id); suffix++) id = `${candidate}-${suffix}`;
  return id;
}
