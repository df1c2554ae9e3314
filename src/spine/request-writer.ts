// The canonical JSON of each request body, and its SHA-256, in proportion to what changed
// since the previous request of the session. A body's arrays (the messages, the tools) are
// written item by item, and each item's JSON is kept under the item object: the adapters
// hand back the same object for a message that did not change (providers/message-memo.ts),
// so only new items are written. The text is kept as its parts, joined only when it is sent;
// the digest goes on from the hash state of the longest unchanged prefix (a copy of the
// streaming hash taken at a part boundary), so the bytes hashed are those from the first
// change on. The digest is exactly the SHA-256 of the joined text: a test holds every
// adapter's requests to a full recomputation.

import { constants } from 'node:buffer';
import { canonicalJsonAtDepth } from '../log/canonical-json.js';
import type { JsonObject } from '../log/event.js';
import type { Sha256, Sha256State } from '../log/hash.js';

export interface RequestWriterOptions {
  /** A hash state is kept at least every this many characters, so a change far back rehashes at most this much before it (default 256 Ki). */
  readonly checkpointChars?: number;
  /** And at each of the last this many part boundaries, where the next request (the surface grown) most likely departs (default 16). */
  readonly tailCheckpoints?: number;
}

export interface WrittenRequest {
  /** The canonical JSON of the body, as parts in order. */
  readonly parts: readonly string[];
  /** Characters of the whole text. */
  readonly length: number;
  /** SHA-256 of the UTF-8 bytes of the whole text, lowercase hex. */
  readonly digest: string;
  /** Characters hashed for this request (the rest came from the kept hash state). */
  readonly hashedChars: number;
  /** The whole text, joined on first use. */
  text(): string;
}

interface Checkpoint {
  /** The number of parts hashed into `state`, and their characters. */
  readonly parts: number;
  readonly chars: number;
  readonly state: Sha256State;
}

/** Parts are handed to the hash in runs of about this many characters (one update per small part costs more than its bytes). */
const UPDATE_CHARS = 64 * 1024;

/** One per session: it keeps the last request's parts and hash states. */
export class RequestWriter {
  private readonly itemJson = new WeakMap<object, string>();
  private previous: readonly string[] = [];
  private checkpoints: Checkpoint[] = [];
  private readonly checkpointChars: number;
  private readonly tailCheckpoints: number;

  constructor(
    private readonly sha256: Sha256,
    options: RequestWriterOptions = {},
  ) {
    this.checkpointChars = options.checkpointChars ?? 256 * 1024;
    this.tailCheckpoints = options.tailCheckpoints ?? 16;
  }

  /**
   * The canonical JSON of `body` (exactly canonicalJson(body)) and its digest. Throws a
   * RangeError when the text would be longer than a string can be, as canonicalJson does.
   */
  write(body: JsonObject): WrittenRequest {
    const parts = this.partsOf(body);
    let length = 0;
    for (const part of parts) length += part.length;
    if (length > constants.MAX_STRING_LENGTH) throw new RangeError(`Invalid string length: ${length} characters`);
    const { digest, hashedChars } = this.digest(parts);
    this.previous = parts;
    let text: string | undefined;
    return {
      parts,
      length,
      digest,
      hashedChars,
      text: () => {
        text ??= parts.join('');
        return text;
      },
    };
  }

  /** canonicalJson's object writer, at the top level, with each array item's JSON kept. */
  private partsOf(body: JsonObject): string[] {
    const prototype = Object.getPrototypeOf(body);
    if (prototype !== Object.prototype && prototype !== null) {
      // Not a plain object: canonicalJson refuses it with its own error.
      return [canonicalJsonAtDepth(body, 0)];
    }
    const parts: string[] = [];
    let pending = '{';
    let first = true;
    for (const key of Object.keys(body).sort()) {
      const value = body[key];
      if (value === undefined) continue;
      pending += `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      if (!Array.isArray(value) || value.length === 0) {
        pending += canonicalJsonAtDepth(value, 1);
        continue;
      }
      parts.push(`${pending}[`);
      pending = '';
      for (let index = 0; index < value.length; index++) {
        if (index > 0) parts.push(',');
        parts.push(this.jsonOfItem(value[index]));
      }
      pending = ']';
    }
    parts.push(`${pending}}`);
    return parts;
  }

  private jsonOfItem(item: unknown): string {
    if (typeof item !== 'object' || item === null) return canonicalJsonAtDepth(item, 2);
    let json = this.itemJson.get(item);
    if (json === undefined) {
      json = canonicalJsonAtDepth(item, 2);
      this.itemJson.set(item, json);
    }
    return json;
  }

  private digest(parts: readonly string[]): { digest: string; hashedChars: number } {
    const previous = this.previous;
    // The parts this request shares with the last one, from the start (kept JSON is the same string object).
    let same = 0;
    const limit = Math.min(parts.length, previous.length);
    while (same < limit && parts[same] === previous[same]) same++;
    // Every kept state within that prefix still holds; the latest of them is where hashing resumes.
    let keep = this.checkpoints.length;
    while (keep > 0 && (this.checkpoints[keep - 1] as Checkpoint).parts > same) keep--;
    const kept = this.checkpoints.slice(0, keep);
    const from = kept.at(-1);
    const state = from === undefined ? this.sha256.begin() : from.state.copy();
    let chars = from?.chars ?? 0;
    let lastCheckpoint = chars;
    let buffer = '';
    const tailFrom = parts.length - this.tailCheckpoints;
    for (let index = from?.parts ?? 0; index < parts.length; index++) {
      const part = parts[index] as string;
      buffer += part;
      chars += part.length;
      const checkpoint = chars - lastCheckpoint >= this.checkpointChars || index + 1 >= tailFrom;
      if (checkpoint || buffer.length >= UPDATE_CHARS) {
        state.update(buffer);
        buffer = '';
      }
      if (checkpoint) {
        kept.push({ parts: index + 1, chars, state: state.copy() });
        lastCheckpoint = chars;
      }
    }
    if (buffer !== '') state.update(buffer);
    this.checkpoints = thin(kept, this.checkpointChars, this.tailCheckpoints);
    return { digest: state.hex(), hashedChars: chars - (from?.chars ?? 0) };
  }
}

/** The last `tailCheckpoints` states, and before them about one every `checkpointChars`: what is kept does not grow with the calls. */
function thin(checkpoints: readonly Checkpoint[], checkpointChars: number, tailCheckpoints: number): Checkpoint[] {
  const tail = Math.max(0, checkpoints.length - tailCheckpoints);
  const out: Checkpoint[] = [];
  let last = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < checkpoints.length; index++) {
    const checkpoint = checkpoints[index] as Checkpoint;
    if (index >= tail || checkpoint.chars - last >= checkpointChars) {
      out.push(checkpoint);
      last = checkpoint.chars;
    }
  }
  return out;
}
