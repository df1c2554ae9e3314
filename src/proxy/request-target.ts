// Where a request goes, and whether it is a call the proxy records: decided on the one path it
// sends. The client's target is sent byte for byte after the upstream's path prefix, never
// through a URL parser (which removes `.` and `..` segments, drops `#…` and reads `//host` and
// `\` as another host), so a target that such a parser, or a server, would read as another path
// is refused: one that is not a path, that holds a fragment, a backslash, an empty segment (`//`)
// or a dot segment (`.`, `..`, as sent or percent-encoded, `..;x` too). What is left names one
// path only, and that path is classified. A POST to a path that common servers read as a
// recorded endpoint (after percent-decoding, `;params` cut off, letters folded to lower case, a
// trailing slash dropped) but that is not spelled exactly as that endpoint is refused too: it
// would reach the model unrecorded.

import type { RequestOptions } from 'node:http';
import { urlToHttpOptions } from 'node:url';
import { PROTOCOLS, type ProxyProtocol } from './protocols.js';
import { ProxyTargetRefusedError } from './proxy-refusals.js';
import { redactedTarget } from './url-redaction.js';

/** A request target that names one path: the path and the query as the client sent them. */
export interface CheckedTarget {
  readonly path: string;
  /** `?…` as sent, or empty. */
  readonly query: string;
}

/** Where a request is sent: the upstream's scheme, host, port and credentials, and the request target, prefix included. */
export interface UpstreamTarget {
  readonly options: RequestOptions;
  readonly https: boolean;
  /** scheme://host:port, for messages (never the credentials). */
  readonly origin: string;
}

/** The target as a path and query; refused (ProxyTargetRefusedError) when it is not one path, as any reader would read it. */
export function checkTarget(target: string): CheckedTarget {
  const refuse = (why: string) => new ProxyTargetRefusedError(redactedTarget(target), why);
  if (!target.startsWith('/')) throw refuse('is not a path (an absolute URL, or "*"), and the proxy sends to its configured upstream only');
  if (target.startsWith('//')) throw refuse('starts with //, which a URL reads as another host');
  if (/[^\x21-\x7e]/.test(target)) throw refuse('holds a byte that is not printable ASCII (a client percent-encodes those)');
  if (target.includes('#')) throw refuse('holds a fragment (#…), which a URL parser drops before sending');
  const at = target.indexOf('?');
  const path = at < 0 ? target : target.slice(0, at);
  if (path.includes('\\')) throw refuse('holds a backslash, which a URL reads as a slash');
  const decoded = percentDecoded(path);
  if (decoded.includes('\\')) throw refuse('holds an encoded backslash (%5C), which a server may read as a slash');
  const segments = decoded.split('/').slice(1);
  if (segments.slice(0, -1).includes('')) throw refuse('holds an empty segment (//), which a server may read as another path');
  if (segments.some((segment) => isDotSegment(segment)))
    throw refuse('holds a dot segment (. or .., as sent or percent-encoded), which a URL parser removes before sending');
  return { path, query: at < 0 ? '' : target.slice(at) };
}

/**
 * The protocol a request is recorded as: a POST to one of the three paths exactly; undefined for
 * anything else (passed through). A POST to a recorded endpoint spelled another way is refused.
 */
export function recordedProtocol(method: string, target: CheckedTarget): ProxyProtocol | undefined {
  if (method !== 'POST') return undefined;
  const exact = PROTOCOLS.find((protocol) => protocol.path === target.path);
  if (exact !== undefined) return exact;
  const normal = normalizedPath(target.path);
  const variant = PROTOCOLS.find((protocol) => protocol.path === normal);
  if (variant !== undefined)
    throw new ProxyTargetRefusedError(
      redactedTarget(`${target.path}${target.query}`),
      `is the recorded endpoint ${variant.path} spelled another way, which a server may answer as that endpoint, unrecorded (the proxy records ${variant.path} spelled exactly so)`,
    );
  return undefined;
}

/** The request to the upstream `base` for `target`: its path prefix, then the target as sent. */
export function upstreamTarget(base: URL, target: CheckedTarget): UpstreamTarget {
  const prefix = base.pathname.endsWith('/') ? base.pathname.slice(0, -1) : base.pathname;
  // Credentials in the upstream URL go to the upstream as Basic auth (a client's own Authorization header wins).
  const options: RequestOptions = { ...urlToHttpOptions(base), path: `${prefix}${target.path}${target.query}` };
  return { options, https: base.protocol === 'https:', origin: base.origin };
}

/** The path as common servers route it: percent-decoded, `;params` cut from each segment, lower case, no trailing slash. */
export function normalizedPath(path: string): string {
  const segments = percentDecoded(path)
    .split('/')
    .map((segment) => segment.split(';')[0]?.toLowerCase() ?? '');
  while (segments.length > 2 && segments.at(-1) === '') segments.pop();
  return segments.join('/');
}

/** `.` and `..`, and their forms with `;params` (a server that cuts those reads `..;x` as `..`). */
function isDotSegment(segment: string): boolean {
  const name = segment.split(';')[0];
  return name === '.' || name === '..';
}

/** Each %XX as the byte it stands for (read as Latin-1); a `%` not followed by two hex digits stays. */
function percentDecoded(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
