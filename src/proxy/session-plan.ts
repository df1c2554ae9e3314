// The events a request adds to its session before its model/request: the messages new since the
// session's surface (appended), and, when the client rewrote its history, the replacement that
// shadows what it dropped. The rule (docs/proxy.md): the request's messages are matched to the
// surface by key (surface-match.ts); a system message the client changed is replaced on its
// own; the dropped range is replaced by the client's new messages in its place, or, when the
// client put nothing there (a sliding window, a regenerated answer), by a copy of the retained
// message next to it, so that the surface is exactly the list the client sent. A message that
// repeats a dropped one names it (`copyOf`). When the fold refuses the narrow replacement (a
// range that would part a tool call from its result), everything after the kept prefix is
// replaced instead.

import type { EventDraft, ToolCall } from '../log/event.js';
import type { SessionSeq } from '../log/seq.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { ProxyMessage } from './proxy-message.js';
import { matchSurface } from './surface-match.js';

export interface PlannedMessage {
  readonly draft: EventDraft;
  readonly key: string;
}

export interface Plan {
  /** The surface events, in order: replacements first, then appended messages. */
  readonly messages: readonly PlannedMessage[];
  /** A user message among the appended ones (not a copy, not a replacement): the request starts a turn. */
  readonly startsTurn: boolean;
  /** What the client's rewrite was, when it rewrote: for the record and the tests. */
  readonly rewrite?: RewriteSummary;
}

export interface RewriteSummary {
  readonly shadowedSeqs: readonly number[];
  readonly replacementCount: number;
  readonly retained: number;
  readonly wide: boolean;
}

export interface PlanInput {
  readonly nodes: readonly SurfaceNode[];
  readonly nodeKeys: readonly string[];
  readonly messages: readonly ProxyMessage[];
  readonly keys: readonly string[];
  readonly model: string;
  /** The request continues the surface on the server's side (previous_response_id): every message is new. */
  readonly continues: boolean;
}

/** The narrow plan, then the wide one, for `attempt` 0 and 1; undefined when there is no such plan. */
export function planRequest(input: PlanInput, attempt: 0 | 1): Plan | undefined {
  const { nodes, messages, keys } = input;
  const nodeKeys = [...input.nodeKeys];
  const out: PlannedMessage[] = [];
  const copies = new Copies(nodes, nodeKeys);
  if (input.continues) {
    const skip = nodes[0]?.type === 'system/message' && messages[0]?.type === 'system/message' ? 1 : 0;
    return appendAll(input, out, skip);
  }
  // A changed system message at the head is replaced on its own: only a system message may stand there.
  if (nodes[0]?.type === 'system/message' && messages[0]?.type === 'system/message' && nodeKeys[0] !== keys[0]) {
    out.push({ draft: replaceDraft(toDraft(messages[0], input.model), [nodes[0].seq]), key: keys[0] as string });
    nodeKeys[0] = keys[0] as string;
  }
  const match = matchSurface(nodeKeys, keys);
  if (match.kind === 'extends') {
    if (keys.length === nodes.length && out.length === 0) return { messages: [], startsTurn: false };
    return appendAll(input, out, nodes.length);
  }
  let { prefix, dropEnd, tailAt } = match;
  if (attempt === 1) {
    // Wide: keep only the prefix, replace everything after it.
    dropEnd = nodes.length;
    tailAt = keys.length;
  }
  let retained = nodes.length - dropEnd;
  let range = nodes.slice(prefix, dropEnd).map((node) => node.seq);
  const entry = (index: number) => ({ message: messages[index] as ProxyMessage, key: keys[index] as string });
  const replacement: Array<{ draft: EventDraft; key: string }> = [];
  for (let index = prefix; index < tailAt; index++) {
    const { message, key } = entry(index);
    replacement.push({ draft: copies.mark(toDraft(message, input.model), key, range), key });
  }
  let afterStart = tailAt + retained;
  if (replacement.length === 0) {
    // Nothing in the dropped range's place: the retained message next to it takes it, as a copy of itself.
    const neighbour = retained > 0 ? dropEnd : prefix - 1;
    const node = nodes[neighbour];
    const position = retained > 0 ? tailAt : prefix - 1;
    if (node === undefined || messages[position] === undefined) return undefined;
    if (retained > 0) {
      range = [...range, node.seq];
      retained--;
      afterStart = tailAt + 1 + retained;
    } else {
      range = [node.seq, ...range];
    }
    const { message, key } = entry(position);
    const draft = toDraft(message, input.model);
    replacement.push({ draft: { ...draft, data: { ...(draft.data as object), copyOf: node.seq } }, key });
  }
  const [first, ...rest] = replacement;
  if (first === undefined || range.length === 0) return undefined;
  out.push({ draft: replaceDraft(first.draft, range), key: first.key });
  let startsTurn = false;
  for (const planned of rest) {
    startsTurn ||= planned.draft.type === 'user/message' && !isCopy(planned.draft);
    out.push(planned);
  }
  for (let index = afterStart; index < messages.length; index++) {
    const { message, key } = entry(index);
    const draft = copies.mark(toDraft(message, input.model), key, range);
    startsTurn ||= draft.type === 'user/message' && !isCopy(draft);
    out.push({ draft, key });
  }
  return {
    messages: out,
    startsTurn,
    rewrite: { shadowedSeqs: range, replacementCount: replacement.length, retained, wide: attempt === 1 },
  };
}

