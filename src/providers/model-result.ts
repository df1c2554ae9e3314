// Assembling a ModelResult from what a parser collected, leaving out what the provider did
// not report (exactOptionalPropertyTypes: absent, never undefined).

import type { ContentBlock, ToolCall } from '../log/event.js';
import type { FinishReason, ModelResult, ModelUsage } from './language-model.js';

export interface CollectedResult {
  /**
   * The answer's blocks in order: a string is a text block (an empty one is dropped, as it
   * carries nothing and some APIs refuse it); a block (reasoning) is kept as it is.
   */
  readonly content: ReadonlyArray<string | ContentBlock>;
  readonly toolCalls: ToolCall[];
  readonly finishReason: FinishReason;
  readonly usage: ModelUsage | undefined;
  readonly responseModel: string | undefined;
  readonly responseId?: string | undefined;
}

export function createModelResult(collected: CollectedResult): ModelResult {
  const content: ContentBlock[] = collected.content.flatMap((part): ContentBlock[] => {
    if (typeof part !== 'string') return [part];
    return part === '' ? [] : [{ type: 'text', text: part }];
  });
  return {
    content,
    toolCalls: collected.toolCalls,
    finishReason: collected.finishReason,
    ...(collected.usage === undefined ? {} : { usage: collected.usage }),
    ...(collected.responseModel === undefined ? {} : { responseModel: collected.responseModel }),
    ...(collected.responseId === undefined ? {} : { responseId: collected.responseId }),
  };
}
