// A session's record as `tune` replays it: the append-origin surface events in seq order (what
// happened, before any harness's compaction shadowed part of it), each priced once, and the
// recorded model calls between them, with the window, usage and outputs the record gives. One
// trace is shared by every policy replayed over the session.

import { resolveSessionWindow, type SessionWindow } from '../compaction/session-window.js';
import type { AssistantMessageData, LogEvent, ModelRequestData, Usage } from '../log/event.js';
import { isSurfaceType, type SurfaceType } from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import { offSurfaceReason } from '../log/off-surface.js';
import { RequestSurfaceDecoder } from '../log/request-surface.js';
import type { SurfaceMeter } from '../meter/measure.js';
import { knownModelLimits } from '../providers/model-limits.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../spine/harness.js';
import { TuneInputError } from './tune-errors.js';

export interface TraceItem {
  readonly seq: number;
  readonly type: SurfaceType;
  readonly event: LogEvent;
  /** The meter's price of the item as recorded. */
  readonly price: number;
}

export interface TraceCall {
  /** The call's number in the session, from 1. */
  readonly number: number;
  readonly seq: number;
  /** How many trace items stood before the call: the record's surface at the call is items[0..index). */
  readonly index: number;
  readonly turn: number;
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly window: number;
  readonly reserve: number;
  /** Milliseconds since the epoch, from the event's time. */
  readonly time: number;
  /** What the provider reported, when the record has it. */
  readonly usage: Usage | undefined;
  /** Output tokens of the answer: reported, else the meter's price of the answer's messages. */
  readonly outputTokens: number;
  /** The items the call's answer appended (its assistant messages), as indexes into items. */
  readonly outputItems: readonly number[];
  /** The meter's estimate of the surface the record says was sent (without the fixed part), when usage exists. */
  readonly recordedEstimate: number | undefined;
}

export interface SessionTrace {
  readonly sessionId: string;
  readonly items: readonly TraceItem[];
  readonly calls: readonly TraceCall[];
  /** prefix[i] = the sum of items[0..i).price. */
  readonly prefix: Float64Array;
  /** 1 when items[0] is a system message (always sent, never compacted), else 0. */
  readonly head: number;
  /** Index of each user message that starts a turn (for dropping whole turns). */
  readonly turnStarts: readonly number[];
  /**
   * reach[c] = the furthest index of a tool result whose call stands before c: a cut at c
   * separates a call from its result when reach[c] ≥ c.
   */
  readonly reach: Int32Array;
  /**
   * The tokens every request carried besides the messages (system prompt and tool definitions
   * the record does not hold): the first reported input less the estimate of what was sent, ≥ 0.
   */
  readonly fixedTokens: number;
  /** The window of each model the session called, and the rule that gave it. */
  readonly window: SessionWindow;
}

export interface TraceOptions {
  /** Every call's window, instead of the recorded one or the model table's. */
  readonly window?: number;
  /**
   * Every call's reserve, instead of the recorded max output tokens, else what shadowlog's
   * harness reserves for the model (min(16,384, its maximum output); 0 for a model the table does not know).
   */
  readonly reserve?: number;
}

/** The trace of one session's events (all of them, in seq order). */
export function buildTrace(sessionId: string, events: readonly LogEvent[], meter: SurfaceMeter, options: TraceOptions = {}): SessionTrace {
  const items: TraceItem[] = [];
  const calls: TraceCall[] = [];
  const bySeq = new Map<number, LogEvent>();
  const turnStarts: number[] = [];
  const decoder = new RequestSurfaceDecoder();
  const window = resolveSessionWindow(sessionId, events, options.window === undefined ? {} : { window: options.window });
  let open: { request: LogEvent; sent: readonly number[]; index: number; outputs: number[]; usage: Usage | undefined } | undefined;
  const close = () => {
    if (open === undefined) return;
    const { request, sent, index, outputs, usage } = open;
    calls.push(callOf(request, sent, index, outputs, usage, calls.length + 1, items, bySeq, meter, sessionId, window, options));
    open = undefined;
  };
  for (const event of events) {
    if (isSurfaceType(event.type)) bySeq.set(event.seq, event);
    if (event.type === 'model/request') {
      close();
      const sent = decoder.decode(event);
      // A proxied call off the surface sent a body of its own (log/off-surface.ts): no call of the surface to replay.
      if (offSurfaceReason(dataOf(event, 'model/request')) === undefined)
        open = { request: event, sent, index: items.length, outputs: [], usage: undefined };
      continue;
    }
    if (!isSurfaceType(event.type) || event.surfaceOp !== 'append') continue;
    const index = items.length;
    items.push({
      seq: event.seq,
      type: event.type,
      event,
      price: meter.priceOf({ seq: event.seq, type: event.type, event, sourceEventSeqs: [] }),
    });
    if (event.type === 'user/message') turnStarts.push(index);
    if (event.type === 'assistant/message' && open !== undefined) {
      open.outputs.push(index);
      const usage = (event.data as unknown as AssistantMessageData).usage;
      if (usage !== undefined && open.usage === undefined) open.usage = usage;
    } else if (event.type !== 'assistant/message') {
      close();
    }
  }
  close();
  const prefix = new Float64Array(items.length + 1);
  for (let index = 0; index < items.length; index++) prefix[index + 1] = (prefix[index] as number) + (items[index] as TraceItem).price;
  const head = items[0]?.type === 'system/message' ? 1 : 0;
  const firstWithUsage = calls.find((call) => call.usage !== undefined && call.recordedEstimate !== undefined);
  const fixedTokens =
    firstWithUsage === undefined
      ? 0
      : Math.max(0, (firstWithUsage.usage as Usage).inputTokens - (firstWithUsage.recordedEstimate as number));
  return {
    sessionId,
    items,
    calls,
    prefix,
    head,
    turnStarts: head === 1 ? turnStarts.filter((index) => index > 0) : turnStarts,
    reach: reachOf(items),
    fixedTokens,
    window,
  };
}

