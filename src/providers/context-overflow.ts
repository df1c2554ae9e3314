// Recognising "the request is larger than the model's context window" from an error's status
// and message, as each provider words it (test/fixtures/providers/README.md lists them).

/** Substrings and patterns providers use for a context-window error, matched case-insensitively. */
export const CONTEXT_OVERFLOW_WORDINGS: readonly { readonly provider: string; readonly pattern: RegExp }[] = [
  { provider: 'OpenAI', pattern: /exceeds the context window/i },
  // OpenAI's older models, DeepSeek, OpenAI-compatible gateways and OpenRouter.
  { provider: 'OpenAI / DeepSeek / OpenRouter', pattern: /maximum context length is \d+/i },
  { provider: 'OpenAI (code in the message)', pattern: /context[ _]length[ _]exceeded/i },
  { provider: 'Anthropic', pattern: /prompt is too long/i },
  { provider: 'llama.cpp server', pattern: /exceeds the available context size/i },
  { provider: 'LM Studio', pattern: /greater than the context length/i },
  { provider: 'Mistral', pattern: /too large for model with \d+ maximum context length/i },
  { provider: 'Google Gemini', pattern: /input token count.*exceeds the maximum number of tokens allowed/i },
  { provider: 'xAI', pattern: /maximum prompt length is \d+/i },
  { provider: 'Groq', pattern: /reduce the length of the messages or completion/i },
];

/** The error code OpenAI (and compatible servers) put in the error object. */
const CONTEXT_OVERFLOW_CODE = 'context_length_exceeded';

/**
 * True when a rejected request failed because it does not fit the context window. Only a
 * 400 or 413 qualifies; Cerebras answers either with no body at all, so an empty message
 * with those statuses counts too.
 */
export function isContextOverflow(status: number, message: string | undefined, code?: string): boolean {
  if (status !== 400 && status !== 413) return false;
  if (code === CONTEXT_OVERFLOW_CODE) return true;
  if (message === undefined || message.trim() === '') return true;
  return CONTEXT_OVERFLOW_WORDINGS.some((wording) => wording.pattern.test(message));
}
