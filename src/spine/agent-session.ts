// One session of an agent: runs turns (SPEC §5) and writes everything to the log. The
// surface the model is sent is always rendered from the log's fold, never kept on the side.

import { constants } from 'node:buffer';
import { runCleanupAfter } from '../log/cleanup.js';
import { messageOf, type ShadowlogError } from '../log/errors.js';
import type { ContentBlock, EventDraft, JsonObject, LogEvent, RawAnswer, ToolCall, TurnEndReason } from '../log/event.js';
import { encodeRequestSurface } from '../log/surface-change.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import { SurfaceMeter } from '../meter/measure.js';
import { scriptAwareEstimator } from '../meter/script-aware.js';
import type { LanguageModel, ModelParams, ModelResult } from '../providers/language-model.js';
import { ProviderError } from '../providers/provider-error.js';
import type { RetryClock, RetrySettings } from '../providers/retry-schedule.js';
import { readToolArguments } from '../providers/tool-arguments.js';
import type { Ownership } from '../store/log-store.js';
import type { SessionLog } from '../store/session-log.js';
import {
  assistantMessageDraft,
  modelErrorDraft,
  modelWarningDraft,
  rawAnswerOf,
  refusalOf,
  unrecordedAnswerDraft,
} from './answer-record.js';
import type { Capability, SessionContext, StepContext } from './capability.js';
import { SURFACE_RENDERER_VERSION, SurfaceRenderCache } from './render-surface.js';
import { RequestWriter, type WrittenRequest } from './request-writer.js';
import { TurnInProgressError, UnrecordedAnswerError } from './spine-errors.js';
import type { Tool } from './tool.js';
import { ToolCallIds } from './tool-call-ids.js';
import { errorResultDraft, outputSize, oversizeMessage, toolResultDraft } from './tool-results.js';
import { TransportRetries } from './transport-retries.js';

export interface AgentSessionSettings {
  readonly model: LanguageModel;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly capabilities: readonly Capability[];
  readonly maxSteps: number;
  readonly maxOutputTokens: number;
  /** The parameters of every request (the harness builds them once). */
  readonly params: ModelParams;
  /** What every request carries besides the surface; estimatedTokens includes its price. */
  readonly fixedRequestText: () => string;
  readonly onTextDelta?: (text: string) => void;
  /** A longer tool output is refused as an error result (see tool-results.ts). */
  readonly maxToolResultChars: number;
  /** When a failed model call is tried again (providers/retry-schedule.ts), and the clock it waits by. */
  readonly retries: RetrySettings;
  readonly retryClock: RetryClock;
}

/** Options of one turn (AgentSession.send). */
export interface TurnOptions {
  readonly signal?: AbortSignal;
}

/** How a turn ended: its number, the reason, the steps it took and the last assistant text. */
export interface TurnResult {
  readonly turn: number;
  readonly reason: TurnEndReason;
  /** Model calls made in the turn. */
  readonly steps: number;
  /** The text of the last assistant message of the turn. */
  readonly text: string;
  /**
   * What ended the turn, when reason is 'error': the provider's error, or an
   * UnrecordedAnswerError when the log could not hold the model's answer as a message.
   */
  readonly error?: ShadowlogError;
}

/** Ends a step loop early with a turn/end reason. */
class TurnEnd {
  constructor(
    readonly reason: TurnEndReason,
    readonly error?: ShadowlogError,
  ) {}
}

/** One session of an agent: `send` runs a turn (model calls and tool calls until the model stops) and records every step in the log. */
export class AgentSession {
  private running = false;
  /** Prices the surface for model/request's estimatedTokens; caches each node's price. */
  private readonly meter = new SurfaceMeter(scriptAwareEstimator);
  private fixedTokens: number | undefined;
  /** Each surface node's message, kept while the node is on the surface. */
  private readonly surfaceRender = new SurfaceRenderCache();
  /** The request text and digest, written in proportion to what changed since the last call. */
  private readonly requestWriter: RequestWriter;
  /** Whether a capability runs before each step (the log flushes what it holds back first). */
  private readonly hasBeforeStep: boolean;

  constructor(
    readonly log: SessionLog,
    private readonly settings: AgentSessionSettings,
    private readonly ownership: Ownership,
    /** The last turn number used in this session, across lifecycles. */
    private lastTurn: number,
    /** The tool-call ids used in the session; it must observe every event of the log. */
    private readonly callIds: ToolCallIds = new ToolCallIds(),
  ) {
    this.requestWriter = new RequestWriter(log.sha256);
    this.hasBeforeStep = settings.capabilities.some((capability) => capability.beforeStep !== undefined);
  }

