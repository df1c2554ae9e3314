// Stand-ins for the providers' own compactions, for the fake provider server: each computes its
// answer from the request it received, in the provider's wire format, as a `computed` response.
// They are not models and summarize nothing. Anthropic's stand-in answers with a compaction block
// whose summary says how many messages it replaced and nothing of what they said; the Responses
// stand-in keeps every user message of the input, as sent, then one compaction item whose
// encrypted_content is base64 of a note of the same kind. Their usage is the script-aware
// estimator's count of the request body (input) and of what they return (output), so that a
// benchmark prices them as the scripted model prices its calls.

import { scriptAwareEstimator } from '../../src/meter/script-aware.js';
import type { FakeResponse, RecordedRequest } from './fake-provider-server.js';

type Value = Record<string, unknown>;
const isObject = (value: unknown): value is Value => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The summary Anthropic's stand-in writes for `messages` messages. */
export function anthropicStandInSummary(messages: number): string {
  return `Compacted by the fake provider server, a stand-in for Anthropic's compaction: ${messages} messages were replaced; this summary keeps nothing of what they said.`;
}

/** Anthropic Messages with the compact_20260112 edit: the compaction block alone, stop_reason "compaction". */
export const anthropicCompactionStandIn: FakeResponse = {
  type: 'computed',
  respond: (request) => {
    const messages = arrayOf(request, 'messages');
    const summary = anthropicStandInSummary(messages.length);
    return {
      type: 'json',
      body: {
        id: `msg_fake_compaction_${messages.length}`,
        type: 'message',
        role: 'assistant',
        model: String(bodyOf(request).model),
        content: [{ type: 'compaction', content: summary }],
        stop_reason: 'compaction',
        // As the API reports a compaction: its own cost in usage.iterations, the top level empty.
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          iterations: [
            {
              type: 'compaction',
              input_tokens: scriptAwareEstimator.countText(request.body),
              output_tokens: scriptAwareEstimator.countText(summary),
            },
          ],
        },
      },
    };
  },
};

/** POST /v1/responses/compact: the input's user messages as they came, then one opaque compaction item. */
export const responsesCompactionStandIn: FakeResponse = {
  type: 'computed',
  respond: (request) => {
    const input = arrayOf(request, 'input');
    const kept = input.filter((item) => isObject(item) && (item.type ?? 'message') === 'message' && item.role === 'user');
    const note = `compacted by the fake provider server, a stand-in for the Responses API's compaction: ${input.length} input items, of which it keeps the ${kept.length} user messages`;
    const compaction = { type: 'compaction', id: `cmp_fake_${input.length}`, encrypted_content: Buffer.from(note).toString('base64') };
    const output = [...kept, compaction];
    const inputTokens = scriptAwareEstimator.countText(request.body);
    const outputTokens = scriptAwareEstimator.countText(JSON.stringify(output));
    return {
      type: 'json',
      body: {
        id: `resp_fake_compaction_${input.length}`,
        object: 'response.compaction',
        created_at: 1_764_590_000,
        output,
        usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      },
    };
  },
};

function bodyOf(request: RecordedRequest): Value {
  const body: unknown = JSON.parse(request.body);
  if (!isObject(body)) throw new Error(`the fake compaction was sent a body that is not a JSON object: ${request.body.slice(0, 80)}`);
  return body;
}

function arrayOf(request: RecordedRequest, key: string): unknown[] {
  const value = bodyOf(request)[key];
  if (!Array.isArray(value)) throw new Error(`the fake compaction was sent no ${key} array`);
  return value;
}
