// The parameters Anthropic refuses on every call, refused when a harness is built.

import { ConfigError } from '../../log/errors.js';
import type { ModelParams } from '../language-model.js';
import { acceptsTemperature, type UserModelLimits } from '../model-limits.js';
import { checkToolChoice } from '../openai-chat/check-params.js';

/** The smallest thinking budget the API takes. */
const SMALLEST_BUDGET = 1_024;
/**
 * The largest max_tokens the official SDK sends without streaming: it refuses a request it
 * expects to take over ten minutes (an hour per 128,000 output tokens), since networks drop a
 * connection silent that long.
 */
export const LARGEST_UNSTREAMED_MAX_TOKENS = 21_333;
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];

export function checkAnthropicParams(
  modelId: string,
  params: ModelParams,
  defaultMaxTokens: number,
  user: UserModelLimits | undefined,
): void {
  const { temperature, reasoning } = params;
  if (temperature !== undefined && !acceptsTemperature(modelId, user)) {
    throw new ConfigError(
      'temperature',
      `model ${JSON.stringify(modelId)} takes no temperature (Claude from Opus 4.7 on refuses one), found ${temperature}; leave temperature out`,
    );
  }
  const maxTokens = params.maxOutputTokens ?? defaultMaxTokens;
  if (!params.stream && maxTokens > LARGEST_UNSTREAMED_MAX_TOKENS) {
    throw new ConfigError(
      'stream',
      `a request that does not stream may reserve at most ${LARGEST_UNSTREAMED_MAX_TOKENS} output tokens (the official SDK refuses more: the answer may take over ten minutes, and a connection silent that long is dropped), found ${maxTokens}; stream, or lower maxOutputTokens`,
    );
  }
  const budget = reasoning?.budgetTokens;
  if (budget !== undefined) {
    if (!Number.isSafeInteger(budget) || budget < SMALLEST_BUDGET || budget >= maxTokens) {
      throw new ConfigError(
        'reasoning.budgetTokens',
        `a thinking budget must be a whole number of at least ${SMALLEST_BUDGET} tokens and below max_tokens (${maxTokens}), found ${budget}; give a budget in that range, or more output tokens`,
      );
    }
    if (temperature !== undefined && temperature !== 1) {
      throw new ConfigError(
        'temperature',
        `with thinking on, Anthropic takes no temperature but 1, found ${temperature}; leave temperature out`,
      );
    }
    if (params.toolChoice === 'required' || typeof params.toolChoice === 'object') {
      throw new ConfigError(
        'toolChoice',
        'with thinking on, Anthropic lets the model choose whether to call a tool: toolChoice may be auto or none',
      );
    }
  }
  const effort = reasoning?.effort;
  if (effort !== undefined && !EFFORTS.includes(effort)) {
    throw new ConfigError('reasoning.effort', `Anthropic takes a reasoning effort of ${EFFORTS.join(', ')}, found ${effort}`);
  }
  checkToolChoice(params);
}
