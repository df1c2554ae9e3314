// shadowlog/otel: sessions as OpenTelemetry traces (the GenAI semantic conventions, and
// OpenInference's attributes on request), sent with the official OTLP/HTTP exporters; a stored
// session exported in batches, or a recording session exported as it is written.

export {
  DEFAULT_SPAN_BATCH_SIZE,
  exportSessionSpans,
  type SessionExportSummary,
  type SessionSpansOptions,
  type SpanSink,
  sessionSpanBatches,
} from './export-session-spans.js';
export { boundedJson, capString, type GenAiMessage, type GenAiPart, partsOfBlocks, partsOfToolCalls } from './genai-content.js';
export { createLiveOtelExport, LiveOtelExport, type LiveOtelExportOptions, type LiveOtelStats } from './live-otel-export.js';
export { OtlpExportError, type OtlpFailure } from './otlp-errors.js';
export { OtlpSpanSender, toReadableSpan } from './otlp-sender.js';
export {
  DEFAULT_OTLP_TIMEOUT_MS,
  OTLP_PROTOCOLS,
  type OtlpOptions,
  type OtlpProtocol,
  type OtlpSettings,
  otlpEndpointConfigured,
  parseHeaders,
  resolveOtlpSettings,
} from './otlp-settings.js';
export { DEFAULT_CONTENT_MAX_BYTES, SessionSpanBuilder, type SpanBuilderOptions } from './session-span-builder.js';
export { genAiProviderName } from './span-attributes.js';
export { spanIdOf, traceIdOf } from './span-ids.js';
export type { SessionSpan, SessionSpanKind, SpanAttributes, SpanAttributeValue } from './span-types.js';
