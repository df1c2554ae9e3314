// Sends spans with the official OTLP/HTTP exporters (@opentelemetry/exporter-trace-otlp-proto for
// http/protobuf, -http for http/json): each SessionSpan becomes a ReadableSpan with its own ids and
// times, and a failed export (after the exporter's retries: 429, 502-504 and connection errors are
// retried until the timeout) becomes an OtlpExportError that says what the collector did.

import { type Attributes, type SpanContext, SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { ExportResultCode, millisToHrTime } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { HARNESS_VERSION } from '../store/index.js';
import { OtlpExportError } from './otlp-errors.js';
import type { OtlpSettings } from './otlp-settings.js';
import type { SessionSpan } from './span-types.js';

const SCOPE = { name: 'shadowlog', version: HARNESS_VERSION };

/** Sends batches of spans to one endpoint; one batch at a time. */
export class OtlpSpanSender {
  readonly url: string;
  private readonly exporter: SpanExporter;
  private readonly resource: Resource;
  private sent = 0;

  constructor(settings: OtlpSettings, serviceName = process.env.OTEL_SERVICE_NAME ?? 'shadowlog') {
    this.url = settings.url;
    const config = { url: settings.url, headers: { ...settings.headers }, timeoutMillis: settings.timeoutMs, concurrencyLimit: 1 };
    this.exporter = settings.protocol === 'http/json' ? new JsonTraceExporter(config) : new ProtobufTraceExporter(config);
    this.resource = resourceFromAttributes({ 'service.name': serviceName, 'service.version': HARNESS_VERSION });
  }

  /** Spans the collector accepted so far. */
  get spansSent(): number {
    return this.sent;
  }

  /** Sends one batch; resolves when the collector accepted it, throws OtlpExportError when it did not. */
  send(spans: readonly SessionSpan[]): Promise<void> {
    if (spans.length === 0) return Promise.resolve();
    const readable = spans.map((span) => toReadableSpan(span, this.resource));
    return new Promise((resolve, reject) => {
      this.exporter.export(readable, (result) => {
        if (result.code === ExportResultCode.SUCCESS) {
          this.sent += spans.length;
          resolve();
        } else reject(exportError(this.url, result.error, this.sent));
      });
    });
  }

  async shutdown(): Promise<void> {
    await this.exporter.shutdown();
  }
}

function exportError(url: string, error: unknown, sent: number): OtlpExportError {
  const record = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown; data?: unknown };
  const message = typeof record.message === 'string' ? record.message : String(error);
  const after = sent > 0 ? ` (${sent} spans were accepted before)` : '';
  if (typeof record.code === 'number') {
    const body = typeof record.data === 'string' && record.data.trim() !== '' ? `: ${record.data.trim().slice(0, 300)}` : '';
    const hint =
      record.code === 401 || record.code === 403
        ? '; check the credentials in OTEL_EXPORTER_OTLP_HEADERS'
        : record.code === 404
          ? '; check the endpoint path (the traces path is /v1/traces)'
          : '';
    return new OtlpExportError(
      url,
      'refused',
      record.code,
      sent,
      `the collector at ${url} refused the spans: HTTP ${record.code} ${message}${body}${hint}${after}`,
      error,
    );
  }
  if (/retryable status/i.test(message)) {
    // The exporter keeps no status for these: 429, 502, 503 and 504 are the ones it retries.
    return new OtlpExportError(
      url,
      'refused',
      undefined,
      sent,
      `the collector at ${url} refused the spans with a retryable status (429, 502, 503 or 504) until the export timeout (OTEL_EXPORTER_OTLP_TIMEOUT); it is overloaded or not ready, try again later${after}`,
      error,
    );
  }
  if (typeof record.code === 'string') {
    return new OtlpExportError(
      url,
      'unreachable',
      undefined,
      sent,
      `no collector answered at ${url} (${record.code}), after retrying until the export timeout; start it, or give another --endpoint${after}`,
      error,
    );
  }
  if (/timed out/i.test(message)) {
    return new OtlpExportError(
      url,
      'timeout',
      undefined,
      sent,
      `the collector at ${url} did not answer within the export timeout (OTEL_EXPORTER_OTLP_TIMEOUT)${after}`,
      error,
    );
  }
  return new OtlpExportError(url, 'failed', undefined, sent, `the spans could not be sent to ${url}: ${message}${after}`, error);
}

/** A SessionSpan as the exporters take it. */
export function toReadableSpan(span: SessionSpan, resource: Resource): ReadableSpan {
  const context: SpanContext = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
  const startMs = Date.parse(span.startTime);
  const endMs = Math.max(startMs, Date.parse(span.endTime));
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(span.attributes))
    attributes[key] = Array.isArray(value) ? [...value] : (value as string | number | boolean);
  if (span.error !== undefined && attributes['error.type'] === undefined) attributes['error.type'] = '_OTHER';
  return {
    name: span.name,
    kind: span.kind === 'chat' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    ...(span.parentSpanId === undefined
      ? {}
      : { parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED } }),
    startTime: millisToHrTime(startMs),
    endTime: millisToHrTime(endMs),
    duration: millisToHrTime(endMs - startMs),
    status: span.error === undefined ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: span.error.message },
    attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
