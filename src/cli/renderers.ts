// Models that can render a recorded request again, for replay. Rendering is pure: these are
// never used to send anything, so they carry no key and point nowhere real.

import { ShadowlogError } from '../log/index.js';
import {
  createAnthropicMessagesModel,
  createOpenAIChatModel,
  createOpenAIResponsesModel,
  type LanguageModel,
  ScriptedModel,
} from '../providers/index.js';

const OFFLINE = {
  apiKey: 'not-used-for-replay',
  baseUrl: 'http://127.0.0.1:9/replay-renders-only',
  contextWindow: 1_000_000_000,
  defaultMaxOutputTokens: 1,
};

export class UnknownProviderError extends ShadowlogError {
  constructor(provider: string) {
    super(
      'UNKNOWN_PROVIDER',
      `the request was sent through provider ${JSON.stringify(provider)}, which this shadowlog cannot render; the providers are openai, openai-responses, anthropic and scripted`,
    );
  }
}

export function rendererFor(provider: string, modelId: string): LanguageModel {
  switch (provider) {
    case 'scripted':
      return new ScriptedModel({ modelId, replies: [] });
    case 'openai':
      return createOpenAIChatModel({ model: modelId, ...OFFLINE });
    case 'openai-responses':
      return createOpenAIResponsesModel({ model: modelId, ...OFFLINE });
    case 'anthropic':
      return createAnthropicMessagesModel({ model: modelId, ...OFFLINE });
    default:
      throw new UnknownProviderError(provider);
  }
}
