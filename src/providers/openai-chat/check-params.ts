// The parameters chat completions refuses on every call, refused when a harness is built.

import { ConfigError } from '../../log/errors.js';
import type { ModelParams } from '../language-model.js';
import { acceptsTemperature, type UserModelLimits } from '../model-limits.js';

export function checkOpenAIChatParams(modelId: string, params: ModelParams, user: UserModelLimits | undefined): void {
  if (params.temperature !== undefined && !acceptsTemperature(modelId, user)) {
    throw new ConfigError(
      'temperature',
      `model ${JSON.stringify(modelId)} takes no temperature (it samples at its own default), found ${params.temperature}; leave temperature out`,
    );
  }
  if (params.reasoning?.budgetTokens !== undefined) {
    throw new ConfigError(
      'reasoning.budgetTokens',
      `chat completions take a reasoning effort, not a token budget (found budgetTokens ${params.reasoning.budgetTokens}); give reasoning.effort instead`,
    );
  }
  checkToolChoice(params);
}

/** A tool choice must name a tool the request offers. Shared by the adapters. */
export function checkToolChoice(params: ModelParams): void {
  const choice = params.toolChoice;
  if (typeof choice === 'object' && !params.tools.some((tool) => tool.name === choice.tool)) {
    throw new ConfigError(
      'toolChoice',
      `toolChoice names tool ${JSON.stringify(choice.tool)}, which is not one of the tools (${params.tools.map((tool) => tool.name).join(', ') || 'none'}); name one of them`,
    );
  }
}