  get sessionId(): string {
    return this.log.sessionId;
  }

  get turns(): number {
    return this.lastTurn;
  }

  /** Runs one turn: the user's message, then model calls and tool calls until the model stops. */
  async send(input: string | readonly ContentBlock[], options: TurnOptions = {}): Promise<TurnResult> {
    if (this.running) throw new TurnInProgressError(this.sessionId);
    this.running = true;
    try {
      return await this.runTurn(
        typeof input === 'string' ? [{ type: 'text', text: input }] : [...input],
        options.signal ?? new AbortController().signal,
      );
    } finally {
      this.running = false;
    }
  }

  /**
   * Runs `work` between turns with this session's context; capabilities expose their manual
   * operations through it (compaction's compactNow). Refused while a turn is running.
   */
  async betweenTurnsWith<T>(work: (context: SessionContext) => Promise<T>, signal: AbortSignal = new AbortController().signal): Promise<T> {
    if (this.running) throw new TurnInProgressError(this.sessionId);
    this.running = true;
    try {
      return await work(this.sessionContext(signal));
    } finally {
      this.running = false;
    }
  }

  /** Runs every capability's between-turns maintenance now. */
  async betweenTurns(signal: AbortSignal = new AbortController().signal): Promise<void> {
    const context = this.sessionContext(signal);
    for (const capability of this.settings.capabilities) await capability.betweenTurns?.(context);
  }

  /** Gives up ownership of the session; the object must not be used afterwards. */
  async close(): Promise<void> {
    for (const capability of this.settings.capabilities) capability.release?.(this.sessionId);
    await this.ownership.release();
  }

  private sessionContext(signal: AbortSignal): SessionContext {
    return { sessionId: this.sessionId, log: this.log, model: this.settings.model, maxOutputTokens: this.settings.maxOutputTokens, signal };
  }

  private async runTurn(content: ContentBlock[], signal: AbortSignal): Promise<TurnResult> {
    const turn = ++this.lastTurn;
    // Held back: written in one commit with the turn's first model/request (or whatever the
    // turn writes first). A crash before that commit loses the turn whole, as if it never began.
    const [start] = await this.log.hold([
      { type: 'turn/start', data: { turn } },
      { type: 'user/message', data: { content }, surfaceOp: 'append' },
    ]);
    const startSeq = (start as LogEvent).seq;
    let step = 0;
    let text = '';
    let end: TurnEnd;
    try {
      end = await this.runSteps(turn, signal, (count, lastText) => {
        step = count;
        text = lastText;
      });
    } catch (error) {
      // Not a provider error: still close the turn so the log stays well-formed, then rethrow.
      // If closing fails too (a full disk), the first error is the one thrown, with that attached.
      // A failed write takes held events back out of the log: a turn whose start went with it is not closed, and its number is free again.
      await runCleanupAfter(error, async () => {
        if (this.log.nextSeq > startSeq) await this.log.append([{ type: 'turn/end', data: { turn, reason: 'error' } }]);
        else this.lastTurn = turn - 1;
      });
      throw error;
    }
    await this.log.append([{ type: 'turn/end', data: { turn, reason: end.reason } }]);
    await this.betweenTurns(signal);
    return { turn, reason: end.reason, steps: step, text, ...(end.error === undefined ? {} : { error: end.error }) };
  }

