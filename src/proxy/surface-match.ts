// How a request's messages relate to a session's surface, by message key (proxy-message.ts):
// they extend it (the surface is a prefix of the request), or they rewrite it: a common prefix,
// then a range the client dropped, then a retained tail (the longest run at the end of the
// surface that the request still has, after the prefix), with the client's new messages between.
// Pure, so that the rule can be tested on its own; docs/proxy.md states it.

export type SurfaceMatch =
  /** The request holds the whole surface first: `surface.length` messages, then new ones. */
  | { readonly kind: 'extends' }
  | {
      readonly kind: 'rewrite';
      /** How many messages surface and request share from the start. */
      readonly prefix: number;
      /** Where on the surface the retained tail starts: surface[prefix, dropEnd) was dropped. */
      readonly dropEnd: number;
      /** Where in the request the retained tail stands: request[prefix, tailAt) took the dropped range's place. */
      readonly tailAt: number;
    };

export function matchSurface(surface: readonly string[], request: readonly string[]): SurfaceMatch {
  let prefix = 0;
  const shorter = Math.min(surface.length, request.length);
  while (prefix < shorter && surface[prefix] === request[prefix]) prefix++;
  if (prefix === surface.length) return { kind: 'extends' };
  const last = surface.length - 1;
  let best = { length: 0, tailAt: request.length };
  // Every place in the request (after the prefix) where the surface's last message stands ends a candidate tail.
  for (let end = request.length - 1; end >= prefix; end--) {
    if (request[end] !== surface[last]) continue;
    let length = 1;
    while (end - length >= prefix && last - length >= prefix && request[end - length] === surface[last - length]) length++;
    if (length > best.length) best = { length, tailAt: end - length + 1 };
  }
  return { kind: 'rewrite', prefix, dropEnd: surface.length - best.length, tailAt: best.tailAt };
}

/** How much of the surface a match keeps: the prefix and the retained tail. */
export function keptLength(surfaceLength: number, match: SurfaceMatch): number {
  return match.kind === 'extends' ? surfaceLength : match.prefix + (surfaceLength - match.dropEnd);
}
