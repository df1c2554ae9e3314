// The money a call costs: a small, dated table of list prices per model family (US dollars per
// million tokens), and the two providers' prompt-cache rules. Anthropic bills a cache read at
// about a tenth of the input price and a cache write at 1.25 times it (the 5-minute cache);
// OpenAI caches automatically, bills a cached token at its cached-input price and writes for
// free. A user's file of the same shape overrides or extends the table.

import { PriceTableError } from './price-table-error.js';

export interface ModelPrice {
  /** Dollars per million uncached input tokens. */
  readonly input: number;
  /** Dollars per million input tokens read from the prompt cache. */
  readonly cachedInput: number;
  /** Dollars per million input tokens written to the cache (OpenAI: the input price; it writes without charge). */
  readonly cacheWrite: number;
  readonly output: number;
  /** How the provider caches: Anthropic bills writes, OpenAI does not. */
  readonly cacheRule: 'anthropic' | 'openai';
}

export interface PriceTable {
  /** When these prices were read; every report states it. */
  readonly date: string;
  readonly source: string;
  readonly models: Readonly<Record<string, ModelPrice>>;
}

const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  cachedInput: input / 10,
  cacheWrite: input * 1.25,
  output,
  cacheRule: 'anthropic',
});
const openai = (input: number, cachedInput: number, output: number): ModelPrice => ({
  input,
  cachedInput,
  cacheWrite: input,
  output,
  cacheRule: 'openai',
});

/**
 * List prices by family prefix: the longest prefix followed by nothing, a date or a tag, never by
 * another version number (claude-opus-4-6 is not claude-opus-4, gpt-5.2 is not gpt-5: a model
 * the table does not list is unpriced, not priced as an older one).
 */
export const BUILT_IN_PRICES: PriceTable = {
  date: '2026-02-28',
  source:
    "the providers' published list prices (anthropic.com/pricing, openai.com/api/pricing), standard tier, 5-minute cache; Claude 4.6 and GPT-5.1 to 5.3 added in February 2026",
  models: {
    'claude-opus-4': anthropic(15, 75),
    'claude-opus-4-1': anthropic(15, 75),
    'claude-opus-4-5': anthropic(5, 25),
    'claude-opus-4-6': anthropic(5, 25),
    'claude-sonnet-4': anthropic(3, 15),
    'claude-sonnet-4-5': anthropic(3, 15),
    'claude-sonnet-4-6': anthropic(3, 15),
    'claude-3-7-sonnet': anthropic(3, 15),
    'claude-haiku-4-5': anthropic(1, 5),
    'claude-3-5-haiku': anthropic(0.8, 4),
    'gpt-5': openai(1.25, 0.125, 10),
    'gpt-5-mini': openai(0.25, 0.025, 2),
    'gpt-5-nano': openai(0.05, 0.005, 0.4),
    'gpt-5.1': openai(1.25, 0.125, 10),
    'gpt-5.1-codex-mini': openai(0.25, 0.025, 2),
    'gpt-5.2': openai(1.75, 0.175, 14),
    'gpt-5.3-codex': openai(1.75, 0.175, 14),
    'gpt-4.1': openai(2, 0.5, 8),
    'gpt-4.1-mini': openai(0.4, 0.1, 1.6),
    'gpt-4.1-nano': openai(0.1, 0.025, 0.4),
    'gpt-4o': openai(2.5, 1.25, 10),
    'gpt-4o-mini': openai(0.15, 0.075, 0.6),
    o3: openai(2, 0.5, 8),
    'o4-mini': openai(1.1, 0.275, 4.4),
  },
};

/** The price of `model`, or undefined when the table does not know it (its cost is then left out, and said to be). */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  let best: string | undefined;
  for (const prefix of Object.keys(table.models)) {
    if (!model.startsWith(prefix)) continue;
    const rest = model.slice(prefix.length);
    // `-6` or `.2` after a family is another version of it; `-20250514`, `-codex`, `@…` are not.
    if (!/^(?:$|[-.:@])/.test(rest) || /^[-.]\d{1,2}(?!\d)/.test(rest)) continue;
    if (best === undefined || prefix.length > best.length) best = prefix;
  }
  return best === undefined ? undefined : table.models[best];
}