function callOf(
  request: LogEvent,
  sent: readonly number[],
  index: number,
  outputs: readonly number[],
  usage: Usage | undefined,
  number: number,
  items: readonly TraceItem[],
  bySeq: ReadonlyMap<number, LogEvent>,
  meter: SurfaceMeter,
  sessionId: string,
  sessionWindow: SessionWindow,
  options: TraceOptions,
): TraceCall {
  const data = request.data as unknown as Partial<ModelRequestData> & { contextWindow?: number; params?: { maxOutputTokens?: unknown } };
  const model = typeof data.model === 'string' ? data.model : '';
  const limits = model === '' ? undefined : knownModelLimits(model);
  const window = sessionWindow.models.get(model)?.window;
  if (window === undefined) {
    throw new TuneInputError(
      sessionId,
      `call ${number} (event #${request.seq}) is to model ${JSON.stringify(model)}, whose window neither the record, the harness's compactions, the client's default nor the model table gives; give --window TOKENS`,
    );
  }
  const recordedMax = data.params?.maxOutputTokens;
  const reserve =
    options.reserve ??
    (typeof recordedMax === 'number' && Number.isSafeInteger(recordedMax) && recordedMax >= 0
      ? recordedMax
      : limits === undefined
        ? 0
        : Math.min(DEFAULT_MAX_OUTPUT_TOKENS, limits.defaultMaxOutputTokens));
  let outputTokens = usage?.outputTokens ?? 0;
  if (usage === undefined) for (const output of outputs) outputTokens += (items[output] as TraceItem).price;
  let recordedEstimate: number | undefined;
  if (usage !== undefined) {
    recordedEstimate = 0;
    for (const seq of sent) {
      const event = bySeq.get(seq);
      if (event === undefined || !isSurfaceType(event.type)) {
        recordedEstimate = undefined;
        break;
      }
      recordedEstimate += meter.priceOf({ seq: event.seq, type: event.type, event, sourceEventSeqs: [] });
    }
  }
  const time = Date.parse(request.time);
  return {
    number,
    seq: request.seq,
    index,
    turn: typeof data.turn === 'number' ? data.turn : 0,
    step: typeof data.step === 'number' ? data.step : 0,
    provider: typeof data.provider === 'string' ? data.provider : '',
    model,
    window,
    reserve,
    time: Number.isFinite(time) ? time : 0,
    usage,
    outputTokens,
    outputItems: outputs,
    recordedEstimate,
  };
}

function reachOf(items: readonly TraceItem[]): Int32Array {
  const resultIndex = new Map<string, number>();
  items.forEach((item, index) => {
    if (item.type === 'tool/result') {
      const callId = (item.event.data as { callId?: unknown }).callId;
      if (typeof callId === 'string' && !resultIndex.has(callId)) resultIndex.set(callId, index);
    }
  });
  const reach = new Int32Array(items.length + 1);
  reach[0] = -1;
  let furthest = -1;
  items.forEach((item, index) => {
    if (item.type === 'assistant/message') {
      for (const call of (item.event.data as unknown as AssistantMessageData).toolCalls ?? []) {
        // A call whose result the record never has (an aborted step) pairs with nothing later.
        const result = resultIndex.get(call.callId);
        if (result !== undefined) furthest = Math.max(furthest, result);
      }
    }
    reach[index + 1] = furthest;
  });
  return reach;
}
