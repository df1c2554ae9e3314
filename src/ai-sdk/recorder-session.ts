// One session an AI SDK app records through the recorder, owned by this process while the
// recorder is open. Each model call (a step) is written once its outcome is known, its request
// and its outcome as one job, in the order the calls end; the app's call never waits for the
// store (unless compaction is mounted: then the surface must be settled before it is sent).
// The app's prompt is matched by the proxy's rule (proxy/session-plan.ts) against the app's own
// history (app-history.ts): what it resends is not written again, what it rewrote is written as
// a replacement listing what it dropped. A job the store refused stays queued and is tried again
// before the next one, so that a record is written as soon as the store allows it.

import { isUtf8 } from 'node:buffer';
import { hostname } from 'node:os';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { messageOf, ShadowlogError } from '../log/errors.js';
import type { EventDraft, JsonObject, LogEvent, TurnEndReason } from '../log/event.js';
import { prepareAppend } from '../log/seal.js';
import { encodeRequestSurface } from '../log/surface-change.js';
import type { ModelResult } from '../providers/language-model.js';
import { messageKey } from '../proxy/proxy-message.js';
import type { RecordedFailure } from '../proxy/proxy-session.js';
import { type Plan, planRequest } from '../proxy/session-plan.js';
import type { LogStore, Ownership } from '../store/log-store.js';
import { nodeSha256Hex, nodeSha256HexOfBytes } from '../store/node-sha256.js';
import { SessionLog } from '../store/session-log.js';
import { AppHistory } from './app-history.js';
import type { LogCompaction } from './log-compaction.js';
import { type PromptOrigin, readPrompt } from './prompt-messages.js';
import { RecordFailedError } from './recorder-errors.js';
import { surfacePrompt } from './surface-prompt.js';
import type { CapturedBody } from './wire-capture.js';

/** The harnessVersion of the sessions the recorder starts. */
export const AI_SDK_HARNESS_VERSION = 'shadowlog ai-sdk';

export interface StepInfo {
  readonly provider: string;
  readonly modelId: string;
  readonly operation: 'generate' | 'stream';
  /** The app's prompt (before the recorder changed it). */
  readonly prompt: LanguageModelV3Prompt;
  /** Set when compaction prepared the step: its messages are written, and this surface was sent. */
  readonly prepared?: PreparedStep;
}

export interface PreparedStep {
  readonly surfaceSeqs: readonly number[];
  readonly prompt: LanguageModelV3Prompt;
  readonly compacted: boolean;
}

export type StepOutcome = { readonly kind: 'answer'; readonly result: ModelResult } | RecordedFailure;

interface Job {
  run(): Promise<void>;
  /** What a report of its failure calls it. */
  readonly name: string;
  attempts: number;
}

/** Attempts before a refused job is given up (reported each time, and once more when given up). */
const MAX_ATTEMPTS = 3;

export interface RecorderSessionOptions {
  readonly onRecordError: (error: unknown) => void;
  readonly contextWindow?: number;
  readonly compaction?: LogCompaction;
}

export class RecorderSession {
  private turn = 0;
  private step = 0;
  private open = false;
  private lastReason: TurnEndReason = 'completed';
  private readonly queue: Job[] = [];
  private draining: Promise<void> = Promise.resolve();
  private readonly active = new Set<StepInfo>();
  private closed = false;

  private constructor(
    readonly id: string,
    private readonly log: SessionLog,
    private readonly ownership: Ownership,
    private readonly history: AppHistory,
    private readonly options: RecorderSessionOptions,
  ) {}

  /** Starts `id`, or continues it as a new lifecycle when it exists; SessionBusyError when another writer owns it. */
  static async start(store: LogStore, id: string, options: RecorderSessionOptions): Promise<RecorderSession> {
    const ownership = await store.acquireOwnership(id);
    try {
      const history = new AppHistory();
      const turns = { turn: 0, open: false };
      const compaction = options.compaction;
      const observe = (event: LogEvent) => {
        history.observe(event);
        compaction?.observe(id, event);
        if (event.type === 'turn/start') {
          turns.turn = Math.max(turns.turn, event.data.turn as number);
          turns.open = true;
        } else if (event.type === 'turn/end') turns.open = false;
      };
      const logOptions = { observe, ...(compaction === undefined ? {} : { registry: compaction.registry }) };
      const existing = await store.head(id);
      let log: SessionLog;
      if (existing === undefined) {
        log = await SessionLog.create(store, id, { ...logOptions, harnessVersion: AI_SDK_HARNESS_VERSION });
      } else {
        log = await SessionLog.open(store, id, logOptions);
        const drafts: EventDraft[] = [
          { type: 'session/end-seed', data: { reason: `continued by shadowlog/ai-sdk, pid ${process.pid} on ${hostname()}` } },
        ];
        if (turns.open) drafts.push({ type: 'turn/end', data: { turn: turns.turn, reason: 'interrupted' } });
        await log.append(drafts);
      }
      const session = new RecorderSession(id, log, ownership, history, options);
      session.turn = turns.turn;
      return session;
    } catch (error) {
      await ownership.release().catch(() => {});
      throw error;
    }
  }

