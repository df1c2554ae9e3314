// The surface as the model sees it: each node rendered to a provider-neutral message.
// Versioned, because replay must render an old surface exactly as it was rendered then.

import type { LogEvent } from '../log/event.js';
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

/**
 * renderSurface with each node's message kept from one call to the next: a node's event never
 * changes, so its message is rendered once, when it comes onto the surface, and dropped when a
 * replacement takes it off. The same node gives the same message object on every call, so that
 * the adapters' and the request writer's caches (keyed by that object) hold across calls.
 */
export class SurfaceRenderCache {
  private rendered = new Map<number, { readonly event: LogEvent; readonly message: ModelMessage }>();

  render(nodes: readonly SurfaceNode[]): ModelMessage[] {
    const out: ModelMessage[] = new Array(nodes.length);
    for (let index = 0; index < nodes.length; index++) {
      const node = nodes[index] as SurfaceNode;
      let entry = this.rendered.get(node.seq);
      // A seq names one event for good; the check costs nothing and keeps a reused cache honest.
      if (entry === undefined || entry.event !== node.event) {
        entry = { event: node.event, message: renderNode(node) };
        this.rendered.set(node.seq, entry);
      }
      out[index] = entry.message;
    }
    // Nodes a replacement took off stay until they are a third of what is kept: then one pass drops them.
    if (this.rendered.size > nodes.length + (nodes.length >> 1) + 16) {
      const kept = new Map<number, { readonly event: LogEvent; readonly message: ModelMessage }>();
      for (const node of nodes) kept.set(node.seq, this.rendered.get(node.seq) as { event: LogEvent; message: ModelMessage });
      this.rendered = kept;
    }
    return out;
  }
}
