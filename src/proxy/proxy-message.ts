// A message of a request the proxy received, in shadowlog's terms (the surface event it would
// become), and its key: what two requests must agree on for the proxy to call them the same
// message. The key leaves out what a client may change when it sends a message again without
// changing what the model is shown: prompt-cache markers, reasoning it does not send back, the
// form of the content (a string or one text block).

import { canonicalJson } from '../log/canonical-json.js';
import type { ContentBlock, JsonValue } from '../log/event.js';
import { nodeSha256Hex } from '../store/node-sha256.js';

export interface ProxyToolCall {
  /** The id the client sent (tool_use.id, tool_calls[].id, call_id). */
  readonly id: string;
  readonly name: string;
  readonly arguments: JsonValue;
  readonly argumentsText?: string;
}

export type ProxyMessage =
  | { readonly type: 'system/message' | 'user/message'; readonly content: ContentBlock[] }
  | { readonly type: 'assistant/message'; readonly content: ContentBlock[]; readonly toolCalls: readonly ProxyToolCall[] }
  | { readonly type: 'tool/result'; readonly callId: string; readonly content: ContentBlock[]; readonly error?: true };

/** What the proxy reads from a request body: the model, whether it streams, the messages in order. */
export interface ProxyRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly messages: readonly ProxyMessage[];
  /** Parts of the body the proxy could not map to messages (they stay in the stored body). */
  readonly notes: readonly string[];
  /** A conversation id the client sends (Anthropic metadata.user_id, Responses prompt_cache_key), if any. */
  readonly conversationKey?: string;
  /** Responses API: the answer this request continues on the server's side; its messages are only the new ones. */
  readonly previousResponseId?: string;
  /** Responses API: the server-side conversation the request adds to (`conversation`); its messages are only the new ones. */
  readonly serverConversation?: string;
  /** The tools offered, as a key (toolsKey): two requests of one run offer the same. Absent when none are. */
  readonly toolsKey?: string;
}

/** The key of a request's tool definitions, prompt-cache markers left out; undefined when it offers none. */
export function toolsKey(tools: unknown): string | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return nodeSha256Hex(canonicalJson(withoutCacheMarkers(tools) as JsonValue));
}

/** `{toolsKey}` for a request that offers tools, `{}` for one that does not. */
export function optionalTools(tools: unknown): { toolsKey?: string } {
  const key = toolsKey(tools);
  return key === undefined ? {} : { toolsKey: key };
}

function withoutCacheMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheMarkers);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'cache_control')
      .map(([key, inner]) => [key, withoutCacheMarkers(inner)]),
  );
}

/** The key of a message: equal keys, same message. */
export function messageKey(message: ProxyMessage): string {
  switch (message.type) {
    case 'assistant/message':
      return canonicalJson({
        type: message.type,
        text: textOf(message.content),
        calls: message.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
      });
    case 'tool/result':
      return canonicalJson({ type: message.type, callId: message.callId, content: keyBlocks(message.content) });
    default:
      return canonicalJson({ type: message.type, content: keyBlocks(message.content) });
  }
}

/** An assistant message's text: reasoning is left out, since many clients do not send it back. */
function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}

function keyBlocks(content: readonly ContentBlock[]): JsonValue[] {
  return content as unknown as JsonValue[];
}
