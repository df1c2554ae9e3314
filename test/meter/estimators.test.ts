// The estimators and tokenizers by name: chars4's exact values, the script-aware estimate's
// basic shape, and each offline tokenizer counting known strings, special-token text included.

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/log/errors.js';
import {
  chars4Estimator,
  createEstimator,
  ESTIMATOR_NAMES,
  type EstimatorName,
  heuristicEstimator,
  isEstimatorName,
  scriptAwareEstimator,
  TOKENIZER_NAMES,
} from '../../src/meter/index.js';

describe('chars4', () => {
  it('is ceil(UTF-16 length / 4) per text', () => {
    const count = chars4Estimator.countText;
    expect(count('')).toBe(0);
    expect(count('a')).toBe(1);
    expect(count('abcd')).toBe(1);
    expect(count('abcde')).toBe(2);
    expect(count('Hello, world!')).toBe(4);
    // UTF-16 units, not code points: an emoji is two, a CJK ideograph one.
    expect(count('😀')).toBe(1);
    expect(count('😀😀😀')).toBe(2);
    expect(count('上下文窗口快要装满')).toBe(3);
    expect(chars4Estimator).toMatchObject({ name: 'chars4', exact: false });
  });
});

describe('the script-aware estimator', () => {
  const count = scriptAwareEstimator.countText;

  it('counts nothing as nothing and whitespace as a token or so', () => {
    expect(count('')).toBe(0);
    expect(count(' ')).toBe(1);
    expect(count('\n\n')).toBe(1);
  });

  it('prices CJK per character, far above chars4', () => {
    const chinese = '当上下文窗口快要装满时系统并不会删除旧的消息';
    expect(count(chinese)).toBeGreaterThan(chinese.length * 0.6);
    expect(count(chinese)).toBeLessThan(chinese.length * 0.9);
    expect(count(chinese)).toBeGreaterThan(2 * chars4Estimator.countText(chinese));
  });

  it('prices common English words about one token each', () => {
    // Six one-token words; the fractional prices of the estimate round up to seven at most.
    expect(count('the cat sat on the mat')).toBeGreaterThanOrEqual(6);
    expect(count('the cat sat on the mat')).toBeLessThanOrEqual(7);
  });

  it('prices long runs of one symbol or space as a few tokens, not one per character', () => {
    expect(count('-'.repeat(80))).toBeLessThanOrEqual(2);
    expect(count(' '.repeat(1000))).toBeLessThanOrEqual(10);
  });

  it('never throws on odd input: lone surrogates, controls, special-token text', () => {
    for (const text of ['\ud800', 'a\udc00b', '\u0000\u0001', '<|endoftext|>', '\ufeff', '𠀀𠀁', '❤️👍🏽']) {
      expect(count(text)).toBeGreaterThan(0);
    }
  });

  it('is at hand synchronously', () => {
    expect(heuristicEstimator('script-aware')).toBe(scriptAwareEstimator);
    expect(heuristicEstimator('chars4')).toBe(chars4Estimator);
    expect(scriptAwareEstimator).toMatchObject({ name: 'script-aware', exact: false });
  });
});

describe('createEstimator', () => {
  it('knows every name and returns an estimator of that name', async () => {
    expect(ESTIMATOR_NAMES).toEqual(['chars4', 'script-aware', 'o200k_base', 'cl100k_base', 'llama3']);
    for (const name of ESTIMATOR_NAMES) {
      const estimator = await createEstimator(name);
      expect(estimator.name).toBe(name);
      expect(estimator.exact).toBe((TOKENIZER_NAMES as readonly string[]).includes(name));
    }
  });

  it('loads each tokenizer once and shares it', async () => {
    expect(await createEstimator('o200k_base')).toBe(await createEstimator('o200k_base'));
  });

  it('refuses an unknown name with a ConfigError that lists the known ones', async () => {
    expect(isEstimatorName('gpt2')).toBe(false);
    const failure = createEstimator('gpt2' as EstimatorName);
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(
      /expected an estimator name \(chars4, script-aware, o200k_base, cl100k_base, llama3\), found "gpt2"/,
    );
  });
});

describe('the offline tokenizers', () => {
  // Counts published with the tokenizers (OpenAI's cookbook for cl100k_base, the package's
  // README for Llama 3) or fixed by their vocabularies.
  const known: Record<'o200k_base' | 'cl100k_base' | 'llama3', Array<[string, number]>> = {
    o200k_base: [
      ['Hello world!', 3],
      ['hello world', 2],
      ['', 0],
    ],
    cl100k_base: [
      ['tiktoken is great!', 6],
      ['hello world', 2],
      ['', 0],
    ],
    llama3: [
      ['Hello world!', 3],
      ['', 0],
    ],
  };

  for (const name of TOKENIZER_NAMES) {
    it(`${name} counts known strings exactly`, async () => {
      const tokenizer = await createEstimator(name);
      for (const [text, tokens] of known[name]) expect(tokenizer.countText(text), JSON.stringify(text)).toBe(tokens);
    });

    it(`${name} counts special-token text inside text as text, without throwing`, async () => {
      const tokenizer = await createEstimator(name);
      for (const special of ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|eot_id|>', '<|begin_of_text|>', '<|start_header_id|>']) {
        // A special token would be one token; as text each is several.
        expect(tokenizer.countText(special), special).toBeGreaterThan(1);
        expect(tokenizer.countText(`before ${special} after`)).toBeGreaterThan(tokenizer.countText('before  after'));
      }
    });
  }

  it('o200k_base counts CJK text more cheaply than cl100k_base (its larger vocabulary)', async () => {
    const text = '当上下文窗口快要装满时，系统并不会删除旧的消息。';
    const o200k = await createEstimator('o200k_base');
    const cl100k = await createEstimator('cl100k_base');
    expect(o200k.countText(text)).toBeLessThan(cl100k.countText(text));
  });
});
