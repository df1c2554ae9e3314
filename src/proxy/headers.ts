// Which request and response headers the proxy passes on, and how the log records them: every
// header but the hop-by-hop ones (RFC 9110 §7.6.1, and any the Connection header names) and the
// proxy's own x-shadowlog-session; credentials are passed on and never written, the log names
// them as redacted. A header is a credential when its name holds one of CREDENTIAL_NAME_WORDS
// (gateways name theirs freely: Helicone-Auth, Ocp-Apim-Subscription-Key, cf-aig-authorization),
// or the operator named it (--redact-header).

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The header a client names its session with; it is the proxy's, and not passed on. */
export const SESSION_HEADER = 'x-shadowlog-session';

/**
 * A header or query parameter whose name holds one of these (any case) carries a credential:
 * passed on, never written. Names such as content-type, anthropic-version, anthropic-beta,
 * openai-organization or x-stainless-* hold none, and stay readable in the log.
 */
export const CREDENTIAL_NAME_WORDS: readonly string[] = ['auth', 'key', 'token', 'secret', 'signature', 'passw', 'credential', 'cookie'];

/** Headers that carry credentials (each holds one of CREDENTIAL_NAME_WORDS): passed on, never written to the log. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'x-api-key',
  'api-key',
  'cookie',
  'x-goog-api-key',
  'helicone-auth',
  'ocp-apim-subscription-key',
  'x-portkey-api-key',
  'cf-aig-authorization',
];

/** Whether a name (lower case) holds one of CREDENTIAL_NAME_WORDS. */
export function hasCredentialWord(name: string): boolean {
  return CREDENTIAL_NAME_WORDS.some((word) => name.includes(word));
}

export const REDACTED = '[redacted]';

/** Raw headers (name, value, name, value, …) as the headers to pass on, names as sent, repeated ones kept. */
export function passedOn(rawHeaders: readonly string[], drop: readonly string[] = []): OutgoingHttpHeaders {
  const named = new Set(HOP_BY_HOP);
  for (const name of drop) named.add(name);
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as string).toLowerCase() === 'connection') {
      for (const token of (rawHeaders[index + 1] as string).split(',')) named.add(token.trim().toLowerCase());
    }
  }
  const headers: Record<string, string | string[]> = {};
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    const lower = name.toLowerCase();
    if (named.has(lower)) continue;
    const value = rawHeaders[index + 1] as string;
    const existing = headers[lower];
    headers[lower] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return headers;
}

/** The request headers as the log records them: credentials (and `redact`) replaced by [redacted], and the names of those redacted. */
export function recordedHeaders(
  headers: IncomingHttpHeaders,
  redact: readonly string[],
): { headers: Record<string, string>; redacted: string[] } {
  const secret = new Set(redact.map((name) => name.toLowerCase()));
  const recorded: Record<string, string> = {};
  const redacted: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === SESSION_HEADER) continue;
    if (secret.has(name) || hasCredentialWord(name)) {
      recorded[name] = REDACTED;
      redacted.push(name);
    } else {
      recorded[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return { headers: recorded, redacted: redacted.sort() };
}
