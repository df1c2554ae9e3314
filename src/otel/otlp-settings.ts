// Where spans go: an OTLP/HTTP endpoint and its protocol, from the caller's options or the
// standard variables (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _PROTOCOL, _TIMEOUT, and their
// _TRACES_ forms). Headers often hold credentials: they are passed to the exporter and never
// printed, logged or stored; an error about them names the variable, never the value.

import { ConfigError } from '../log/index.js';

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The default time one export may take, retries included (OTEL_EXPORTER_OTLP_TIMEOUT's default). */
export const DEFAULT_OTLP_TIMEOUT_MS = 10_000;

export interface OtlpOptions {
  /** The collector's base URL (`http://127.0.0.1:4318`, to which /v1/traces is added) or its full traces URL (ending /v1/traces). */
  readonly endpoint?: string;
  readonly protocol?: string;
  /** Sent with every export (e.g. an authorization header). Added to those of OTEL_EXPORTER_OTLP_HEADERS; these win. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The time one export may take, retries included (default OTEL_EXPORTER_OTLP_TIMEOUT, else 10 s). */
  readonly timeoutMs?: number;
  /** The environment the standard variables are read from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface OtlpSettings {
  /** The URL spans are posted to. */
  readonly url: string;
  readonly protocol: OtlpProtocol;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/** True when an endpoint is given or the environment names one: live export is then on. */
export function otlpEndpointConfigured(options: OtlpOptions): boolean {
  const env = options.env ?? process.env;
  return options.endpoint !== undefined || nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/** The settings the options and the environment give; a ConfigError for a missing or malformed one. */
export function resolveOtlpSettings(options: OtlpOptions): OtlpSettings {
  const env = options.env ?? process.env;
  const url = resolveUrl(options.endpoint, env);
  const protocol = resolveProtocol(options.protocol, env);
  const headers = {
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    ...options.headers,
  };
  const timeoutMs = options.timeoutMs ?? resolveTimeout(env);
  return { url, protocol, headers, timeoutMs };
}

function resolveUrl(endpoint: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (endpoint !== undefined) return checkedUrl(endpoint, '--endpoint', true);
  if (nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT))
    return checkedUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', false);
  if (nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT)) return checkedUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT, 'OTEL_EXPORTER_OTLP_ENDPOINT', true);
  throw new ConfigError(
    'endpoint',
    'no OTLP endpoint: give --endpoint URL (e.g. http://127.0.0.1:4318, a collector, Jaeger, Phoenix or Langfuse) or set OTEL_EXPORTER_OTLP_ENDPOINT',
  );
}

/** The URL to post to; a base URL (`withSignalPath`) gets /v1/traces unless it already ends with it. */
function checkedUrl(text: string, source: string, withSignalPath: boolean): string {
  let parsed: URL;
  try {
    parsed = new URL(text.trim());
  } catch {
    throw new ConfigError(
      'endpoint',
      `${source} is not a URL: expected http://HOST:PORT or https://HOST/PATH, found ${JSON.stringify(text)}`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(
      'endpoint',
      `${source} must be an http:// or https:// URL (OTLP over HTTP), found ${parsed.protocol}//; gRPC endpoints (port 4317) are not supported, use the collector's HTTP port (4318)`,
    );
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(
      'endpoint',
      `${source} holds credentials in the URL; give them as a header in OTEL_EXPORTER_OTLP_HEADERS instead`,
    );
  }
  if (!withSignalPath || parsed.pathname.endsWith('/v1/traces')) return parsed.href;
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/v1/traces`;
  return parsed.href;
}

function resolveProtocol(given: string | undefined, env: Readonly<Record<string, string | undefined>>): OtlpProtocol {
  const [value, source] =
    given !== undefined
      ? [given, '--protocol']
      : nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)
        ? [env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']
        : nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL)
          ? [env.OTEL_EXPORTER_OTLP_PROTOCOL, 'OTEL_EXPORTER_OTLP_PROTOCOL']
          : ['http/protobuf', 'the default'];
  const trimmed = value.trim();
  if ((OTLP_PROTOCOLS as readonly string[]).includes(trimmed)) return trimmed as OtlpProtocol;
  throw new ConfigError(
    'protocol',
    `${source} must be http/protobuf or http/json, found ${JSON.stringify(value)}${trimmed === 'grpc' ? ' (gRPC is not supported: use the HTTP port, 4318, with http/protobuf)' : ''}`,
  );
}

/** `key1=value1,key2=value2`, values percent-decoded (the OTLP exporter specification's format). */
export function parseHeaders(text: string | undefined, source: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (text === undefined || text.trim() === '') return headers;
  text.split(',').forEach((pair, index) => {
    const at = pair.indexOf('=');
    const key = at < 0 ? '' : pair.slice(0, at).trim();
    if (at < 0 || key === '' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      // The value may be a credential: the message names the variable and the entry's position only.
      throw new ConfigError(
        'headers',
        `${source}: entry ${index + 1} is not key=value with a header name as key; expected key1=value1,key2=value2`,
      );
    }
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError('headers', `${source}: the value of ${key} is not percent-encoded correctly`);
    }
    headers[key] = value;
  });
  return headers;
}

function resolveTimeout(env: Readonly<Record<string, string | undefined>>): number {
  const text = env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT;
  if (!nonEmpty(text)) return DEFAULT_OTLP_TIMEOUT_MS;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new ConfigError('timeout', `OTEL_EXPORTER_OTLP_TIMEOUT must be a positive number of milliseconds, found ${JSON.stringify(text)}`);
  return value;
}
