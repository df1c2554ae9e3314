// A Responses API answer's status in the provider-neutral vocabulary.

import type { FinishReason } from '../language-model.js';

/** `status` and incomplete_details.reason of the response; `calledTools` when its output holds function calls. */
export function mapOpenAIResponsesFinishReason(
  status: string | undefined,
  incompleteReason: string | undefined,
  calledTools: boolean,
): FinishReason {
  if (status === 'completed') return calledTools ? 'tool-calls' : 'stop';
  if (status === 'incomplete') {
    if (incompleteReason === 'max_output_tokens') return 'length';
    if (incompleteReason === 'content_filter') return 'content-filter';
  }
  return 'other';
}
