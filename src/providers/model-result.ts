// Assembling a ModelResult from what a parser collected, leaving out what the provider did
// not report (exactOptionalPropertyTypes: absent, never undefined).

import type { ContentBlock, ToolCall } from '../log/event.js';
import type { FinishReason, ModelResult, ModelUsage } from './language-model.js';

export interface CollectedResult {
  /** Text blocks in order; empty ones are dropped, as they carry nothing and some APIs refuse them. */
  readonly texts: readonly string[];
  readonly toolCalls: ToolCall[];
  readonly finishReason: FinishReason;
  readonly usage: ModelUsage | undefined;
  readonly responseModel: string | undefined;
  readonly responseId?: string | undefined;
}

export function createModelResult(collected: CollectedResult): ModelResult {
  const content: ContentBlock[] = collected.texts.filter((text) => text !== '').map((text) => ({ type: 'text', text }));
  return {
    content,
    toolCalls: collected.toolCalls,
    finishReason: collected.finishReason,
    ...(collected.usage === undefined ? {} : { usage: collected.usage }),
    ...(collected.responseModel === undefined ? {} : { responseModel: collected.responseModel }),
    ...(collected.responseId === undefined ? {} : { responseId: collected.responseId }),
  };
}
