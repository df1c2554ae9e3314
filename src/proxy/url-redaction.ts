// Credentials in URLs, kept out of what the proxy prints and stores: the query parameters that
// carry API keys (Azure's `api-key`, Google's `key`, a gateway's `subscription-key`, a SAS `sig`,
// …) in a request target the log records or a message shows, and the userinfo of an upstream URL
// (`http://user:PASSWORD@gateway`) in the banner and in errors, even when the value is no URL.

import { hasCredentialWord, REDACTED } from './headers.js';

/**
 * Query parameters whose value is a credential though their name holds none of
 * CREDENTIAL_NAME_WORDS (Azure Functions' `code`, a shared access signature's `sig`), compared
 * without case; every name that holds one of those words is one too.
 */
export const CREDENTIAL_QUERY_PARAMETERS: readonly string[] = ['code', 'sig'];

/**
 * `target` (a path and query, or a whole URL) with the values of credential parameters replaced
 * by [redacted] (query parameters split at `&` and `;`, path parameters `;name=value`, array forms
 * `name[]`), and any userinfo; the rest byte for byte. `extra`: more parameter names to redact.
 */
export function redactedTarget(target: string, extra: readonly string[] = []): string {
  const secret = (name: string) => isCredentialParameter(name, extra);
  const withoutUserinfo = target.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, `$1${REDACTED}@`);
  const at = withoutUserinfo.indexOf('?');
  const pathEnd = at < 0 ? withoutUserinfo.length : at;
  const hash = withoutUserinfo.indexOf('#', pathEnd);
  const end = hash < 0 ? withoutUserinfo.length : hash;
  const path = withoutUserinfo
    .slice(0, Math.min(pathEnd, end))
    .split('/')
    .map((segment) => {
      const [name, ...parameters] = segment.split(';');
      return [name, ...parameters.map((parameter) => redactedParameter(parameter, secret))].join(';');
    })
    .join('/');
  if (at < 0) return `${path}${withoutUserinfo.slice(Math.min(pathEnd, end))}`;
  const query = withoutUserinfo
    .slice(at + 1, end)
    .split(/([&;])/)
    .map((part, index) => (index % 2 === 1 ? part : redactedParameter(part, secret)))
    .join('');
  return `${path}?${query}${withoutUserinfo.slice(end)}`;
}

/** Whether a query or path parameter's name (as sent: percent-encoded, any case, `name[]`) names a credential. */
export function isCredentialParameter(name: string, extra: readonly string[] = []): boolean {
  const plain = decodedName(name)
    .toLowerCase()
    .replace(/\[[^\]]*\]$/, '');
  return hasCredentialWord(plain) || CREDENTIAL_QUERY_PARAMETERS.includes(plain) || extra.some((one) => one.toLowerCase() === plain);
}

/**
 * A URL as the proxy may print it: a parsed URL with its password replaced by [redacted]; any
 * other value (one that does not parse, such as a password holding `/`) with everything between
 * `//` (or the start) and the last `@` before its query replaced, so that a userinfo is never shown.
 */
export function redactedUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const start = value.indexOf('//') + 2;
  const queryAt = value.search(/[?#]/);
  const end = queryAt < 0 ? value.length : queryAt;
  const lastAt = value.lastIndexOf('@', end - 1);
  if (url !== undefined && url.username === '' && url.password === '' && lastAt < 0) return redactedTarget(value);
  // The userinfo a URL parser found is all there is only when no other @ stands in the authority or the path.
  if (url !== undefined && url.password !== '' && lastAt === value.indexOf('@')) {
    return `${url.protocol}//${url.username}:${REDACTED}@${url.host}${redactedTarget(`${url.pathname}${url.search}${url.hash}`)}`;
  }
  if (lastAt < 0) return redactedTarget(value);
  const from = start >= 2 && start <= lastAt ? start : 0;
  return redactedTarget(`${value.slice(0, from)}${REDACTED}@${value.slice(lastAt + 1)}`);
}

function redactedParameter(part: string, secret: (name: string) => boolean): string {
  const equals = part.indexOf('=');
  const name = equals < 0 ? part : part.slice(0, equals);
  return name !== '' && secret(name) ? `${name}=${REDACTED}` : part;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