  private async runSteps(turn: number, signal: AbortSignal, progress: (steps: number, text: string) => void): Promise<TurnEnd> {
    let step = 0;
    for (;;) {
      if (signal.aborted) return new TurnEnd('aborted');
      if (step >= this.settings.maxSteps) return new TurnEnd('max-steps');
      step++;
      const context: StepContext = { ...this.sessionContext(signal), turn, step };
      // A capability may read the store itself: it sees the turn's start there.
      if (this.hasBeforeStep) await this.log.flush();
      for (const capability of this.settings.capabilities) await capability.beforeStep?.(context);

      let result: ModelResult | undefined;
      let raw: RawAnswer | undefined;
      const transport = new TransportRetries(this.settings.retries, this.settings.retryClock);
      for (let retries = 0; result === undefined; ) {
        try {
          progress(step, '');
          transport.attempt();
          result = await this.callModel(turn, step, signal, (answer) => {
            raw = answer;
          });
        } catch (error) {
          if (!(error instanceof ProviderError)) throw error;
          const aborted = error.kind === 'aborted' || signal.aborted;
          const decision = aborted ? undefined : transport.decide(error);
          const retryAfterMs = decision?.retry === true && step < this.settings.maxSteps ? decision.delayMs : undefined;
          await this.log.append([modelErrorDraft(turn, step, error, transport.attempts, retryAfterMs)]);
          if (aborted) return new TurnEnd('aborted', error);
          if (retryAfterMs !== undefined) {
            // Each attempt is a model call of its own, named by its own step, so that replay names every call.
            if (!(await transport.wait(retryAfterMs, signal))) return new TurnEnd('aborted', error);
            step++;
            continue;
          }
          if (decision?.retry === true) return new TurnEnd('max-steps', error);
          // How many retries a capability asks for is its own setting (compaction's
          // maxOverflowRetries); each is a step, so maxSteps bounds them all.
          if (!(await this.askForRetry({ ...context, step }, error, retries))) return new TurnEnd('error', error);
          if (step >= this.settings.maxSteps) return new TurnEnd('max-steps', error);
          retries++;
          step++; // a retry is a model call of its own, named by its own step
          // The capability changed the request: its attempts are counted afresh.
          transport.restart();
        }
      }
      const text = textOf(result.content);
      progress(step, text);
      const recorded = await this.recordAnswer(turn, step, result, raw);
      if (!recorded.ok) return new TurnEnd('error', recorded.error);
      if (recorded.toolCalls.length === 0) return new TurnEnd('completed');
      if (!(await this.runToolCalls(recorded.toolCalls, signal))) return new TurnEnd('aborted');
    }
  }

  /**
   * Appends the answer as an assistant/message, its tool calls under session-unique ids. When a
   * log rule refuses it, it is recorded as it arrived in model/unrecorded-answer, with the
   * reason, and the turn ends with an UnrecordedAnswerError.
   */
  private async recordAnswer(
    turn: number,
    step: number,
    result: ModelResult,
    raw: RawAnswer | undefined,
  ): Promise<{ readonly ok: true; readonly toolCalls: ToolCall[] } | { readonly ok: false; readonly error: UnrecordedAnswerError }> {
    const toolCalls = this.callIds.assign(result.toolCalls, this.log.nextSeq);
    const answer = assistantMessageDraft(result, toolCalls, this.settings.model.modelId);
    try {
      if (result.warnings !== undefined && result.warnings.length > 0) {
        await this.log.append([answer]);
        await this.log.append(result.warnings.map((warning) => modelWarningDraft(turn, step, warning)));
      } else if (toolCalls.length === 0) {
        // The turn's last answer: held back and written with its turn/end, in one commit, before
        // send() returns it. Calls are written before they run, so that a tool's effects are never unlogged.
        await this.log.hold([answer]);
      } else {
        await this.log.append([answer]);
      }
      return { ok: true, toolCalls };
    } catch (error) {
      const refusal = refusalOf(error, `the answer of turn ${turn} step ${step}`);
      if (refusal === undefined) throw error;
      const [kept] = await this.log.append([unrecordedAnswerDraft(turn, step, refusal, rawAnswerOf(result, raw))]);
      return { ok: false, error: new UnrecordedAnswerError(turn, step, (kept as LogEvent).seq, refusal) };
    }
  }

  private async askForRetry(context: StepContext, error: ProviderError, retries: number): Promise<boolean> {
    for (const capability of this.settings.capabilities) {
      if (capability.onRequestError !== undefined && (await capability.onRequestError({ ...context, error, retries }))) return true;
    }
    return false;
  }

  /** Renders the surface, records the request, and calls the model. */
  private async callModel(turn: number, step: number, signal: AbortSignal, onRawAnswer: (raw: RawAnswer) => void): Promise<ModelResult> {
    const { model } = this.settings;
    const nodes = this.log.fold.toArray();
    const messages = this.surfaceRender.render(nodes);
    const { params } = this.settings;
    const rendered = model.render({ messages, params });
    // Written once: these bytes are hashed for the log and are what the adapter sends.
    const written = writeRequest(this.requestWriter, rendered.body, model.provider, turn, step);
    const estimatedTokens = this.estimate(nodes);
    const seqs = nodes.map((node) => node.seq);
    // A version-1 session is written in version 1 (see log/core-shapes.ts): the plain list.
    const surface =
      this.log.fold.formatVersion === 1 ? { surfaceSeqs: seqs } : encodeRequestSurface(this.log.fold.lastRequestSurface, seqs);
    await this.log.append([
      {
        type: 'model/request',
        data: {
          turn,
          step,
          provider: model.provider,
          model: model.modelId,
          params: params as unknown as JsonObject,
          ...surface,
          requestDigest: written.digest,
          estimatedTokens,
          // Not needed to rebuild the request; recorded so that tools reading the log later
          // (a manual compaction, an audit) know the window the call was made against.
          contextWindow: model.limits.contextWindow,
          rendererVersion: `${SURFACE_RENDERER_VERSION} ${model.rendererVersion}`,
        },
      },
    ]);
    return model.send(
      {
        ...rendered,
        // Joined only if the adapter sends it (a model with no wire form never asks).
        get wireText() {
          return written.text();
        },
      },
      {
        signal,
        onRawAnswer,
        estimatedInputTokens: estimatedTokens,
        ...(this.settings.onTextDelta === undefined ? {} : { onTextDelta: this.settings.onTextDelta }),
      },
    );
  }

