// Every context-window wording in test/fixtures/providers/README.md is recognised, and only
// for a rejected request (400 or 413; llama.cpp's own wordings with its 500 too), and a bare
// 400 with no body is not one.

import { describe, expect, it } from 'vitest';
import { isContextOverflow } from '../../src/providers/context-overflow.js';

const WORDINGS: readonly [provider: string, message: string, code?: string][] = [
  ['OpenAI', 'Your input exceeds the context window of this model. Please adjust your input and try again.', 'context_length_exceeded'],
  ['OpenAI, the wording alone', 'Your input exceeds the context window of this model. Please adjust your input and try again.'],
  [
    'OpenAI, older models',
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130012 tokens. Please reduce the length of the messages.",
    'context_length_exceeded',
  ],
  ['OpenAI, only the code', 'Invalid request.', 'context_length_exceeded'],
  ['Anthropic', 'prompt is too long: 208310 tokens > 200000 maximum'],
  [
    'DeepSeek',
    "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (139000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
  ],
  [
    'OpenRouter',
    'This endpoint\'s maximum context length is 163840 tokens. However, you requested about 171009 tokens (170009 of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
  ],
  ['llama.cpp server', 'the request exceeds the available context size, try increasing it'],
  [
    'LM Studio',
    'Trying to keep the first 9120 tokens when context the overflows. However, the model is loaded with context length of only 8192 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input. The number of tokens to keep from the initial prompt is greater than the context length.',
  ],
  ['Mistral', 'Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length'],
  ['Google Gemini', 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).'],
  ['xAI', "This model's maximum prompt length is 131072 but the request contains 150000 tokens."],
  ['Groq', 'Please reduce the length of the messages or completion.'],
  [
    'Anthropic, input and max_tokens together',
    'input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again',
  ],
  [
    'vLLM',
    'The decoder prompt (length 40000) is longer than the maximum model length of 32768. Make sure that `max_model_len` is no smaller than the number of text tokens.',
  ],
  ['llama.cpp server, older', 'Context size has been exceeded.'],
];

describe('isContextOverflow', () => {
  for (const [provider, message, code] of WORDINGS) {
    it(`recognises ${provider}`, () => {
      expect(isContextOverflow(400, message, code)).toBe(true);
      expect(isContextOverflow(413, message, code)).toBe(true);
    });
  }

  it('recognises Cerebras: 413 with no body', () => {
    expect(isContextOverflow(413, undefined)).toBe(true);
    expect(isContextOverflow(413, '')).toBe(true);
    expect(isContextOverflow(413, '   ')).toBe(true);
  });

  it('does not take a bare 400 with no body for an overflow: it says nothing about why', () => {
    expect(isContextOverflow(400, undefined)).toBe(false);
    expect(isContextOverflow(400, '')).toBe(false);
    expect(isContextOverflow(400, '  ')).toBe(false);
  });

  it("recognises llama.cpp's error type whatever the wording, and its wordings with the 500 it sends them with", () => {
    expect(isContextOverflow(400, 'anything at all', undefined, 'exceed_context_size_error')).toBe(true);
    expect(isContextOverflow(500, 'anything at all', undefined, 'exceed_context_size_error')).toBe(true);
    expect(isContextOverflow(500, 'Context size has been exceeded.')).toBe(true);
    expect(isContextOverflow(500, 'the request exceeds the available context size, try increasing it')).toBe(true);
    // Other providers' wordings do not come with a 500: a server error is not an overflow.
    expect(isContextOverflow(500, 'prompt is too long: 5 tokens > 4 maximum')).toBe(false);
    expect(isContextOverflow(500, "This model's maximum context length is 4096 tokens.")).toBe(false);
  });

  it('matches case-insensitively', () => {
    expect(isContextOverflow(400, 'PROMPT IS TOO LONG: 300000 TOKENS > 200000 MAXIMUM')).toBe(true);
  });

  it('refuses other statuses, even with the wording', () => {
    for (const status of [401, 404, 422, 429, 500, 529])
      expect(isContextOverflow(status, 'prompt is too long: 5 tokens > 4 maximum')).toBe(false);
    expect(isContextOverflow(500, undefined, 'context_length_exceeded')).toBe(false);
  });

  it('refuses other 400s', () => {
    expect(isContextOverflow(400, "Invalid value for 'temperature': must be between 0 and 2.", 'invalid_value')).toBe(false);
    expect(isContextOverflow(400, 'messages: roles must alternate between "user" and "assistant"')).toBe(false);
    expect(isContextOverflow(400, 'max_tokens: 300000 > 64000, which is the maximum allowed number of output tokens')).toBe(false);
  });
});
