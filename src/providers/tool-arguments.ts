// Tool-call arguments as a provider wrote them, in the two fields the log keeps (SPEC §2):
// `arguments`, the JSON value, and `argumentsText`, the exact text, kept only when the value
// alone would not give that text back. The common canonical case costs nothing extra, and a
// renderer whose protocol carries the text (OpenAI's function.arguments) sends back byte for
// byte what the model wrote.

import { canonicalJsonAtDepth } from '../log/canonical-json.js';
import { InvalidEventError } from '../log/errors.js';
import type { JsonValue, ToolCall } from '../log/event.js';

/** How deep a call's arguments stand in an event envelope: data, toolCalls, the call, arguments. */
const ARGUMENTS_DEPTH = 4;

export type ToolCallArguments = Pick<ToolCall, 'arguments'> & { argumentsText?: string };

/**
 * Arguments that arrive as text: OpenAI's `function.arguments`, Anthropic's streamed
 * `partial_json`. `protocol` says how the text goes back to the provider: 'text' keeps it
 * whenever canonical JSON of the value would differ from it; 'object' (the provider is sent an
 * object, whose bytes canonical JSON decides) keeps it only when the value needs it. Empty
 * text means no arguments ({}), as providers send for a tool without parameters.
 */
export function argumentsFromText(text: string, protocol: 'text' | 'object'): ToolCallArguments {
  if (text.trim() === '') return protocol === 'text' ? { arguments: {}, argumentsText: text } : { arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { arguments: text, argumentsText: text };
  }
  return argumentsFromValue(value, () => text, protocol === 'text' ? text : undefined);
}

/**
 * Arguments that arrive as a value inside a parsed response (Anthropic's `input`; OpenAI's
 * `arguments` from a server that sends an object). `sourceText` gives the value's text in the
 * response, read only when the log cannot hold the value as it is (1e400, which JSON.parse
 * turned into Infinity); when it has none, the value is left as it is, and the spine records
 * the answer it cannot append as model/unrecorded-answer. `exactText`, when given, is kept
 * unless canonical JSON equals it.
 */
export function argumentsFromValue(value: unknown, sourceText: () => string | undefined, exactText?: string): ToolCallArguments {
  const canonical = canonicalOrReason(value);
  if (!canonical.ok) {
    const text = sourceText();
    return text === undefined ? { arguments: value as JsonValue } : { arguments: text, argumentsText: text };
  }
  const json = value as JsonValue;
  // A string value always comes with its text: a string alone is what earlier versions stored
  // for text that was not JSON, and readers take it so.
  if (typeof json === 'string') return { arguments: json, argumentsText: exactText ?? canonical.text };
  if (exactText !== undefined && exactText !== canonical.text) return { arguments: json, argumentsText: exactText };
  return { arguments: json };
}

/**
 * The text an OpenAI-style renderer sends as `function.arguments`: the provider's own text when
 * it was kept; else a string, which earlier versions stored for text that was not JSON,
 * verbatim; else canonical JSON, so that the same call always renders to the same bytes.
 */
export function argumentsTextOf(call: ToolCall): string {
  if (call.argumentsText !== undefined) return call.argumentsText;
  return typeof call.arguments === 'string' ? call.arguments : canonicalJsonAtDepth(call.arguments, ARGUMENTS_DEPTH);
}

export type ReadArguments = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly message: string };

/**
 * The arguments a tool is given: the JSON value the model wrote, or why there is none, in words
 * the model can read and act on (text that is not JSON; a value the log cannot hold as JSON).
 */
export function readToolArguments(call: ToolCall): ReadArguments {
  if (typeof call.arguments !== 'string') return { ok: true, value: call.arguments };
  const text = call.argumentsText;
  if (text === undefined) return { ok: false, message: `the arguments are not valid JSON: ${shorten(call.arguments)}` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: `the arguments are not valid JSON: ${shorten(text)}` };
  }
  if (value === call.arguments) return { ok: true, value };
  const canonical = canonicalOrReason(value);
  return {
    ok: false,
    message: `the arguments are JSON that cannot be read exactly (${canonical.ok ? 'not the value recorded' : canonical.reason}): ${shorten(text)}`,
  };
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Canonical JSON of a value where a call's arguments stand in an event, or why the log could not hold it. */
function canonicalOrReason(value: unknown): { ok: true; text: string } | { ok: false; reason: string } {
  try {
    return { ok: true, text: canonicalJsonAtDepth(value, ARGUMENTS_DEPTH) };
  } catch (error) {
    // An InvalidEventError: a number such as 1e400 parsed to Infinity, or nesting too deep.
    if (error instanceof InvalidEventError) return { ok: false, reason: error.message.replace(/^event: /, '') };
    throw error;
  }
}
