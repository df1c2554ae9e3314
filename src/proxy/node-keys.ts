// The key of a surface node the proxy did not write in this run (a session it reopened): its
// data read back as a proxy message, so that it keys as the request message it came from.

import type { ContentBlock, JsonValue } from '../log/event.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import { messageKey, type ProxyMessage } from './proxy-message.js';

export function keyOfNode(node: SurfaceNode): string {
  const data = node.event.data as Record<string, unknown>;
  const content = (data.content ?? []) as ContentBlock[];
  let message: ProxyMessage;
  switch (node.type) {
    case 'assistant/message': {
      const calls = (data.toolCalls ?? []) as Array<{ callId: string; providerCallId?: string; name: string; arguments: JsonValue }>;
      message = {
        type: node.type,
        content,
        toolCalls: calls.map((call) => ({ id: call.providerCallId ?? call.callId, name: call.name, arguments: call.arguments })),
      };
      break;
    }
    case 'tool/result':
      message = { type: node.type, callId: String(data.callId), content };
      break;
    default:
      message = { type: node.type, content };
  }
  return messageKey(message);
}
