// OpenAI's finish_reason in the provider-neutral vocabulary.

import type { FinishReason } from '../language-model.js';

export function mapOpenAIChatFinishReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    // The deprecated single-function form, still sent by some compatible servers.
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}
