// Where an adapter sends its requests and with which key: options first, then the
// environment, then the official host. A key is required only by the official host, since
// local OpenAI-compatible servers (vLLM, llama.cpp, Ollama) and proxies often take none.

import { ConfigError } from '../log/errors.js';
import { ProviderError } from './provider-error.js';

export interface ConnectionDefaults {
  readonly provider: string;
  /** How messages name the provider: 'OpenAI', 'Anthropic'. */
  readonly providerLabel: string;
  readonly officialBaseUrl: string;
  readonly apiKeyVariable: string;
  readonly baseUrlVariable: string;
  /** The factory named in the missing-key message. */
  readonly factoryName: string;
}

export interface ConnectionOptions {
  readonly apiKey?: string;
  readonly baseUrl?: string;
  /** Where OPENAI_API_KEY and friends are read; process.env unless given (tests pass their own). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface Connection {
  /** Without a trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly isOfficialHost: boolean;
}

export function resolveConnection(defaults: ConnectionDefaults, options: ConnectionOptions): Connection {
  const env = options.env ?? process.env;
  const baseUrl = (nonEmpty(options.baseUrl) ?? nonEmpty(env[defaults.baseUrlVariable]) ?? defaults.officialBaseUrl).replace(/\/+$/, '');
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env[defaults.apiKeyVariable]);
  const host = hostOf(baseUrl);
  if (host === undefined) {
    throw new ConfigError('baseUrl', `baseUrl must be an http:// or https:// URL, found ${JSON.stringify(baseUrl)}`);
  }
  const isOfficialHost = host === hostOf(defaults.officialBaseUrl);
  if (apiKey === undefined && isOfficialHost) {
    throw new ProviderError(
      'missing-api-key',
      defaults.provider,
      `no ${defaults.providerLabel} API key: set ${defaults.apiKeyVariable}, or pass apiKey to ${defaults.factoryName}`,
    );
  }
  return { baseUrl, apiKey, isOfficialHost };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.hostname : undefined;
  } catch {
    return undefined;
  }
}
