// The content blocks of messages (SPEC §2). Format 1 has text and base64 images; format 2 adds
// images by URL, reasoning, the calls and results of tools the provider ran itself, and the
// provider's own compaction of earlier context.

import type { JsonValue } from './json-value.js';

/** Text, as written. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** An image carried in the log: its bytes in base64 and their media type. */
export interface InlineImageBlock {
  type: 'image';
  /** The media type as the source wrote it, parameters included (`image/png`, `image/png;name=a.png`). */
  mediaType: string;
  data: string;
  url?: never;
}

/**
 * An image by URL (format 2): `https:`, or a `data:` URL that is not base64 (a `data:…;base64,`
 * URL is stored as an InlineImageBlock instead, see imageBlockFromUrl).
 */
export interface UrlImageBlock {
  type: 'image';
  url: string;
  mediaType?: string;
  data?: never;
}

export type ImageBlock = InlineImageBlock | UrlImageBlock;

/**
 * A model's reasoning (format 2), readable, opaque, or both, kept exactly as the provider gave it
 * so that it can be sent back unchanged, and sent only to the provider it came from:
 *
 * - Anthropic `thinking`: `text` (the thinking) and `signature`; `redacted_thinking`: `data`.
 * - OpenAI Responses / Codex `reasoning` items: `id` (rs_…), `summary` (the text of each
 *   summary_text part, in order), `data` (encrypted_content), `text` (reasoning_text content,
 *   when the model returns it).
 * - DeepSeek and other chat-completions servers: `text` (reasoning_content).
 * - A provider that signs something else (Gemini's thoughtSignature): `signature` alone.
 *
 * At least one of text, summary, signature and data is present.
 */
export interface ReasoningBlock {
  type: 'reasoning';
  /** Whose reasoning it is: the provider that must get it back, such as anthropic, openai, deepseek. */
  provider: string;
  text?: string;
  summary?: string[];
  signature?: string;
  /** Opaque data: encrypted or redacted reasoning, as the provider gave it. */
  data?: string;
  /** The provider's id for the item, when it has one. */
  id?: string;
}

/**
 * A call of a tool the provider ran itself (format 2): Anthropic `server_tool_use` (`id`,
 * `name`, `input`), Codex and OpenAI Responses `web_search_call` (`name` web_search, `input` its
 * `action`, `status`). No tool/result pairs with it: what it found is in a ServerToolResultBlock,
 * or nowhere when the provider keeps it.
 */
export interface ServerToolCallBlock {
  type: 'server-tool-call';
  provider: string;
  name: string;
  input: JsonValue;
  /** The provider's id for the call (srvtoolu_…, ws_…). */
  id?: string;
  status?: string;
}

/**
 * What a tool the provider ran returned (format 2): Anthropic `web_search_tool_result` and its
 * kin. `name` is the provider's name for the result (the block's type, such as
 * web_search_tool_result), `callId` the id of the ServerToolCallBlock it answers, `content` the
 * result as the provider gave it (encrypted parts included, which must go back unchanged).
 */
export interface ServerToolResultBlock {
  type: 'server-tool-result';
  provider: string;
  name: string;
  content: JsonValue;
  callId?: string;
}

/**
 * The provider's own compaction of the context it replaces (format 2), kept exactly as the
 * provider returned it, so that it goes back unchanged and only to that provider:
 *
 * - Anthropic `compaction` block: `text` (its readable summary, `content`), and, when the server
 *   sent them, `data` (encrypted_content), `signature` and `toolChanges` (tool_changes).
 * - OpenAI Responses compaction item (POST /v1/responses/compact): `id` (cmp_…), `data`
 *   (encrypted_content, opaque), and `items`: the output items that came before it (the user
 *   messages the compacted window keeps), as the provider returned them, to be sent back first.
 *
 * At least one of text and data is present.
 */
export interface CompactionBlock {
  type: 'compaction';
  /** Whose compaction it is: the provider that must get it back (anthropic, openai-responses). */
  provider: string;
  text?: string;
  data?: string;
  signature?: string;
  id?: string;
  toolChanges?: JsonValue[];
  items?: JsonValue[];
}

export type ContentBlock = TextBlock | ImageBlock | ReasoningBlock | ServerToolCallBlock | ServerToolResultBlock | CompactionBlock;

/** The block types of format version 1. */
export const FORMAT_1_BLOCK_TYPES: readonly string[] = ['text', 'image'];
export const BLOCK_TYPES: readonly string[] = ['text', 'image', 'reasoning', 'server-tool-call', 'server-tool-result', 'compaction'];

