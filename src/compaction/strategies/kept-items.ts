// A provider's compaction may keep messages of the range it was sent (the Responses API's
// compacted window keeps the user messages, then its compaction item); what it keeps replaces
// the range and is sent back as the user's own words on every later request. So each kept item
// must be a message the request held, by content: one the request did not hold would put words
// in the user's mouth that no event of the log records.

import { canonicalJson } from '../../log/canonical-json.js';
import type { CompactionBlock } from '../../log/content-block.js';
import { ShadowlogError } from '../../log/errors.js';

/** A compaction answer kept a message that its request did not send: nothing was replaced. */
export class KeptItemNotSentError extends ShadowlogError {
  readonly provider: string;
  /** The kept item, as the provider returned it (canonical JSON, cut to 200 characters). */
  readonly item: string;
  constructor(provider: string, item: string, why: string) {
    super(
      'NATIVE_COMPACTION_KEPT_UNSENT',
      `${provider}'s compaction kept a message that ${why} (${item}); a compaction may keep messages of the range it was sent, never add one, so nothing was replaced`,
    );
    this.provider = provider;
    this.item = item;
  }
}

/**
 * Throws KeptItemNotSentError unless every item `block` keeps is a message of the request body's
 * `input` (compared by content, text and images; each input message stands for one kept item).
 */
export function checkKeptItems(provider: string, block: CompactionBlock, body: unknown): void {
  const kept = block.items ?? [];
  if (kept.length === 0) return;
  const input = typeof body === 'object' && body !== null ? (body as { input?: unknown }).input : undefined;
  const sent = new Map<string, number>();
  for (const item of Array.isArray(input) ? input : []) {
    const key = messageKey(item);
    if (key !== undefined) sent.set(key, (sent.get(key) ?? 0) + 1);
  }
  for (const item of kept) {
    const key = messageKey(item);
    const shown = excerpt(item);
    if (key === undefined) throw new KeptItemNotSentError(provider, shown, 'is not a message of text and images');
    const left = sent.get(key) ?? 0;
    if (left === 0)
      throw new KeptItemNotSentError(
        provider,
        shown,
        Array.isArray(input) ? 'was not in the messages it was sent' : 'cannot be checked: its request had no input messages',
      );
    sent.set(key, left - 1);
  }
}

/** A message's content as text and image parts, canonical; undefined for an item that is no such message. */
function messageKey(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const { type, role, content } = item as { type?: unknown; role?: unknown; content?: unknown };
  if ((type ?? 'message') !== 'message' || !(role === 'user' || role === 'system' || role === 'developer')) return undefined;
  const parts = typeof content === 'string' ? [content] : Array.isArray(content) ? content : undefined;
  if (parts === undefined) return undefined;
  const normalized: Array<{ text: string } | { image: string }> = [];
  for (const part of parts) {
    if (typeof part === 'string') normalized.push({ text: part });
    else if (typeof part !== 'object' || part === null) return undefined;
    else if (typeof (part as { text?: unknown }).text === 'string') normalized.push({ text: (part as { text: string }).text });
    else if (typeof (part as { image_url?: unknown }).image_url === 'string')
      normalized.push({ image: (part as { image_url: string }).image_url });
    else return undefined;
  }
  return canonicalJson(normalized);
}

function excerpt(item: unknown): string {
  const json = canonicalJson(item);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}
