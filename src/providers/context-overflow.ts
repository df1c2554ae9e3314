// Recognising "the request is larger than the model's context window" from an error's status
// and body, as each provider words it (test/fixtures/providers/README.md lists them).

/** The statuses a rejected request comes with; llama.cpp's server sends some of its wordings with 500. */
const REJECTED = [400, 413] as const;
const LLAMA_CPP = [400, 413, 500] as const;

export interface ContextOverflowWording {
  readonly provider: string;
  readonly pattern: RegExp;
  readonly statuses: readonly number[];
}

/** Substrings and patterns providers use for a context-window error, matched case-insensitively. */
export const CONTEXT_OVERFLOW_WORDINGS: readonly ContextOverflowWording[] = [
  { provider: 'OpenAI', pattern: /exceeds the context window/i, statuses: REJECTED },
  // OpenAI's older models, DeepSeek, vLLM, OpenAI-compatible gateways and OpenRouter.
  { provider: 'OpenAI / DeepSeek / vLLM / OpenRouter', pattern: /maximum context length is \d+/i, statuses: REJECTED },
  { provider: 'OpenAI (code in the message)', pattern: /context[ _]length[ _]exceeded/i, statuses: REJECTED },
  { provider: 'Anthropic', pattern: /prompt is too long/i, statuses: REJECTED },
  // "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again"
  { provider: 'Anthropic (with max_tokens)', pattern: /input length and `?max_tokens`? exceed context limit/i, statuses: REJECTED },
  // "The decoder prompt (length 40000) is longer than the maximum model length of 32768."
  { provider: 'vLLM', pattern: /prompt \(length \d+\) is longer than the maximum model length/i, statuses: REJECTED },
  { provider: 'llama.cpp server', pattern: /exceeds the available context size/i, statuses: LLAMA_CPP },
  { provider: 'llama.cpp server (older)', pattern: /context size has been exceeded/i, statuses: LLAMA_CPP },
  { provider: 'LM Studio', pattern: /greater than the context length/i, statuses: REJECTED },
  { provider: 'Mistral', pattern: /too large for model with \d+ maximum context length/i, statuses: REJECTED },
  { provider: 'Google Gemini', pattern: /input token count.*exceeds the maximum number of tokens allowed/i, statuses: REJECTED },
  { provider: 'xAI', pattern: /maximum prompt length is \d+/i, statuses: REJECTED },
  { provider: 'Groq', pattern: /reduce the length of the messages or completion/i, statuses: REJECTED },
];

/** The error code OpenAI (and compatible servers) put in the error object. */
const CONTEXT_OVERFLOW_CODE = 'context_length_exceeded';
/** The error type llama.cpp's server gives it, whatever the message and status (400, or 500 in some versions). */
const LLAMA_CPP_TYPE = 'exceed_context_size_error';

/**
 * True when a rejected request failed because it does not fit the context window: by the
 * error code or type the provider gives it, or by its wording with a status that provider
 * uses. A 413 with no message is one too (Cerebras sends it with no body); a 400 with none is
 * not, since a bare 400 says nothing about why.
 */
export function isContextOverflow(status: number, message: string | undefined, code?: string, type?: string): boolean {
  if (type === LLAMA_CPP_TYPE && (status === 400 || status === 500)) return true;
  if (!(REJECTED as readonly number[]).includes(status) && status !== 500) return false;
  if (code === CONTEXT_OVERFLOW_CODE && status !== 500) return true;
  if (message === undefined || message.trim() === '') return status === 413;
  return CONTEXT_OVERFLOW_WORDINGS.some((wording) => wording.statuses.includes(status) && wording.pattern.test(message));
}