  /** The request's estimated input: the surface and the fixed part every request carries. */
  private estimate(nodes: readonly SurfaceNode[]): number {
    this.fixedTokens ??= this.meter.estimator.countText(this.settings.fixedRequestText());
    // meter.measure's total with no anchor and no calibration factor, without its list of prices.
    let estimate = 0;
    for (const node of nodes) estimate += this.meter.priceOf(node);
    this.meter.trimTo(nodes);
    return Math.ceil(estimate + this.fixedTokens);
  }

  /** Runs the calls in order and appends their results. False when the turn was aborted. */
  private async runToolCalls(calls: readonly ToolCall[], signal: AbortSignal): Promise<boolean> {
    for (const call of calls) {
      if (signal.aborted) {
        // Every call still gets a result, so that the surface keeps its pairs.
        const remaining = calls.slice(calls.indexOf(call));
        await this.log.append(remaining.map((pending) => errorResultDraft(pending.callId, 'the turn was aborted before this tool ran')));
        return false;
      }
      await this.appendToolResult(call, await this.runToolCall(call, signal));
    }
    return true;
  }

  /**
   * An output the log refuses (content of the wrong shape, JSON longer than a string can be)
   * becomes an error result that says why, and the turn goes on.
   */
  private async appendToolResult(call: ToolCall, result: EventDraft): Promise<void> {
    try {
      await this.log.append([result]);
    } catch (error) {
      const refusal = refusalOf(error, `the output of ${call.name}`);
      if (refusal === undefined) throw error;
      await this.log.append([errorResultDraft(call.callId, `the output of ${call.name} could not be recorded: ${refusal.message}`)]);
    }
  }

  private async runToolCall(call: ToolCall, signal: AbortSignal): Promise<EventDraft> {
    const tool = this.settings.tools.get(call.name);
    if (tool === undefined) {
      const known = [...this.settings.tools.keys()].join(', ') || 'none';
      return errorResultDraft(call.callId, `there is no tool named ${JSON.stringify(call.name)}; the tools are: ${known}`);
    }
    const args = readToolArguments(call);
    if (!args.ok) return errorResultDraft(call.callId, args.message);
    const parsed = tool.parse(args.value);
    if (!parsed.ok) return errorResultDraft(call.callId, parsed.message);
    let output: unknown;
    try {
      output = await tool.execute(parsed.value, { sessionId: this.sessionId, callId: call.callId, signal });
    } catch (error) {
      return errorResultDraft(call.callId, `${call.name} failed: ${messageOf(error)}`);
    }
    if (typeof output !== 'string' && !Array.isArray(output)) {
      return errorResultDraft(call.callId, `${call.name} returned ${describeOutput(output)}, not text or an array of content blocks`);
    }
    const content: ContentBlock[] = typeof output === 'string' ? [{ type: 'text', text: output }] : (output as ContentBlock[]);
    const size = outputSize(content);
    if (size > this.settings.maxToolResultChars) {
      return errorResultDraft(call.callId, oversizeMessage(call.name, size, this.settings.maxToolResultChars));
    }
    return toolResultDraft(call.callId, content);
  }
}

function describeOutput(output: unknown): string {
  return output === null ? 'null' : typeof output;
}

/**
 * The canonical JSON of a request body, and its digest. One longer than a string can be (RangeError) is far
 * beyond any context window: it is refused as a context overflow, so that the turn ends with
 * a typed error, or compaction (when mounted) shortens the surface and retries.
 */
function writeRequest(writer: RequestWriter, body: JsonObject, provider: string, turn: number, step: number): WrittenRequest {
  try {
    return writer.write(body);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ProviderError(
      'context-overflow',
      provider,
      `the request of turn ${turn} step ${step} was not sent: its JSON is longer than a JavaScript string can be (${constants.MAX_STRING_LENGTH.toLocaleString('en-US')} characters), far beyond any context window; compact the session (the tool-result pruner cuts long results) or lower maxToolResultChars`,
      { cause: error },
    );
  }
}

function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
}
