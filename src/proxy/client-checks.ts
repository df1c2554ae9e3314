// Who may use the proxy: programs on this machine. A request must be addressed to the proxy by a
// name it answers to (Host: a loopback name, or with allowRemote the names it was told), so that
// a web page cannot reach it by rebinding a domain name to 127.0.0.1; and a request a browser
// made for a page of another origin (its Origin header) is refused, since a "simple" POST needs
// no preflight and would otherwise be forwarded and recorded.

import type { IncomingHttpHeaders } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { ProxyHostRefusedError, ProxyOriginRefusedError, type ProxyRefusalError } from './proxy-refusals.js';

/** A loopback address or name: localhost, 127.0.0.0/8, ::1 (bracketed or not), ::ffff:127.x.x.x. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name === '::1' || /^(?:::ffff:)?127(?:\.\d{1,3}){3}$/.test(name);
}

/** A wildcard address: every interface of the machine. */
export function isWildcardHost(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1');
  return name === '0.0.0.0' || name === '::' || name === '';
}

/**
 * The names (beside the loopback ones) a request may address the proxy by: none on loopback;
 * with allowRemote, the address it listens on (every interface's, for a wildcard), the machine's
 * host name, and `extra`.
 */
export function remoteNames(host: string, allowRemote: boolean, extra: readonly string[]): Set<string> {
  const names = new Set(extra.map(normalName));
  if (!allowRemote) return names;
  names.add(hostname().toLowerCase());
  if (!isWildcardHost(host)) names.add(normalName(host));
  else
    for (const addresses of Object.values(networkInterfaces()))
      for (const address of addresses ?? []) names.add(normalName(address.address));
  return names;
}

/** The refusal a request's Host and Origin headers earn, if any. */
export function addressingRefusal(headers: IncomingHttpHeaders, names: ReadonlySet<string>): ProxyRefusalError | undefined {
  const allowed = (name: string) => isLoopbackHost(name) || names.has(normalName(name));
  const host = headers.host;
  // A client without a Host header is no browser (browsers always send one): only a browser can be misled by DNS rebinding.
  if (host !== undefined && !allowed(hostOf(host))) return new ProxyHostRefusedError(host, ['localhost', '127.0.0.1', '[::1]', ...names]);
  const origin = headers.origin;
  if (origin !== undefined) {
    const name = URL.canParse(origin) ? new URL(origin).hostname : undefined;
    if (name === undefined || name === '' || !allowed(name)) return new ProxyOriginRefusedError(origin);
  }
  return undefined;
}

/** The name in a Host header: the port left out, IPv6 brackets kept off, lower case. */
function hostOf(header: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(header);
  if (bracketed !== null) return normalName(bracketed[1] as string);
  const colon = header.indexOf(':');
  return normalName(colon >= 0 && colon === header.lastIndexOf(':') ? header.slice(0, colon) : header);
}

function normalName(name: string): string {
  return name.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}
