// Who may use the proxy: programs on this machine. A request must be addressed to the proxy by a
// name it answers to (Host: a well-formed name and port, the name a loopback one, or with
// allowRemote one it was told), so that a web page cannot reach it by rebinding a domain name to
// 127.0.0.1; and a request a web page made (it carries Origin, whatever the origin: a dev server
// on another loopback port is a page too) is refused, since a "simple" POST needs no preflight
// and would otherwise be forwarded and recorded. The proxy's clients are SDKs and agents, which
// send no Origin; it sends no CORS headers, so no page could read an answer anyway, and every
// CORS preflight (an OPTIONS with Origin) is refused as well.

import type { IncomingHttpHeaders } from 'node:http';
import { isIPv6 } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { ConfigError } from '../log/errors.js';
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
  for (const name of extra) {
    // Host is compared by its name (the port is any): a name given with a port would never match.
    if (!isHostName(normalName(name)))
      throw new ConfigError(
        'allow-host',
        `--allow-host takes a host name or address without a port (e.g. proxy.internal, 10.1.2.3, [fd00::1]), found ${JSON.stringify(name)}`,
      );
  }
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
  if (host !== undefined) {
    const name = hostOf(host);
    if (name === undefined || !allowed(name))
      return new ProxyHostRefusedError(host, ['localhost', '127.0.0.1', '[::1]', ...names], name === undefined);
  }
  const origin = headers.origin;
  if (origin !== undefined) return new ProxyOriginRefusedError(origin);
  return undefined;
}

/** The name in a Host header (`name[:port]`, `[v6][:port]`, the port digits), lower case; undefined when it is no such thing. */
function hostOf(header: string): string | undefined {
  const bracketed = /^\[([0-9A-Fa-f:.]+)\](?::\d{1,5})?$/.exec(header);
  if (bracketed !== null) return isIPv6(bracketed[1] as string) ? normalName(bracketed[1] as string) : undefined;
  const plain = /^([A-Za-z0-9.-]+)(?::\d{1,5})?$/.exec(header);
  return plain === null ? undefined : normalName(plain[1] as string);
}

/** A DNS name or IPv4 address, or an IPv6 address (brackets taken off already). */
function isHostName(name: string): boolean {
  return /^[a-z0-9.-]+$/.test(name) || isIPv6(name);
}

function normalName(name: string): string {
  return name.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}