  /** The step has started: it is written as interrupted if the recorder closes before it ends. */
  begin(step: StepInfo): void {
    this.active.add(step);
  }

  /** The step's outcome: its request and outcome are queued to be written; the caller does not wait. */
  finish(step: StepInfo, body: CapturedBody, outcome: StepOutcome): void {
    if (!this.active.delete(step)) return;
    let requestWritten = false;
    this.enqueue(`turn ${this.turn} model call (${step.operation})`, async () => {
      if (!requestWritten) {
        await this.writeRequest(step, body);
        requestWritten = true;
      }
      await this.writeOutcome(outcome);
    });
  }

  /**
   * Compaction at the log layer: writes the app's new messages, lets the compaction capability
   * act on the surface, and returns the surface as the prompt to send. Waits for the writes
   * queued before it.
   */
  async prepare(step: Omit<StepInfo, 'prepared'>, fixedRequestText: string): Promise<PreparedStep> {
    const compaction = this.options.compaction;
    if (compaction === undefined) throw new RecordFailedError('prepare', 'compaction is not mounted', undefined);
    await this.drain();
    if (this.queue.length > 0) throw new RecordFailedError(this.id, 'earlier records are still waiting for the store', undefined);
    const written = await this.writeMessages(step.prompt, step.modelId);
    if (written.offSurface) return { surfaceSeqs: this.log.fold.toArray().map((node) => node.seq), prompt: step.prompt, compacted: false };
    const before = this.log.nextSeq;
    await compaction.beforeStep(
      { sessionId: this.id, log: this.log, turn: this.turn, step: this.step + 1 },
      { provider: step.provider, modelId: step.modelId },
      fixedRequestText,
    );
    const nodes = this.log.fold.toArray();
    const origins = this.originsOf(step.prompt);
    return {
      surfaceSeqs: nodes.map((node) => node.seq),
      prompt: surfacePrompt(nodes, origins, step.prompt),
      compacted: this.log.nextSeq !== before || nodes.some((node) => this.history.isShadowlogReplacement(node, this.log.fold)),
    };
  }

  /** Waits for every record queued so far (written, or reported). */
  async settled(): Promise<void> {
    await this.drain();
  }

