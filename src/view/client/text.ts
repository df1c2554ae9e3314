/// <reference lib="dom" />
// The page's text from the log: every string from a session reaches the page as DOM text nodes
// (never as markup). Control characters, bidirectional overrides and the characters that show
// nothing while a model reads them (tag characters, zero-width spaces and joiners, the BOM,
// variation selectors) are shown as marked escapes, so a terminal escape, a reversed line or
// hidden text in a tool output is visible, not obeyed or hidden.

import { characterName, codePointLabel, escapeCodePoint, hiddenTagText, invisibleCount, markedCharacters } from './invisible-text.js';

export interface ClientEvent {
  readonly seq: number;
  readonly type: string;
  readonly time: string;
  readonly hash: string;
  // biome-ignore lint/suspicious/noExplicitAny: event data is read defensively, field by field
  readonly data: any;
  readonly surfaceOp?: unknown;
  readonly sourceEventSeqs?: readonly number[];
}

/**
 * Appends `text` to `element` as text nodes, each marked character as a span of class
 * `invisible` that shows its escape, named in its title (U+E0049 TAG LATIN CAPITAL LETTER I).
 */
export function appendText(element: HTMLElement, text: string): void {
  const found = markedCharacters(text);
  if (found.length === 0) {
    element.append(document.createTextNode(text));
    return;
  }
  let at = 0;
  for (const [offset, character] of found) {
    if (offset > at) element.append(document.createTextNode(text.slice(at, offset)));
    const code = character.codePointAt(0) ?? 0;
    const mark = document.createElement('span');
    mark.className = 'invisible';
    mark.title = `${codePointLabel(code)} ${characterName(code)}`;
    mark.append(document.createTextNode(escapeCodePoint(code)));
    element.append(mark);
    at = offset + character.length;
  }
  if (at < text.length) element.append(document.createTextNode(text.slice(at)));
}

/**
 * A note saying how many characters of `text` are marked, and what any tag characters spell,
 * so that a reader notices hidden text before finding its marks; undefined when there are none.
 */
export function invisibleNote(text: string): HTMLElement | undefined {
  const count = invisibleCount(text);
  if (count === 0) return undefined;
  const hidden = hiddenTagText(text);
  return el(
    'p',
    'invisible-note',
    `⚠ ${count} invisible or control character${count === 1 ? '' : 's'}, shown marked${hidden === '' ? '' : `; its tag characters spell, hidden from view: "${hidden}"`}`,
  );
}

/** An element with a class and text (text nodes and marked escapes: never parsed as markup). */
export function el(tag: string, className?: string, text?: string): HTMLElement {
  const element = document.createElement(tag);
  if (className !== undefined && className !== '') element.className = className;
  if (text !== undefined) appendText(element, text);
  return element;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}

// biome-ignore lint/suspicious/noExplicitAny: a content block of any provider's kind
function blockText(block: any): string {
  if (block === null || typeof block !== 'object') return asText(block);
  if (block.type === 'text') return asText(block.text);
  if (block.type === 'image') {
    const size = typeof block.data === 'string' ? `${block.data.length} base64 characters` : asText(block.url);
    return `[image ${asText(block.mediaType)}, ${size}; not shown]`;
  }
  const inner = typeof block.text === 'string' ? block.text : typeof block.thinking === 'string' ? block.thinking : '';
  return `[${asText(block.type)}]${inner === '' ? '' : ` ${inner}`}`;
}

function contentText(content: unknown): string {
  return Array.isArray(content) ? content.map(blockText).join('\n') : asText(content);
}

/** A short name for an event's kind. */
export function eventLabel(event: ClientEvent): string {
  switch (event.type) {
    case 'system/message':
      return 'system';
    case 'user/message':
      return 'user';
    case 'assistant/message':
      return 'assistant';
    case 'tool/result':
      return 'tool';
    default:
      return event.type;
  }
}

/** The whole text of an event, as a person reads it. */
export function eventText(event: ClientEvent): string {
  const data = event.data ?? {};
  switch (event.type) {
    case 'system/message':
    case 'user/message':
      return contentText(data.content);
    case 'assistant/message': {
      const calls = Array.isArray(data.toolCalls) ? data.toolCalls : [];
      const lines = calls.map(
        // biome-ignore lint/suspicious/noExplicitAny: a recorded tool call
        (call: any) => `→ ${asText(call?.name)}(${JSON.stringify(call?.arguments ?? null)}) [${asText(call?.callId)}]`,
      );
      const text = contentText(data.content);
      return [text, ...lines].filter((line) => line !== '').join('\n');
    }
    case 'tool/result': {
      const error = data.error === undefined ? '' : `error: ${asText(data.error?.message ?? data.error)}\n`;
      return `[${asText(data.callId)}] ${error}${contentText(data.content)}`;
    }
    case 'model/request': {
      // As log/off-surface.ts reads it: a proxied call the proxy could not read or place on the surface.
      const proxy = data.provenance === 'proxied' && typeof data.proxy === 'object' && data.proxy !== null ? data.proxy : {};
      const off = typeof proxy.unparsed === 'string' || typeof proxy.unmatched === 'string' ? "; NOT ON THE SESSION'S SURFACE" : '';
      return `model call, turn ${asText(data.turn)} step ${asText(data.step)}: ${asText(data.provider)}/${asText(data.model)}${typeof data.estimatedTokens === 'number' ? `, ~${data.estimatedTokens.toLocaleString('en-US')} tokens as recorded` : ''}, digest ${asText(data.requestDigest ?? 'none')}${off}`;
    }
    case 'model/unrecorded-answer':
      return `answer kept as it arrived, not on the surface (${asText(data.code)}): ${asText(data.message)}\n${asText(data.raw?.text)}`;
    case 'turn/start':
      return `turn ${asText(data.turn)} starts`;
    case 'turn/end':
      return `turn ${asText(data.turn)} ends: ${asText(data.reason)}`;
    default:
      return `${event.type} ${JSON.stringify(data, null, 2)}`;
  }
}

/**
 * The first `length` characters of `text` on one line. Only spaces, tabs and newlines fold into
 * one space: JavaScript's \s and trim() take U+FEFF and the line separators for spaces too, and
 * would hide them. A cut never parts a surrogate pair.
 */
export function preview(text: string, length = 240): string {
  const line = text.replace(/[ \t\n]+/g, ' ').replace(/^ | $/g, '');
  if (line.length <= length) return line;
  const last = line.charCodeAt(length - 1);
  return `${line.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length)}…`;
}

export function shortDigest(digest: string | null | undefined): string {
  return typeof digest === 'string' ? `${digest.slice(0, 12)}…` : 'none';
}
