// The spans a session becomes, before any OpenTelemetry object is made: plain data, with times as
// the log wrote them and ids derived from the session id and seqs (span-ids.ts).

/** An attribute value as OTLP carries it: a scalar or a homogeneous list. */
export type SpanAttributeValue = string | number | boolean | readonly string[] | readonly number[];

export type SpanAttributes = Record<string, SpanAttributeValue>;

/** What a span is for: the GenAI operation, or shadowlog's own (a turn, a compaction, a prune). */
export type SessionSpanKind = 'invoke_agent' | 'turn' | 'chat' | 'execute_tool' | 'compaction' | 'prune';

export interface SessionSpan {
  readonly kind: SessionSpanKind;
  readonly name: string;
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  /** The parent's span id; absent on the root (`invoke_agent`). */
  readonly parentSpanId?: string;
  /** ISO-8601 times from the log. */
  readonly startTime: string;
  readonly endTime: string;
  readonly attributes: SpanAttributes;
  /** An error the operation ended with (a failed model call, a tool error, a failed compaction). */
  readonly error?: { readonly message: string };
  /** The seq of the event that ended the span: `--since SEQ` sends the spans ended at or after SEQ. */
  readonly endSeq: number;
}
