// Noticing a server that cut the input to fit its context window without saying so (Ollama
// does, at its num_ctx, and answers as if nothing happened): it reports far fewer input tokens
// than were sent. The estimate is the spine's, so only a wide gap on a sizeable request counts.

import type { ModelWarning } from './language-model.js';

/** Below this many estimated tokens a request is too small for the estimate to be trusted this far. */
const SMALLEST_CHECKED = 1_024;
/** The share of the estimate a server must report; an estimator errs well within it. */
const REPORTED_SHARE = 0.75;

export function silentTruncationWarning(
  reportedInputTokens: number | undefined,
  estimatedInputTokens: number | undefined,
): ModelWarning | undefined {
  if (reportedInputTokens === undefined || estimatedInputTokens === undefined) return undefined;
  if (estimatedInputTokens < SMALLEST_CHECKED || reportedInputTokens >= estimatedInputTokens * REPORTED_SHARE) return undefined;
  return {
    code: 'SILENT_TRUNCATION',
    message: `the server counted ${reportedInputTokens} input tokens where about ${estimatedInputTokens} were sent: it may have cut the input to fit its context window without saying so (Ollama does, at its num_ctx), or counted only what it did not have cached; raise the server's context length (Ollama: num_ctx or OLLAMA_CONTEXT_LENGTH) or give shadowlog the window the server really holds (--context-window)`,
  };
}
