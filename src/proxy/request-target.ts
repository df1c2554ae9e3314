// Where a request goes: the path the client named, on the configured upstream and nowhere else.
// A URL parser reads `//host/…` and `/\host/…` as another host, and takes an absolute-form
// target (`POST http://host/… HTTP/1.1`) as it is; each is refused, and the URL built is checked
// to have the upstream's origin and to stay under its path prefix.

import { ProxyTargetRefusedError } from './proxy-refusals.js';
import { redactedTarget } from './url-redaction.js';

/** Refuses a request target that is not a path (absolute-form, `*`, `//…`, a backslash in the path). */
export function checkTarget(target: string): void {
  const path = target.split('?')[0] as string;
  const refuse = (why: string) => new ProxyTargetRefusedError(redactedTarget(target), why);
  if (!target.startsWith('/')) throw refuse('is not a path (an absolute URL, or "*")');
  if (target.startsWith('//')) throw refuse('starts with //, which a URL reads as another host');
  if (path.includes('\\')) throw refuse('holds a backslash, which a URL reads as a slash');
}

/** The URL `target` stands for on the upstream `base` (its path prefix, then the target); refused if it would go anywhere else. */
export function upstreamUrl(base: URL, target: string): URL {
  checkTarget(target);
  const prefix = base.pathname.endsWith('/') ? base.pathname.slice(0, -1) : base.pathname;
  const url = new URL(`${prefix}${target}`, base.origin);
  const refuse = (why: string) => new ProxyTargetRefusedError(redactedTarget(target), why);
  if (url.origin !== base.origin) throw refuse('would leave the upstream');
  if (prefix !== '' && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`))
    throw refuse(`leaves the upstream's path prefix ${prefix}`);
  // Credentials in the upstream URL go to the upstream as Basic auth (a client's own Authorization header wins).
  url.username = base.username;
  url.password = base.password;
  return url;
}