/** What a compaction's kept items say, as text: the text parts of the user messages it keeps. */
function keptItemTexts(items: readonly JsonValue[] | undefined): string[] {
  const texts: string[] = [];
  for (const item of items ?? []) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const content = item.content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content))
      for (const part of content)
        if (typeof part === 'object' && part !== null && !Array.isArray(part) && typeof part.text === 'string') texts.push(part.text);
  }
  return texts;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function isBase64(value: unknown): value is string {
  return typeof value === 'string' && value.length % 4 === 0 && BASE64.test(value);
}

/**
 * An image block for a URL. A `data:` URL in base64 (`data:image/png;base64,…`) becomes an
 * InlineImageBlock with the media type (parameters included) and the data, so that every image
 * carried in the log has one form, its base64 is checked, and `data:${mediaType};base64,${data}`
 * gives the URL back exactly. Any other URL (https, a data: URL that is not base64) stays a URL.
 */
export function imageBlockFromUrl(url: string, mediaType?: string): ImageBlock {
  const inline = parseBase64DataUrl(url);
  if (inline !== undefined) return { type: 'image', ...inline };
  return mediaType === undefined ? { type: 'image', url } : { type: 'image', url, mediaType };
}

/** The media type and base64 data of a `data:…;base64,…` URL; undefined for any other URL. */
export function parseBase64DataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const header = url.slice('data:'.length, comma);
  if (!header.endsWith(';base64')) return undefined;
  const mediaType = header.slice(0, -';base64'.length);
  const data = url.slice(comma + 1);
  if (mediaType === '' || !isBase64(data)) return undefined;
  return { mediaType, data };
}

/**
 * The text a block shows a reader (not what a renderer sends): its text, a reasoning block's text
 * or summary, or a note for what has none (an image, opaque reasoning, a server tool).
 */
export function readableText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return block.data === undefined
        ? `[image ${block.url.startsWith('data:') ? `${block.url.slice(0, 40)}…` : block.url}]`
        : `[image ${block.mediaType}, ${block.data.length} base64 chars]`;
    case 'reasoning': {
      const text = block.text ?? block.summary?.join('\n');
      const opaque = block.data === undefined ? '' : `, ${block.data.length} chars of opaque data`;
      return text === undefined ? `[reasoning by ${block.provider}${opaque}]` : `[reasoning by ${block.provider}${opaque}] ${text}`;
    }
    case 'server-tool-call':
      return `[${block.provider} ran ${block.name}(${JSON.stringify(block.input) ?? ''})${block.id === undefined ? '' : ` ${block.id}`}]`;
    case 'server-tool-result':
      return `[${block.provider} ${block.name}${block.callId === undefined ? '' : ` for ${block.callId}`}: ${JSON.stringify(block.content)?.length ?? 0} characters]`;
    case 'compaction': {
      const opaque = block.data === undefined ? '' : `, ${block.data.length} chars of opaque data`;
      const kept = keptItemTexts(block.items);
      const keeps = kept.length === 0 ? '' : `; it keeps ${kept.length} user message${kept.length === 1 ? '' : 's'}: ${kept.join(' | ')}`;
      const head = `[compaction by ${block.provider}${block.id === undefined ? '' : ` ${block.id}`}${opaque}${keeps}]`;
      return block.text === undefined ? head : `${head} ${block.text}`;
    }
  }
}

/**
 * A short stand-in for a block that is not text, in text written for a model (a summarizer's
 * request) or a terse listing: `[image image/png]`, `[reasoning]`, `[anthropic ran web_search]`.
 * An inline image gives `[image ${mediaType}]`, as format 1 wrote it (recorded summarizer
 * requests replay to their digests).
 */
export function blockPlaceholder(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return block.data === undefined ? `[image ${block.url.startsWith('data:') ? 'data: URL' : block.url}]` : `[image ${block.mediaType}]`;
    case 'reasoning':
      return '[reasoning]';
    case 'server-tool-call':
      return `[${block.provider} ran ${block.name}]`;
    case 'server-tool-result':
      return `[${block.provider} ${block.name}]`;
    case 'compaction':
      // A readable summary is what a later summarizer should read; an opaque one has only its kept messages.
      return [block.text ?? `[${block.provider} compaction]`, ...keptItemTexts(block.items)].join('\n');
  }
}

/**
 * The characters a block costs to send, for estimators that price text: its text; an inline
 * image's base64 (estimators price images by it); reasoning's text, summary and opaque data; a
 * server tool's JSON.
 */
export function pricedText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return block.data ?? block.url;
    case 'reasoning':
      return [block.text, ...(block.summary ?? []), block.signature, block.data].filter((part) => part !== undefined).join('\n');
    case 'server-tool-call':
      return JSON.stringify(block.input) ?? '';
    case 'server-tool-result':
      return JSON.stringify(block.content) ?? '';
    case 'compaction':
      return [block.text, block.data, block.signature, ...(block.items ?? []).map((item) => JSON.stringify(item))]
        .filter((part) => part !== undefined)
        .join('\n');
  }
}
