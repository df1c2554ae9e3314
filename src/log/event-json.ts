// The canonical JSON of an event, written once. The envelope that is hashed and the body that
// is stored differ only by the "hash" field, which sorts between "data" and "ignorable", so
// both are assembled from the same canonically written parts instead of serializing the event
// again for each. The body of an event sealed or checked in this process is remembered, so
// that stores and exports write it without serializing it a third time.

import { canonicalJson, canonicalJsonAtDepth } from './canonical-json.js';
import type { LogEvent } from './event.js';
import type { Hasher, UnsealedEvent } from './hash.js';

/** The canonical JSON of an envelope's object-valued fields, each written at depth 1 (inside the envelope). */
export interface EventJsonParts {
  readonly data: string;
  readonly surfaceOp: string | undefined;
  readonly sourceEventSeqs: string | undefined;
}

/**
 * Where an event keeps its body: a non-enumerable symbol property, which canonicalJson,
 * JSON.stringify, spreads, structuredClone and equality checks all pass over, so a copy never
 * carries it. (A WeakMap keyed by event does the same job, but sealing measured 0.5–1.5 µs
 * per event slower with one: its entries cost the garbage collector more.) Events are immutable
 * by contract, every field readonly; one changed in place after sealing would still be stored
 * as it was sealed, which is what its hash covers.
 */
const BODY = Symbol('shadowlog.canonicalEventJson');

type WithBody = LogEvent & { readonly [BODY]?: string };

/** The descriptor remember passes, one object reused (its value set for the call and cleared after). */
const BODY_DESCRIPTOR: PropertyDescriptor = { value: undefined, writable: true };

function remember(event: LogEvent, body: string): void {
  if (!Object.isExtensible(event)) return;
  BODY_DESCRIPTOR.value = flat(body);
  try {
    Object.defineProperty(event, BODY, BODY_DESCRIPTOR);
  } finally {
    BODY_DESCRIPTOR.value = undefined;
  }
}

/**
 * `text`, made one flat string now. V8 keeps a string built by concatenation as a tree of its
 * pieces until something reads it by index, and the store binds each body soon after: flattened
 * here, while its pieces are young, they die young, and the collector copies one string per kept
 * body instead of its tree. Reading one character is what flattens it; the text is unchanged.
 */
function flat(text: string): string {
  if (text.length > 0) text.charCodeAt(text.length - 1);
  return text;
}

/**
 * The canonical JSON of a whole event, hash included: what stores and exports write. Equal to
 * `canonicalJson(event)`, which it computes for an event that was not sealed or checked here.
 */
export function canonicalEventJson(event: LogEvent): string {
  return (event as WithBody)[BODY] ?? canonicalJson(event);
}

/**
 * Seals `unsealed`, whose object fields were written as `parts`: takes the hash and remembers the
 * body. The object becomes the event (its hash added last, as a spread would place it), so it
 * must be the caller's own, fresh one.
 */
export function sealEvent(unsealed: UnsealedEvent, parts: EventJsonParts, prevHash: string, hasher: Hasher): LogEvent {
  const tail = envelopeTail(unsealed, parts);
  const hash = hasher(`${prevHash}{"data":${parts.data}${tail}`);
  const event = unsealed as UnsealedEvent & { hash: string };
  event.hash = hash;
  // A hex digest needs no escaping.
  remember(event, `{"data":${parts.data},"hash":"${hash}"${tail}`);
  return event;
}

/**
 * The hash of an event read from a file (its envelope checked by parseEnvelope), recomputed as
 * computeEventHash does. When it matches the event's own hash, the event's body is remembered
 * too, so that a store importing the event writes it without serializing it again.
 */
export function rehashEvent(prevHash: string, event: LogEvent, hasher: Hasher): string {
  const parts: EventJsonParts = {
    data: canonicalJsonAtDepth(event.data, 1),
    surfaceOp: event.surfaceOp === undefined ? undefined : canonicalJsonAtDepth(event.surfaceOp, 1),
    sourceEventSeqs: event.sourceEventSeqs === undefined ? undefined : canonicalJsonAtDepth(event.sourceEventSeqs, 1),
  };
  const tail = envelopeTail(event, parts);
  const hash = hasher(`${prevHash}{"data":${parts.data}${tail}`);
  if (hash === event.hash) remember(event, `{"data":${parts.data},"hash":${JSON.stringify(hash)}${tail}`);
  return hash;
}

/**
 * Everything after "data" (and "hash") up to the closing brace, keys in canonical order (UTF-16
 * code units): ignorable, seq, sourceEventSeqs, surfaceOp, time, type. `seq` is a safe
 * integer, which JSON.stringify writes as a template literal does (-0 as 0 in both).
 */
function envelopeTail(event: UnsealedEvent, parts: EventJsonParts): string {
  let tail = event.ignorable === true ? `,"ignorable":true,"seq":${event.seq}` : `,"seq":${event.seq}`;
  if (parts.sourceEventSeqs !== undefined) tail += `,"sourceEventSeqs":${parts.sourceEventSeqs}`;
  if (parts.surfaceOp !== undefined) tail += `,"surfaceOp":${parts.surfaceOp}`;
  return `${tail},"time":${JSON.stringify(event.time)},"type":${JSON.stringify(event.type)}}`;
}

/**
 * Lets go of the body remembered for `event`, once the store has written it: the event itself
 * may be kept for long (the fold keeps every surface event), and its body would double what it
 * costs to keep. canonicalEventJson computes it again if it is asked for later.
 */
export function forgetCanonicalBody(event: LogEvent): void {
  if ((event as WithBody)[BODY] !== undefined) (event as { [BODY]?: string | undefined })[BODY] = undefined;
}
