// Who writes a session's summaries: the one given, the extractive summarizer, or a model (the
// one the policy names, else the session's), whose request is priced by the session's meter so
// that its max_tokens fits the model's window (summary-budget.ts).

import type { SurfaceMeter } from '../meter/measure.js';
import type { LanguageModel, ModelRequest } from '../providers/language-model.js';
import type { CompactionOptions } from './compaction-options.js';
import type { CompactionPolicyConfig } from './policy.js';
import { createExtractiveSummarizer, createModelSummarizer, type Summarizer } from './summarizer.js';

export function sessionSummarizer(
  options: CompactionOptions,
  choice: CompactionPolicyConfig['summarizer'],
  sessionModel: LanguageModel,
  meter: SurfaceMeter,
  /** The policy's calibration factor: provider tokens per estimated token. */
  factor: number,
): Summarizer {
  if (options.summarizer !== undefined) return options.summarizer;
  if (choice.kind === 'extractive') return createExtractiveSummarizer((text) => meter.estimator.countText(text));
  const model = choice.kind === 'model' && options.summarizerModel !== undefined ? options.summarizerModel : sessionModel;
  const requestTokens = (request: ModelRequest) =>
    Math.ceil(
      factor *
        request.messages.reduce(
          (sum, message) =>
            sum + meter.priceOfData(message.role === 'system' ? 'system/message' : 'user/message', { content: message.content }),
          0,
        ),
    );
  return createModelSummarizer(model, { requestTokens });
}
