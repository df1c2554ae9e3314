// A tool call's input as the log holds it (ToolCall.arguments): the prompt carries it parsed, the
// provider's answer as JSON text; both become the same JSON value, so that an answer and the next
// step's copy of it have one key.

import type { JsonValue } from '../log/event.js';

/** The prompt's parsed input as a JSON value (undefined becomes an empty object, as providers send it). */
export function parsedArguments(input: unknown): JsonValue {
  if (input === undefined) return {};
  if (typeof input === 'string') return argumentsOfText(input).arguments;
  return JSON.parse(JSON.stringify(input)) as JsonValue;
}

/** The answer's input text as a JSON value; text that is not JSON is kept as a string, with the text itself. */
export function argumentsOfText(text: string): { arguments: JsonValue; argumentsText?: string } {
  if (text.trim() === '') return { arguments: {} };
  try {
    const value = JSON.parse(text) as JsonValue;
    return { arguments: value };
  } catch {
    return { arguments: text, argumentsText: text };
  }
}