/** The table with a user's file laid over it: `{date?, source?, models: {prefix: {input, cachedInput, cacheWrite?, output, cacheRule}}}`. */
export function parsePriceTable(value: unknown, source: string, base: PriceTable = BUILT_IN_PRICES): PriceTable {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw priceError(source, 'the file', 'an object with "models"');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record))
    if (!['date', 'source', 'models'].includes(key)) throw priceError(source, key, 'only date, source and models');
  const models = record.models;
  if (typeof models !== 'object' || models === null || Array.isArray(models))
    throw priceError(source, 'models', 'an object of prices by model id or family prefix');
  const parsed: Record<string, ModelPrice> = { ...base.models };
  for (const [prefix, entry] of Object.entries(models as Record<string, unknown>))
    parsed[prefix] = parseEntry(entry, `models.${prefix}`, source);
  const date = record.date;
  if (date !== undefined && typeof date !== 'string') throw priceError(source, 'date', 'a string such as "2026-01-15"');
  return {
    date: date ?? `${base.date}, with ${source}`,
    source: typeof record.source === 'string' ? record.source : source,
    models: parsed,
  };
}

/**
 * The highest price a file may give: a million dollars per million tokens, a dollar a token. No
 * model's list price comes near it (the dearest are hundreds of dollars per million); a price
 * past it is a typo or a unit mistake, and a cost computed from one could reach Infinity.
 */
export const MAX_PRICE_PER_MILLION = 1_000_000;

function parseEntry(entry: unknown, path: string, source: string): ModelPrice {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw priceError(source, path, 'an object {input, cachedInput, output, cacheRule}');
  const record = entry as Record<string, unknown>;
  const allowed = ['input', 'cachedInput', 'cacheWrite', 'output', 'cacheRule'];
  for (const key of Object.keys(record))
    if (!allowed.includes(key)) throw priceError(source, `${path}.${key}`, `only ${allowed.join(', ')}`);
  const rule = record.cacheRule;
  if (rule !== 'anthropic' && rule !== 'openai') throw priceError(source, `${path}.cacheRule`, '"anthropic" or "openai"');
  const read = (key: string, fallback?: number): number => {
    // A cache-write price derived from the input price is checked through it.
    if (record[key] === undefined && fallback !== undefined) return fallback;
    const number = record[key];
    if (typeof number !== 'number' || !Number.isFinite(number) || number < 0)
      throw priceError(source, `${path}.${key}`, 'dollars per million tokens, a number ≥ 0');
    if (number > MAX_PRICE_PER_MILLION)
      throw priceError(
        source,
        `${path}.${key}`,
        `dollars per million tokens, at most ${MAX_PRICE_PER_MILLION.toLocaleString('en-US')} (a dollar a token, far above any list price), found ${number}`,
      );
    return number;
  };
  const input = read('input');
  return {
    input,
    cachedInput: read('cachedInput'),
    cacheWrite: read('cacheWrite', rule === 'anthropic' ? input * 1.25 : input),
    output: read('output'),
    cacheRule: rule,
  };
}

function priceError(source: string, key: string, expected: string): PriceTableError {
  return new PriceTableError(key, `${source}: ${key} must be ${expected}`);
}

/** The dollars of one call: `cached` of its `input` tokens read from the cache, the rest written to it (or plain input), and its output. */
export function callCost(price: ModelPrice, input: number, cached: number, output: number): number {
  const fresh = input - cached;
  const freshPrice = price.cacheRule === 'anthropic' ? price.cacheWrite : price.input;
  return (cached * price.cachedInput + fresh * freshPrice + output * price.output) / 1_000_000;
}

/** What a call cost, by the part of its usage each dollar paid for. */
export interface UsageCost {
  /** Input tokens neither read from nor written to the prompt cache. */
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  readonly total: number;
}

/**
 * The dollars of a call the provider reported: its input (whose cache reads and writes are parts
 * of it, as the log holds usage) and its output, each at its price.
 */
export function usageCost(
  price: ModelPrice,
  usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cacheReadTokens?: number;
    readonly cacheWriteTokens?: number;
  },
): UsageCost {
  const read = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const fresh = Math.max(0, usage.inputTokens - read - written);
  const input = (fresh * price.input) / 1_000_000;
  const cacheRead = (read * price.cachedInput) / 1_000_000;
  const cacheWrite = (written * price.cacheWrite) / 1_000_000;
  const output = (usage.outputTokens * price.output) / 1_000_000;
  return { input, cacheRead, cacheWrite, output, total: input + cacheRead + cacheWrite + output };
}
