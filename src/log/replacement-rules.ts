// The rules of SPEC §3 that depend on what a replace shadows: the system head, the tool-result
// replacement (the pruner's), and tool calls kept with their results.

import { SurfaceOpError } from './errors.js';
import type { LogEvent, SurfaceType } from './event.js';
import { appliedDataOf } from './event-data.js';
import type { SurfaceNode } from './surface-fold.js';

/** Where the current surface holds each tool call and its result. */
export interface ToolCallPartners {
  resultOf(callId: string): SurfaceNode | undefined;
  callOf(callId: string): SurfaceNode | undefined;
}

/**
 * Checks a replace of `type` over the consecutive current nodes `shadowed`; `atHead` says the
 * first of them stands at surface position 0. Throws a SurfaceOpError naming the broken rule.
 */
export function checkReplacementRules(
  event: LogEvent,
  type: SurfaceType,
  shadowed: readonly SurfaceNode[],
  atHead: boolean,
  partners: ToolCallPartners,
): void {
  const seq = event.seq;
  const firstShadowed = shadowed[0] as SurfaceNode;
  if (atHead && firstShadowed.type === 'system/message') {
    if (shadowed.length !== 1 || type !== 'system/message') {
      throw new SurfaceOpError(
        'system-head',
        seq,
        'the system message at surface position 0 can be replaced only by a system/message over exactly that node',
      );
    }
    return;
  }
  if (type === 'tool/result') {
    const callId = appliedDataOf(event, 'tool/result').callId;
    if (
      shadowed.length !== 1 ||
      firstShadowed.type !== 'tool/result' ||
      appliedDataOf(firstShadowed.event, 'tool/result').callId !== callId
    ) {
      throw new SurfaceOpError(
        'tool-result-replacement',
        seq,
        `a tool/result replaces exactly one tool/result node of the same callId (${JSON.stringify(callId)})`,
      );
    }
    return;
  }
  if (type === 'assistant/message' && appliedDataOf(event, 'assistant/message').toolCalls.length > 0) {
    throw new SurfaceOpError(
      'splits-tool-pair',
      seq,
      'a replacing assistant/message must not carry tool calls: they would have no results on the surface',
    );
  }
  const inRange = new Set<SurfaceNode>(shadowed);
  for (const node of shadowed) {
    if (node.type === 'assistant/message') {
      for (const call of appliedDataOf(node.event, 'assistant/message').toolCalls) {
        const result = partners.resultOf(call.callId);
        if (result !== undefined && !inRange.has(result)) {
          throw new SurfaceOpError(
            'splits-tool-pair',
            seq,
            `the range would separate tool call ${JSON.stringify(call.callId)} at seq ${node.seq} from its result at seq ${result.seq}; widen or narrow the range to keep them together`,
          );
        }
      }
    } else if (node.type === 'tool/result') {
      const callNode = partners.callOf(appliedDataOf(node.event, 'tool/result').callId);
      if (callNode !== undefined && !inRange.has(callNode)) {
        throw new SurfaceOpError(
          'splits-tool-pair',
          seq,
          `the range would leave tool/result ${node.seq} without its call at seq ${callNode.seq}; widen or narrow the range to keep them together`,
        );
      }
    }
  }
}
