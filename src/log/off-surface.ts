// A model/request whose messages are not on the session's surface. The proxy records every call
// it forwards, but some it cannot write as a change of the surface: a body it cannot read
// (`proxy.unparsed`), or messages the log's rules refuse as a change of this surface, such as a
// lone tool result (`proxy.unmatched`). Such a request still records the session's surface (the
// fold requires it), so readers must not take that surface for what the call sent: its digest
// proves the stored bytes, and only those bytes say what the model received.

import type { ModelRequestData } from './event.js';

/** Why the call did not send the session's surface, for a proxied request off it; undefined for a call on its surface. */
export function offSurfaceReason(data: ModelRequestData): string | undefined {
  if (data.provenance !== 'proxied') return undefined;
  // A call recorded in process (shadowlog/ai-sdk) says so in its `recorder` note.
  const recorded = (data as { recorder?: { unmatched?: unknown } }).recorder?.unmatched;
  if (typeof recorded === 'string') return recorded;
  const proxy = (data as { proxy?: unknown }).proxy;
  if (typeof proxy !== 'object' || proxy === null) return undefined;
  const { unparsed, unmatched } = proxy as { unparsed?: unknown; unmatched?: unknown };
  if (typeof unparsed === 'string') return `the proxy could not read its body: ${unparsed}`;
  if (typeof unmatched === 'string') return unmatched;
  return undefined;
}