  /** Writes what is still queued, the steps still running as interrupted, and closes the open turn; gives up ownership. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const step of [...this.active]) {
      this.finish(
        step,
        { captured: false, reason: 'the recorder closed before the call ended' },
        {
          kind: 'failure',
          code: 'AI_SDK_INTERRUPTED',
          message: 'the recorder was closed before the outcome of this call arrived',
          retryable: true,
          contextOverflow: false,
        },
      );
    }
    this.enqueue('closing the open turn', async () => {
      if (!this.open) return;
      await this.log.append([{ type: 'turn/end', data: { turn: this.turn, reason: this.lastReason } }]);
      this.open = false;
    });
    await this.drain();
    await this.ownership.release();
  }

  private enqueue(name: string, run: () => Promise<void>): void {
    this.queue.push({ name, run, attempts: 0 });
    void this.drain();
  }

  /** Runs the queued jobs in order; a refused one stays first in line (until MAX_ATTEMPTS) and the rest wait for it. */
  private drain(): Promise<void> {
    this.draining = this.draining.then(async () => {
      // The call a job records is on its way first: a store that writes synchronously would otherwise hold it back.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const job = this.queue[0] as Job;
        try {
          job.attempts++;
          await job.run();
          this.queue.shift();
        } catch (error) {
          const givenUp = job.attempts >= MAX_ATTEMPTS;
          if (givenUp) this.queue.shift();
          this.options.onRecordError(
            new RecordFailedError(this.id, `${job.name}: ${givenUp ? 'given up after ' : ''}attempt ${job.attempts}`, error),
          );
          if (!givenUp) return;
        }
      }
    });
    return this.draining;
  }

  private originsOf(prompt: LanguageModelV3Prompt): Map<number, PromptOrigin> {
    const read = readPrompt(prompt);
    const view = this.history.view(this.log.fold);
    const origins = new Map<number, PromptOrigin>();
    if (view.length !== read.messages.length) return origins;
    for (const [index, node] of view.entries()) {
      if (this.history.keyOf(node.seq) !== messageKey(read.messages[index] as never)) return new Map();
      origins.set(node.seq, read.origins[index] as PromptOrigin);
    }
    return origins;
  }

  /** Appends the prompt's messages that are new to the app's history (and the turn events they call for). */
  private async writeMessages(
    prompt: LanguageModelV3Prompt,
    modelId: string,
    extra: (surfaceSeqs: number[], plan: Plan, offSurface: string | undefined, turn: number, step: number) => EventDraft[] = () => [],
  ): Promise<{ offSurface: boolean }> {
    const read = readPrompt(prompt);
    const keys = read.messages.map((message) => messageKey(message));
    const fold = this.log.fold;
    const now = () => new Date().toISOString();
    let chosen: { plan: Plan; turnDrafts: EventDraft[] } | undefined;
    const view = this.history.view(fold);
    const surface = fold.toArray();
    const candidates = view.length === surface.length && view.every((node, index) => node === surface[index]) ? [view] : [view, surface];
    search: for (const nodes of candidates) {
      for (const attempt of [0, 1] as const) {
        const plan = planRequest(
          {
            nodes,
            nodeKeys: nodes.map((node) => this.history.keyOf(node.seq)),
            messages: read.messages,
            keys,
            model: modelId,
            continues: false,
          },
          attempt,
        );
        if (plan === undefined) continue;
        const turnDrafts = this.turnDrafts(plan.startsTurn);
        try {
          prepareAppend(fold, [...turnDrafts, ...plan.messages.map((message) => message.draft)], now, nodeSha256Hex).rollback();
          chosen = { plan, turnDrafts };
          break search;
        } catch (error) {
          if (!ShadowlogError.isInstance(error)) throw error;
        }
      }
    }
    const unmatched = chosen === undefined ? "the app's messages cannot be written as a change of the session's surface" : undefined;
    const plan = chosen?.plan ?? { messages: [], startsTurn: false };
    const turnDrafts = chosen?.turnDrafts ?? this.turnDrafts(false);
    const next = this.nextTurn(plan.startsTurn);
    const messageDrafts = plan.messages.map((message) => message.draft);
    const trial = prepareAppend(fold, [...turnDrafts, ...messageDrafts], now, nodeSha256Hex);
    const surfaceSeqs = fold.toArray().map((node) => node.seq);
    trial.rollback();
    const written = await this.log.append([...turnDrafts, ...messageDrafts, ...extra(surfaceSeqs, plan, unmatched, next.turn, next.step)]);
    plan.messages.forEach((message, index) => {
      const event = written[turnDrafts.length + index];
      if (event !== undefined) this.history.keyed(event.seq, message.key);
    });
    if (turnDrafts.some((draft) => draft.type === 'turn/start')) this.lastReason = 'completed';
    // The step moves with the model/request: messages written ahead of it (prepare) leave it one short.
    this.turn = next.turn;
    this.open = true;
    this.step = next.step - 1;
    return { offSurface: unmatched !== undefined };
  }

  private async writeRequest(step: StepInfo, body: CapturedBody): Promise<void> {
    const request = (surfaceSeqs: number[], plan: Plan | undefined, unmatched: string | undefined, turn: number, stepNumber: number) => {
      const wire: JsonObject = body.captured
        ? {
            provenance: 'proxied',
            requestDigest: nodeSha256HexOfBytes(body.bytes),
            requestBody: bodyOf(body.bytes),
          }
        : { provenance: 'imported' };
      const data: JsonObject = {
        turn,
        step: stepNumber,
        provider: step.provider,
        model: step.modelId,
        ...wire,
        ...(encodeRequestSurface(this.log.fold.lastRequestSurface, surfaceSeqs) as unknown as JsonObject),
        ...(this.options.contextWindow === undefined ? {} : { contextWindow: this.options.contextWindow }),
        recorder: {
          name: 'shadowlog/ai-sdk',
          operation: step.operation,
          bytes: body.captured ? 'captured' : 'not-captured',
          ...(body.captured
            ? { url: redactUrl(body.url), ...(body.requests > 1 ? { requests: body.requests } : {}) }
            : { reason: body.reason }),
          ...(step.prepared === undefined ? {} : { surface: step.prepared.compacted ? 'compacted' : 'whole' }),
          ...(plan?.rewrite === undefined ? {} : { rewrite: plan.rewrite as unknown as JsonObject }),
          ...(unmatched === undefined ? {} : { unmatched }),
        },
      };
      return [{ type: 'model/request', data } satisfies EventDraft];
    };
    if (step.prepared !== undefined) {
      // The messages were written when the step was prepared; the surface it sent is the one recorded then.
      const next = this.nextTurn(false);
      await this.log.append(request([...step.prepared.surfaceSeqs], undefined, undefined, next.turn, next.step));
      this.turn = next.turn;
      this.step = next.step;
      this.open = true;
      return;
    }
    let numbered = { turn: this.turn, step: this.step };
    await this.writeMessages(step.prompt, step.modelId, (seqs, plan, unmatched, turn, stepNumber) => {
      numbered = { turn, step: stepNumber };
      return request(seqs, plan, unmatched, turn, stepNumber);
    });
    this.turn = numbered.turn;
    this.step = numbered.step;
  }

  private async writeOutcome(outcome: StepOutcome): Promise<void> {
    const { turn, step } = this;
    if (outcome.kind === 'failure') {
      const { code, message, retryable, contextOverflow } = outcome;
      await this.log.append([{ type: 'model/error', data: { turn, step, code, message, retryable, contextOverflow } }]);
      this.lastReason = code === 'AI_SDK_INTERRUPTED' ? 'interrupted' : 'error';
      return;
    }
    const { result } = outcome;
    const data = {
      content: result.content,
      toolCalls: result.toolCalls,
      model: result.responseModel ?? 'unknown',
      ...(result.usage === undefined ? {} : { usage: result.usage }),
      finishReason: result.finishReason,
      ...(result.responseId === undefined ? {} : { responseId: result.responseId }),
    } as unknown as JsonObject;
    try {
      const [event] = await this.log.append([{ type: 'assistant/message', data, surfaceOp: 'append' }]);
      if (event !== undefined) this.history.keyed(event.seq, answerKey(result));
      this.lastReason = 'completed';
    } catch (error) {
      if (!ShadowlogError.isInstance(error) || error.code === 'CONCURRENCY') throw error;
      // The log's rules refused the answer (a call id already on the surface): it is kept as it arrived.
      await this.log.append([
        {
          type: 'model/unrecorded-answer',
          data: { turn, step, code: error.code, message: error.message, raw: { format: 'result', text: JSON.stringify(result) } },
        },
      ]);
      this.lastReason = 'error';
    }
  }

  private turnDrafts(startsTurn: boolean): EventDraft[] {
    if (this.open && !startsTurn) return [];
    const drafts: EventDraft[] = [];
    if (this.open) drafts.push({ type: 'turn/end', data: { turn: this.turn, reason: this.lastReason } });
    drafts.push({ type: 'turn/start', data: { turn: this.turn + 1 } });
    return drafts;
  }

  private nextTurn(startsTurn: boolean): { turn: number; step: number } {
    if (this.open && !startsTurn) return { turn: this.turn, step: this.step + 1 };
    return { turn: this.turn + 1, step: 1 };
  }

  /** For tests and the bench: the session's log as this process holds it. */
  get sessionLog(): SessionLog {
    return this.log;
  }

  /** The first error of a failed close or job, for messages. */
  static describe(error: unknown): string {
    return messageOf(error);
  }
}

/** The key of an answer as the next step's prompt repeats it. */
function answerKey(result: ModelResult): string {
  const toolCalls = result.toolCalls.map((tool) => ({ id: tool.callId, name: tool.name, arguments: tool.arguments }));
  return messageKey({ type: 'assistant/message', content: result.content, toolCalls });
}

function bodyOf(bytes: Uint8Array): JsonObject {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return isUtf8(buffer) ? { encoding: 'utf-8', text: buffer.toString('utf8') } : { encoding: 'base64', text: buffer.toString('base64') };
}

/** The URL without its query (where some providers put keys). */
function redactUrl(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url : `${url.slice(0, at)}?…`;
}

export { RecordFailedError };
