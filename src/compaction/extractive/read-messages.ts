// Reads the shadowed messages into bounded text. A very long message is read only at its head
// and tail, so a 50 MB tool result costs no more than a few pages: the work stays near-linear
// in what is read, not in what was logged.

import type { ContentBlock, JsonValue } from '../../log/event.js';
import type { ModelMessage } from '../../providers/language-model.js';
import { type CountTokens, replaceLoneSurrogates, safeEnd, safeStart } from './unicode.js';

const HEAD_CODE_UNITS = 24_000;
const TAIL_CODE_UNITS = 8_000;
/** How far a cut may move to land on a line break, so that no half line is read. */
const LINE_SEARCH_CODE_UNITS = 2_000;

export type SourceRole = ModelMessage['role'];

export interface SourceText {
  readonly messageIndex: number;
  readonly role: SourceRole;
  /** All of the message's text, or its head and its tail when it is very long. */
  readonly parts: readonly string[];
  readonly partial: boolean;
  /** For a tool result: the name of its call, when the call is in the range. */
  readonly toolName: string | undefined;
  /** For a tool result: the id of its call. */
  readonly callId: string | undefined;
  readonly isError: boolean;
}

export interface ToolCallRecord {
  readonly messageIndex: number;
  readonly callId: string;
  readonly name: string;
  readonly arguments: JsonValue;
  readonly outcome: 'ok' | 'error' | 'unseen';
}

export interface ReadMessages {
  readonly texts: readonly SourceText[];
  readonly toolCalls: readonly ToolCallRecord[];
  readonly imageCount: number;
  /** Messages read only at their head and tail. */
  readonly partialCount: number;
  /** Tokens of everything read: a lower bound on the size of the input. */
  readonly tokensRead: number;
  /** tokensRead, extrapolated over the unread middles of very long messages. */
  readonly tokensEstimated: number;
}

interface Bounded {
  readonly parts: string[];
  readonly partial: boolean;
  readonly totalLength: number;
}

function takeHead(pieces: readonly string[], limit: number): string {
  let head = '';
  for (const piece of pieces) {
    head += head === '' ? piece : `\n${piece}`;
    if (head.length >= limit) break;
  }
  head = head.slice(0, safeEnd(head, limit));
  const lineEnd = head.lastIndexOf('\n');
  return lineEnd >= head.length - LINE_SEARCH_CODE_UNITS && lineEnd > 0 ? head.slice(0, lineEnd) : head;
}

function takeTail(pieces: readonly string[], limit: number): string {
  let tail = '';
  for (let index = pieces.length - 1; index >= 0; index -= 1) {
    const piece = pieces[index] ?? '';
    tail = tail === '' ? piece : `${piece}\n${tail}`;
    if (tail.length >= limit) break;
  }
  tail = tail.slice(safeStart(tail, tail.length - limit));
  const lineStart = tail.indexOf('\n');
  return lineStart >= 0 && lineStart <= LINE_SEARCH_CODE_UNITS ? tail.slice(lineStart + 1) : tail;
}

/** The pieces joined by line breaks, or only their head and tail when that would be too long. */
export function boundText(pieces: readonly string[]): Bounded {
  const totalLength = pieces.reduce((sum, piece) => sum + piece.length, Math.max(0, pieces.length - 1));
  if (totalLength <= HEAD_CODE_UNITS + TAIL_CODE_UNITS) {
    return { parts: [replaceLoneSurrogates(pieces.join('\n'))], partial: false, totalLength };
  }
  const parts = [takeHead(pieces, HEAD_CODE_UNITS), takeTail(pieces, TAIL_CODE_UNITS)].map(replaceLoneSurrogates);
  return { parts, partial: true, totalLength };
}

function textPieces(content: readonly ContentBlock[]): string[] {
  return content.flatMap((block) => (block.type === 'text' && block.text.trim() !== '' ? [block.text] : []));
}

function imagesIn(content: readonly ContentBlock[]): number {
  return content.reduce((count, block) => count + (block.type === 'image' ? 1 : 0), 0);
}

/** Outcomes by call id, and names by call id, so results can be tagged with their tool. */
function indexCalls(messages: readonly ModelMessage[]): { names: Map<string, string>; outcomes: Map<string, boolean> } {
  const names = new Map<string, string>();
  const outcomes = new Map<string, boolean>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls) names.set(call.callId, call.name);
    if (message.role === 'tool') outcomes.set(message.callId, message.isError);
  }
  return { names, outcomes };
}

class TokenTally {
  read = 0;
  estimated = 0;
  constructor(private readonly countTokens: CountTokens) {}

  add(bounded: Bounded): void {
    const tokens = bounded.parts.reduce((sum, part) => sum + this.countTokens(part), 0);
    const readLength = bounded.parts.reduce((sum, part) => sum + part.length, 0);
    this.read += tokens;
    this.estimated += bounded.partial && readLength > 0 ? Math.round((tokens * bounded.totalLength) / readLength) : tokens;
  }
}

/** Reads every message once: its bounded text, its images, and its tool calls with their outcomes. */
export function readMessages(messages: readonly ModelMessage[], countTokens: CountTokens): ReadMessages {
  const { names, outcomes } = indexCalls(messages);
  const tally = new TokenTally(countTokens);
  const texts: SourceText[] = [];
  const toolCalls: ToolCallRecord[] = [];
  let imageCount = 0;
  let partialCount = 0;
  messages.forEach((message, messageIndex) => {
    imageCount += imagesIn(message.content);
    const bounded = boundText(textPieces(message.content));
    tally.add(bounded);
    if (bounded.partial) partialCount += 1;
    if (bounded.totalLength > 0) {
      const isTool = message.role === 'tool';
      const toolName = isTool ? names.get(message.callId) : undefined;
      texts.push({
        messageIndex,
        role: message.role,
        parts: bounded.parts,
        partial: bounded.partial,
        toolName,
        callId: isTool ? message.callId : undefined,
        isError: isTool && message.isError,
      });
    }
    if (message.role !== 'assistant') return;
    for (const call of message.toolCalls) {
      tally.add(boundText([call.name, JSON.stringify(call.arguments) ?? '']));
      const failed = outcomes.get(call.callId);
      toolCalls.push({
        messageIndex,
        callId: call.callId,
        name: call.name,
        arguments: call.arguments,
        outcome: failed === undefined ? 'unseen' : failed ? 'error' : 'ok',
      });
    }
  });
  return { texts, toolCalls, imageCount, partialCount, tokensRead: tally.read, tokensEstimated: tally.estimated };
}
