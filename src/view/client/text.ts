/// <reference lib="dom" />
// The page's text from the log: every string from a session reaches the page through
// textContent (never as markup), with control characters and bidirectional overrides shown as
// escapes, so a terminal escape or a reversed line in a tool output is visible, not obeyed.

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

// The same characters as the terminal's escaping (cli/terminal-text.ts): C0 and C1 controls but tab and
// newline, DEL, the bidi embeddings, overrides, isolates and marks, the line and paragraph separators.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with control and bidi-override characters written as escapes (\x1b, \u202e). */
export function visible(text: string): string {
  return text.replace(CONTROL, (char) => {
    const code = char.codePointAt(0) ?? 0;
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** An element with a class and text (set as textContent: never parsed as markup). */
export function el(tag: string, className?: string, text?: string): HTMLElement {
  const element = document.createElement(tag);
  if (className !== undefined && className !== '') element.className = className;
  if (text !== undefined) element.textContent = visible(text);
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
    case 'model/request':
      return `model call, turn ${asText(data.turn)} step ${asText(data.step)}: ${asText(data.provider)}/${asText(data.model)}, ~${asText(data.estimatedTokens ?? '?')} tokens, digest ${asText(data.requestDigest ?? 'none')}`;
    case 'turn/start':
      return `turn ${asText(data.turn)} starts`;
    case 'turn/end':
      return `turn ${asText(data.turn)} ends: ${asText(data.reason)}`;
    default:
      return `${event.type} ${JSON.stringify(data, null, 2)}`;
  }
}

/** The first `length` characters of `text` on one line. */
export function preview(text: string, length = 240): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length)}…` : line;
}

export function shortDigest(digest: string | null | undefined): string {
  return typeof digest === 'string' ? `${digest.slice(0, 12)}…` : 'none';
}
