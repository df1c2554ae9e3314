// The content of a written page, packed as the session is read: its events in blocks of
// EVENT_BLOCK (each a JSON array, deflated), beside each block the text `shadowlog search` reads
// in each of its events (searchEventText, so that the page's record search finds what `search`
// finds), and the calls' details in blocks of CALL_BLOCK. The page inflates a block when a list
// first shows one of its events (DecompressionStream), and never before. Blocks are deflated on
// libuv's threads while the session goes on being read and checked on the main one.

import { promisify } from 'node:util';
import { deflateRaw } from 'node:zlib';
import type { LogEvent } from '../log/event.js';
import { searchEventText } from '../store/search/search-text.js';
import { CALL_BLOCK, EVENT_BLOCK } from './client/page-blocks.js';
import type { CallView } from './view-data.js';

export interface ViewContent {
  readonly eventBlocks: readonly Uint8Array[];
  readonly searchBlocks: readonly Uint8Array[];
}

/** An event as the page holds it: its hash left out (the page shows the head's, and `verify` checks them all). */
export function pageEvent(event: LogEvent): Omit<LogEvent, 'hash'> {
  const { hash: _hash, ...rest } = event;
  return rest;
}

const deflateRawAsync = promisify(deflateRaw);

/**
 * Blocks deflated at once, at most (libuv's pool has 4 threads): each holds its JSON and its
 * zlib state until done, so a reader faster than the pool waits instead of piling them up.
 */
const IN_FLIGHT = 8;

function deflated(value: unknown): Promise<Uint8Array> {
  const block = deflateRawAsync(JSON.stringify(value), { level: 6 });
  // Awaited in finish(); a read that fails first must not leave it as an unhandled rejection.
  block.catch(() => undefined);
  return block;
}

export class ContentPacker {
  private readonly eventBlocks: Promise<Uint8Array>[] = [];
  private readonly searchBlocks: Promise<Uint8Array>[] = [];
  /** How many blocks of each list are known to be deflated. */
  private settled = 0;
  private events: Array<Omit<LogEvent, 'hash'>> = [];
  private texts: string[] = [];

  add(event: LogEvent): void {
    this.events.push(pageEvent(event));
    this.texts.push(searchEventText(event));
    if (this.events.length === EVENT_BLOCK) this.flush();
  }

  /** Resolves once at most IN_FLIGHT blocks are being deflated: the reader awaits it between pages. */
  async ready(): Promise<void> {
    while ((this.eventBlocks.length - this.settled) * 2 > IN_FLIGHT) {
      await Promise.all([this.eventBlocks[this.settled], this.searchBlocks[this.settled]]);
      this.settled++;
    }
  }

  async finish(): Promise<ViewContent> {
    if (this.events.length > 0) this.flush();
    return { eventBlocks: await Promise.all(this.eventBlocks), searchBlocks: await Promise.all(this.searchBlocks) };
  }

  private flush(): void {
    this.eventBlocks.push(deflated(this.events));
    this.searchBlocks.push(deflated(this.texts));
    this.events = [];
    this.texts = [];
  }
}

/** The calls' details in blocks of CALL_BLOCK, deflated, at most IN_FLIGHT at a time. */
export async function callBlocks(calls: readonly CallView[]): Promise<Uint8Array[]> {
  const blocks: Promise<Uint8Array>[] = [];
  for (let at = 0; at < calls.length; at += CALL_BLOCK) {
    if (blocks.length >= IN_FLIGHT) await blocks[blocks.length - IN_FLIGHT];
    blocks.push(deflated(calls.slice(at, at + CALL_BLOCK)));
  }
  return Promise.all(blocks);
}
