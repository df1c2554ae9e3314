// What every request carries besides the surface: the tool definitions and the parameters, in
// the wire form the model's renderer gives them. A meter that priced only the messages would
// miss 1.6k–26k tokens per call on real sessions, and compact too late.

import { constants } from 'node:buffer';
import { canonicalJson } from '../log/canonical-json.js';
import type { LanguageModel, ModelParams } from '../providers/language-model.js';
import { ProviderError } from '../providers/provider-error.js';

/**
 * The request `model` renders for `params` with no messages, as canonical JSON: the fixed part
 * of each of its requests. Every renderer renders an empty message list for this (it is never
 * sent); its messages' own framing is priced per node by the meter.
 */
export function fixedRequestText(model: LanguageModel, params: ModelParams): string {
  try {
    return canonicalJson(model.render({ messages: [], params }).body);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ProviderError(
      'context-overflow',
      model.provider,
      `what every request carries besides its messages (tool definitions, parameters) is longer than a JavaScript string can be (${constants.MAX_STRING_LENGTH.toLocaleString('en-US')} characters), far beyond any context window; send fewer or smaller tool definitions`,
      { cause: error },
    );
  }
}

/** `fixedRequestText`, computed once, when first asked for (a step measures it, not the constructor). */
export function lazyFixedRequestText(model: LanguageModel, params: ModelParams): () => string {
  let text: string | undefined;
  return () => {
    text ??= fixedRequestText(model, params);
    return text;
  };
}
