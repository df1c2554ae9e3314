// The surface as the model sees it: each node rendered to a provider-neutral message.
// Versioned, because replay must render an old surface exactly as it was rendered then.

import { dataOf } from '../log/event-data.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { ModelMessage } from '../providers/language-model.js';
import { ReplayError } from './spine-errors.js';

export const SURFACE_RENDERER_VERSION = 'surface/1';

export function renderSurface(nodes: Iterable<SurfaceNode>, version: string = SURFACE_RENDERER_VERSION): ModelMessage[] {
  if (version !== SURFACE_RENDERER_VERSION) {
    throw new ReplayError(
      'renderer-unknown',
      `this shadowlog renders surfaces as ${SURFACE_RENDERER_VERSION}, and the request was rendered as ${version}; replay it with the shadowlog version that recorded it`,
    );
  }
  const messages: ModelMessage[] = [];
  for (const node of nodes) messages.push(renderNode(node));
  return messages;
}

function renderNode(node: SurfaceNode): ModelMessage {
  const event = node.event;
  switch (node.type) {
    case 'system/message':
      return { role: 'system', content: dataOf(event, 'system/message').content };
    case 'user/message':
      return { role: 'user', content: dataOf(event, 'user/message').content };
    case 'assistant/message': {
      const assistant = dataOf(event, 'assistant/message');
      return { role: 'assistant', content: assistant.content, toolCalls: assistant.toolCalls };
    }
    case 'tool/result': {
      const result = dataOf(event, 'tool/result');
      return { role: 'tool', callId: result.callId, content: result.content, isError: result.error !== undefined };
    }
  }
}
