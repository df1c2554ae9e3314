// The exact tokenizers that work offline (SPEC §10): o200k_base and cl100k_base from
// gpt-tokenizer, Llama 3 from llama3-tokenizer-js (its vocabulary ships in the package).
// Each is imported on first use, so the CLI and the library do not pay for loading a
// vocabulary (a few hundred milliseconds, tens of megabytes) unless it is asked for.

import { messageOf, ShadowlogError } from '../log/errors.js';
import type { TokenEstimator } from './token-estimator.js';

export type TokenizerName = 'o200k_base' | 'cl100k_base' | 'llama3';

export const TOKENIZER_NAMES: readonly TokenizerName[] = ['o200k_base', 'cl100k_base', 'llama3'];

/** A tokenizer whose package could not be loaded (not installed, or broken). */
export class TokenizerUnavailableError extends ShadowlogError {
  readonly tokenizer: TokenizerName;
  readonly packageName: string;
  constructor(tokenizer: TokenizerName, packageName: string, cause: unknown) {
    const reason = messageOf(cause);
    super(
      'TOKENIZER_UNAVAILABLE',
      `the ${tokenizer} tokenizer needs the package ${packageName}, which could not be loaded (${reason}); install it, or choose the script-aware estimator`,
      { cause },
    );
    this.tokenizer = tokenizer;
    this.packageName = packageName;
  }
}

// Special-token text (<|endoftext|>, <|im_start|>) inside a message is text the model reads
// as text: gpt-tokenizer would refuse it by default (disallowedSpecial: 'all'), so nothing is
// disallowed and nothing allowed, and it is counted piece by piece like any other text.
const SPECIAL_TOKENS_AS_TEXT = { disallowedSpecial: new Set<string>() };

// llama3-tokenizer-js turns <|eot_id|> and its other special tokens into single special
// tokens unless told otherwise; a pattern that never matches makes it read them as text. The
// option is the one its optimisticCount uses; the package is pinned, and a test checks it.
const LLAMA3_OPTIONS = { bos: false, eos: false, specialTokenRegex: /(?!)/g };

const LOADERS: Readonly<Record<TokenizerName, readonly [packageName: string, load: () => Promise<(text: string) => number>]>> = {
  o200k_base: [
    'gpt-tokenizer',
    async () => {
      const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
      return (text) => countTokens(text, SPECIAL_TOKENS_AS_TEXT);
    },
  ],
  cl100k_base: [
    'gpt-tokenizer',
    async () => {
      const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
      return (text) => countTokens(text, SPECIAL_TOKENS_AS_TEXT);
    },
  ],
  llama3: [
    'llama3-tokenizer-js',
    async () => {
      const { default: tokenizer } = await import('llama3-tokenizer-js');
      return (text) => (text === '' ? 0 : tokenizer.encode(text, LLAMA3_OPTIONS).length);
    },
  ],
};

const loaded = new Map<TokenizerName, Promise<TokenEstimator>>();

/** The tokenizer `name`, loaded on the first call and shared afterwards. */
export function loadTokenizer(name: TokenizerName): Promise<TokenEstimator> {
  let tokenizer = loaded.get(name);
  if (tokenizer === undefined) {
    const [packageName, load] = LOADERS[name];
    tokenizer = load().then(
      (countText): TokenEstimator => Object.freeze({ name, exact: true, countText }),
      (error: unknown) => {
        // A later call may succeed (after an install); a failed load is not remembered.
        loaded.delete(name);
        throw new TokenizerUnavailableError(name, packageName, error);
      },
    );
    loaded.set(name, tokenizer);
  }
  return tokenizer;
}
