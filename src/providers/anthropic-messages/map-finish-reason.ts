// Anthropic's stop_reason in the provider-neutral vocabulary.

import type { FinishReason } from '../language-model.js';

export function mapAnthropicStopReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    // The answer filled what was left of the context window: cut short like max_tokens.
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}
