// The proxy's configuration errors.

import { ConfigError } from '../log/errors.js';

/** An upstream that is not an http(s) URL; `value` as it may be shown (redactedUrl). */
export function badUpstream(name: string, value: string, why?: string): ConfigError {
  return new ConfigError(
    `upstream-${name}`,
    `the ${name} upstream must be an http:// or https:// URL without a query or fragment (e.g. https://api.${name}.com), found ${JSON.stringify(value)}${why === undefined ? '' : `: ${why}`}`,
  );
}

/** A numeric option out of its range. */
export function badOption(key: string, expected: string, found: unknown): ConfigError {
  return new ConfigError(key, `proxy option ${key}: expected ${expected}, found ${JSON.stringify(found)}`);
}
