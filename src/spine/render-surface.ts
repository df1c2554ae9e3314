// The surface as the model sees it: each node rendered to a provider-neutral message.
// Versioned, because replay must render an old surface exactly as it was rendered then.

import type { AssistantMessageData, ContentBlock, ToolResultData } from '../log/event.js';
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
  const data = node.event.data;
  switch (node.type) {
    case 'system/message':
      return { role: 'system', content: data.content as unknown as ContentBlock[] };
    case 'user/message':
      return { role: 'user', content: data.content as unknown as ContentBlock[] };
    case 'assistant/message': {
      const assistant = data as unknown as AssistantMessageData;
      return { role: 'assistant', content: assistant.content, toolCalls: assistant.toolCalls };
    }
    case 'tool/result': {
      const result = data as unknown as ToolResultData;
      return { role: 'tool', callId: result.callId, content: result.content, isError: result.error !== undefined };
    }
  }
}
