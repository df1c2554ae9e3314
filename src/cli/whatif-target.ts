// The model a what-if asks: the one named (--provider, --model, --base-url), else the recorded
// provider and model when shadowlog has an adapter for them. The demo's scripted agent is one:
// its calls can be asked again offline. Its window: --window, else the window recorded with the
// call (for the recorded model, through any provider), else the limits table's.

import type { LanguageModel } from '../providers/index.js';
import { knownModelLimits, ScriptedModel } from '../providers/index.js';
import { type AuditedCall, WhatIfProviderError, type WhatIfTarget } from '../whatif/index.js';
import { createChatModel } from './commands/chat.js';
import { DEMO_LIMITS, DEMO_MODEL_ID, demoAgentReply } from './demo/demo-agent.js';
import { UsageError } from './usage-error.js';

export interface TargetOptions {
  readonly provider?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly window?: number;
  readonly maxOutputTokens?: number;
  /** The flag that gives the window, named in the error for a model the limits table does not know (default --window). */
  readonly windowFlag?: string;
}

const ADAPTERS = ['openai', 'openai-responses', 'anthropic'] as const;

/** The output budget assumed for a model the limits table does not know, when nothing else gives one. */
const UNKNOWN_MODEL_OUTPUT = 4_096;

/** Resolves each call's target, one model per provider and model. */
export function whatifTargets(options: TargetOptions): (call: AuditedCall) => WhatIfTarget {
  if (options.provider !== undefined && options.model === undefined)
    throw new UsageError('--provider names the provider of the model to ask; give the model with --model too');
  const models = new Map<string, LanguageModel>();
  return (call) => {
    const provider = options.provider ?? call.data.provider;
    const modelId = options.model ?? call.data.model;
    // The same model keeps the window it ran in, whichever wire it is reached through.
    const window = options.window ?? (modelId === call.data.model ? call.data.contextWindow : undefined);
    const key = `${provider}/${modelId}/${window ?? ''}`;
    let model = models.get(key);
    if (model === undefined) {
      model = createModel(provider, modelId, window, call, options);
      models.set(key, model);
    }
    return { model, window: model.limits.contextWindow };
  };
}

/** Throws WhatIfProviderError unless shadowlog has an adapter for `provider` (`named` says which provider that is, in words). */
export function assertAdapter(provider: string, named = `provider ${provider}`): void {
  if ((ADAPTERS as readonly string[]).includes(provider)) return;
  throw new WhatIfProviderError(
    provider,
    `shadowlog has no adapter for ${named}; it speaks ${ADAPTERS.join(', ')} (OpenAI-compatible servers such as vLLM, llama.cpp and Ollama through openai and --base-url): ask one with --provider P --model M [--base-url URL]; nothing was sent`,
  );
}

function createModel(
  provider: string,
  modelId: string,
  window: number | undefined,
  call: AuditedCall,
  options: TargetOptions,
): LanguageModel {
  if (provider === 'scripted') {
    if (modelId !== DEMO_MODEL_ID || options.baseUrl !== undefined)
      throw new WhatIfProviderError(
        provider,
        `turn ${call.turn} step ${call.step} was answered by scripted/${modelId}, a script of the program that ran it, which shadowlog cannot ask again (only the demo's, scripted/${DEMO_MODEL_ID}); ask a model with --provider ${ADAPTERS.join('|')} --model M [--base-url URL]; nothing was sent`,
      );
    return new ScriptedModel({
      modelId,
      replies: demoAgentReply,
      limits: {
        contextWindow: window ?? DEMO_LIMITS.contextWindow,
        defaultMaxOutputTokens: options.maxOutputTokens ?? DEMO_LIMITS.defaultMaxOutputTokens,
      },
    });
  }
  if (!(ADAPTERS as readonly string[]).includes(provider))
    assertAdapter(
      provider,
      options.provider === undefined ? `the recorded provider of turn ${call.turn} step ${call.step}, ${provider}` : `provider ${provider}`,
    );
  const known = knownModelLimits(modelId);
  if (known === undefined && window === undefined)
    throw new UsageError(
      `the limits table does not know model ${modelId}, so its window is unknown: give it with ${options.windowFlag ?? '--window'} W${options.windowFlag === undefined ? ' (and --max-output-tokens N)' : ''}; nothing was sent`,
    );
  const recordedOutput = (call.data.params as { maxOutputTokens?: unknown } | undefined)?.maxOutputTokens;
  const output =
    options.maxOutputTokens ??
    (known === undefined
      ? typeof recordedOutput === 'number'
        ? recordedOutput
        : Math.min(UNKNOWN_MODEL_OUTPUT, window as number)
      : undefined);
  return createChatModel({
    provider,
    model: modelId,
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(window === undefined ? {} : { contextWindow: window }),
    ...(output === undefined ? {} : { maxOutputTokens: Math.min(output, window ?? output) }),
  });
}