function appendAll(input: PlanInput, out: PlannedMessage[], from: number): Plan {
  let startsTurn = false;
  for (let index = from; index < input.messages.length; index++) {
    const draft = toDraft(input.messages[index] as ProxyMessage, input.model);
    startsTurn ||= draft.type === 'user/message';
    out.push({ draft, key: input.keys[index] as string });
  }
  return { messages: out, startsTurn };
}

function isCopy(draft: EventDraft): boolean {
  return (draft.data as { copyOf?: unknown }).copyOf !== undefined;
}

function replaceDraft(draft: EventDraft, range: readonly number[]): EventDraft {
  return {
    ...draft,
    surfaceOp: { op: 'replace', startSeq: range[0] as SessionSeq, endSeq: range[range.length - 1] as SessionSeq },
    sourceEventSeqs: [...range],
  };
}

/** The surface event a request message becomes. */
export function toDraft(message: ProxyMessage, model: string): EventDraft {
  switch (message.type) {
    case 'assistant/message': {
      const toolCalls: ToolCall[] = message.toolCalls.map((call) => ({
        callId: call.id,
        name: call.name,
        arguments: call.arguments,
        ...(call.argumentsText === undefined ? {} : { argumentsText: call.argumentsText }),
      }));
      return { type: message.type, data: { content: message.content, toolCalls, model }, surfaceOp: 'append' };
    }
    case 'tool/result':
      return {
        type: message.type,
        data: { callId: message.callId, content: message.content, ...(message.error === true ? { error: true } : {}) },
        surfaceOp: 'append',
      };
    default:
      return { type: message.type, data: { content: message.content }, surfaceOp: 'append' };
  }
}

/** Dropped nodes by key, so that a message repeating one names it as its copy. */
class Copies {
  private readonly claimed = new Set<number>();
  constructor(
    private readonly nodes: readonly SurfaceNode[],
    private readonly keys: readonly string[],
  ) {}

  claim(seq: number): void {
    this.claimed.add(seq);
  }

  /** `draft` with copyOf set when its key is that of a node in `range` not yet copied. */
  mark(draft: EventDraft, key: string, range: readonly number[]): EventDraft {
    const inRange = new Set(range);
    const index = this.nodes.findIndex(
      (node, position) => inRange.has(node.seq) && this.keys[position] === key && !this.claimed.has(node.seq),
    );
    const node = this.nodes[index];
    if (node === undefined) return draft;
    this.claimed.add(node.seq);
    return { ...draft, data: { ...(draft.data as object), copyOf: node.seq } };
  }
}
