// The renderer versions of the Anthropic Messages adapter. max_tokens is required, so the
// model's default budget decides the body of a request that names none: each version carries it.
//
//   anthropic-messages/1;default_max_tokens=N           as recorded before version 2
//   anthropic-messages/2;default_max_tokens=N           version 2 (convert-messages.ts), cache breakpoints
//   anthropic-messages/2;default_max_tokens=N;no-cache  version 2 without cache breakpoints

import { UnknownRendererVersionError } from '../renderer-version.js';
import type { AnthropicRenderSettings } from './convert-messages.js';

const PATTERN = /^anthropic-messages\/([12]);default_max_tokens=([1-9][0-9]*)(;no-cache)?$/;
const KNOWN = 'anthropic-messages/1;default_max_tokens=N or anthropic-messages/2;default_max_tokens=N[;no-cache]';

export function anthropicRendererVersion(settings: AnthropicRenderSettings): string {
  const cache = settings.version === 2 && !settings.promptCache ? ';no-cache' : '';
  return `anthropic-messages/${settings.version};default_max_tokens=${settings.defaultMaxTokens}${cache}`;
}

export function anthropicSettingsOf(version: string): AnthropicRenderSettings {
  const match = PATTERN.exec(version);
  const defaultMaxTokens = Number(match?.[2]);
  // Version 1 knew no cache switch.
  if (match === null || !Number.isSafeInteger(defaultMaxTokens) || (match[1] === '1' && match[3] !== undefined)) {
    throw new UnknownRendererVersionError('anthropic-messages', version, KNOWN);
  }
  return { defaultMaxTokens, version: match[1] === '1' ? 1 : 2, promptCache: match[3] === undefined };
}
