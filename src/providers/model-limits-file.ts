// Reading a user's model limits: a JSON object of entries by model id or family prefix, the
// shape of the built-in table, so that a model the table does not know (a local llama.cpp,
// vLLM or Ollama model, a newer release) can be used without options in code:
//
//   { "qwen3-coder": { "contextWindow": 32768, "defaultMaxOutputTokens": 4096 },
//     "claude-opus-5": { "contextWindow": 1000000, "defaultMaxOutputTokens": 128000, "acceptsTemperature": false } }

import { ConfigError } from '../log/errors.js';
import type { ModelLimitsEntry, UserModelLimits } from './model-limits.js';

const FIELDS = ['contextWindow', 'defaultMaxOutputTokens', 'acceptsTemperature'];

/** Parses the text of a limits file; `source` names it in errors and in what lookups report. */
export function parseModelLimits(text: string, source: string): UserModelLimits {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      'modelLimits',
      `${source} is not valid JSON (${(error as Error).message}); write an object of entries by model id`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(
      'modelLimits',
      `${source} must hold a JSON object of entries by model id or family prefix, found ${describe(value)}`,
    );
  }
  const entries: Record<string, ModelLimitsEntry> = {};
  for (const [prefix, entry] of Object.entries(value)) entries[prefix] = parseEntry(prefix, entry, source);
  return { source, entries };
}

function parseEntry(prefix: string, entry: unknown, source: string): ModelLimitsEntry {
  const at = `${source}: entry ${JSON.stringify(prefix)}`;
  if (prefix.trim() === '') throw new ConfigError('modelLimits', `${source}: an entry has an empty model id; name the model or its family`);
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new ConfigError('modelLimits', `${at} must be an object {contextWindow, defaultMaxOutputTokens}, found ${describe(entry)}`);
  }
  const fields = entry as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !FIELDS.includes(key));
  if (unknown.length > 0) {
    throw new ConfigError(
      'modelLimits',
      `${at} has unknown field ${unknown.map((key) => JSON.stringify(key)).join(', ')}; the fields are ${FIELDS.join(', ')}`,
    );
  }
  const count = (key: 'contextWindow' | 'defaultMaxOutputTokens'): number => {
    const number = fields[key];
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number <= 0) {
      throw new ConfigError('modelLimits', `${at}: ${key} must be a positive integer of tokens, found ${describe(number)}`);
    }
    return number;
  };
  const contextWindow = count('contextWindow');
  const defaultMaxOutputTokens = count('defaultMaxOutputTokens');
  if (defaultMaxOutputTokens > contextWindow) {
    throw new ConfigError(
      'modelLimits',
      `${at}: defaultMaxOutputTokens (${defaultMaxOutputTokens}) must not exceed contextWindow (${contextWindow})`,
    );
  }
  const accepts = fields.acceptsTemperature;
  if (accepts !== undefined && typeof accepts !== 'boolean') {
    throw new ConfigError('modelLimits', `${at}: acceptsTemperature must be true or false, found ${describe(accepts)}`);
  }
  return { contextWindow, defaultMaxOutputTokens, ...(accepts === undefined ? {} : { acceptsTemperature: accepts }) };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  return Array.isArray(value) ? 'an array' : JSON.stringify(value);
}
