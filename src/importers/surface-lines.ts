// Which source line a surface node came from: its data's sourceLines name it.

import type { SurfaceNode } from '../log/surface-fold.js';

/** The first source line of the node's event, or undefined for an event that names none. */
export function sourceLineOf(node: SurfaceNode): number | undefined {
  const lines = (node.event.data as { sourceLines?: ReadonlyArray<{ line?: unknown }> }).sourceLines;
  const line = Array.isArray(lines) ? lines[0]?.line : undefined;
  return typeof line === 'number' ? line : undefined;
}
