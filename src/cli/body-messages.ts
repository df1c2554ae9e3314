// What the stored body of a proxied call off the surface held: its own messages, read from the
// bytes with the proxy's reader of the API it arrived as. Such a call's recorded surface is the
// session's, not what it sent, so its messages can come only from these bytes.

import type { ModelMessage } from '../providers/index.js';
import { PROTOCOLS, type ProxyMessage, UnreadableRequestError } from '../proxy/index.js';

export type BodyMessages =
  | {
      readonly messages: readonly ModelMessage[];
      /** Parts of the body the reader does not map to messages (they are in the bytes). */
      readonly notes: readonly string[];
    }
  | { readonly unreadable: string };

/** The messages of `body`, a request of the proxy's API `protocol` (proxy.protocol), or why they cannot be read. */
export function readBodyMessages(protocol: string | null, body: Uint8Array): BodyMessages {
  const api = PROTOCOLS.find((candidate) => candidate.name === protocol);
  if (api === undefined) return { unreadable: `the proxy recorded no API it knows for this body (${JSON.stringify(protocol)})` };
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { unreadable: `the body is not JSON (${(error as Error).message})` };
  }
  try {
    const request = api.readRequest(value);
    return { messages: request.messages.map(modelMessageOf), notes: request.notes };
  } catch (error) {
    if (error instanceof UnreadableRequestError) return { unreadable: error.message };
    throw error;
  }
}

function modelMessageOf(message: ProxyMessage): ModelMessage {
  switch (message.type) {
    case 'system/message':
      return { role: 'system', content: message.content };
    case 'user/message':
      return { role: 'user', content: message.content };
    case 'assistant/message':
      return {
        role: 'assistant',
        content: message.content,
        toolCalls: message.toolCalls.map((call) => ({ callId: call.id, name: call.name, arguments: call.arguments })),
      };
    case 'tool/result':
      return { role: 'tool', callId: message.callId, content: message.content, isError: message.error === true };
  }
}
