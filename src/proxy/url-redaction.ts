// Credentials in URLs, kept out of what the proxy prints and stores: the query parameters that
// carry API keys (Azure's `api-key`, Google's `key`, …) in a request target the log records, and
// the password of an upstream URL (`http://user:PASSWORD@gateway`) in the banner and in errors.

import { REDACTED } from './headers.js';

/** Query parameters whose value is a credential, compared without case. */
export const CREDENTIAL_QUERY_PARAMETERS: readonly string[] = ['api-key', 'api_key', 'apikey', 'key', 'token', 'access_token'];

const SECRET = new Set(CREDENTIAL_QUERY_PARAMETERS);

/** `target` (a path and query, or a whole URL) with credential parameters' values and any userinfo replaced by [redacted]; the rest byte for byte. */
export function redactedTarget(target: string): string {
  const withoutUserinfo = target.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, `$1${REDACTED}@`);
  const at = withoutUserinfo.indexOf('?');
  if (at < 0) return withoutUserinfo;
  const hash = withoutUserinfo.indexOf('#', at);
  const end = hash < 0 ? withoutUserinfo.length : hash;
  const query = withoutUserinfo
    .slice(at + 1, end)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const name = equals < 0 ? part : part.slice(0, equals);
      return SECRET.has(decodedName(name).toLowerCase()) ? `${name}=${REDACTED}` : part;
    })
    .join('&');
  return `${withoutUserinfo.slice(0, at + 1)}${query}${withoutUserinfo.slice(end)}`;
}

/** A URL as the proxy may print it: the password (and credential query parameters) replaced by [redacted]. */
export function redactedUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  // Shown as given unless there is a password to take out; in what is no http URL (a scheme left
  // out, a space), anything shaped like user:password@ is taken out.
  if (url === undefined || url.password === '') return redactedTarget(value.replace(/[^\s/@]*:[^\s/@]*@/g, `${REDACTED}@`));
  return `${url.protocol}//${url.username}:${REDACTED}@${url.host}${redactedTarget(`${url.pathname}${url.search}${url.hash}`)}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
