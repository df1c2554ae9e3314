// The version recorded in session/start as harnessVersion and printed by `shadowlog --version`:
// the package's own, read from its package.json, so that a release changes it in one place.
// The path is the same from src/store (the source) and dist/store (the build).

import { readFileSync } from 'node:fs';
import { ShadowlogError } from '../log/errors.js';

function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+/.test(version)) {
    throw new ShadowlogError(
      'INVALID_PACKAGE',
      `shadowlog's package.json has no version such as "1.2.3" (found ${JSON.stringify(version)}); the installed package is damaged; reinstall it`,
    );
  }
  return version;
}

/** The shadowlog version, as package.json states it. */
export const HARNESS_VERSION: string = packageVersion();
