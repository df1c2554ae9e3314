// Sends a what-if request and records it as any call is recorded (SPEC §15): a what-if session
// whose session/start names the audited call, its surface the copies the request was built from,
// a model/request with the digest of the exact bytes sent, then the answer (or the error), and
// the turn's end. Nothing is written to the audited session.

import { withCleanup } from '../log/cleanup.js';
import type { EventDraft, JsonObject, LogEvent, RawAnswer, WhatIfLink } from '../log/event.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import type { LanguageModel, ModelResult } from '../providers/language-model.js';
import { ProviderError } from '../providers/provider-error.js';
import { assistantMessageDraft, modelErrorDraft, rawAnswerOf, refusalOf, unrecordedAnswerDraft } from '../spine/answer-record.js';
import { ToolCallIds } from '../spine/tool-call-ids.js';
import type { LogStore } from '../store/log-store.js';
import { SessionLog } from '../store/session-log.js';
import { type Answer, answerOfEvent, answerOfResult } from './answers.js';
import type { BuiltRequest } from './what-if-request.js';

export interface SentWhatIf {
  /** The what-if session that records the call. */
  readonly sessionId: string;
  /** The seq of its model/request (turn 1, step 1). */
  readonly requestSeq: number;
  /** The SHA-256 of the bytes sent. */
  readonly digest: string;
  readonly answer: Answer;
}

export interface SendOptions {
  readonly registry: EventTypeRegistry;
  readonly signal?: AbortSignal;
  /** The window the request was held to, recorded with it. */
  readonly window: number;
}

/** Writes the what-if session `sessionId`, sends `request` to `model`, and records its answer. */
export async function sendWhatIf(
  store: LogStore,
  sessionId: string,
  link: WhatIfLink,
  model: LanguageModel,
  request: BuiltRequest,
  options: SendOptions,
): Promise<SentWhatIf> {
  const ownership = await store.acquireOwnership(sessionId);
  // Released whatever happens; a failure to release does not hide the failure that came first.
  return withCleanup(
    () => writeAndSend(store, sessionId, link, model, request, options),
    () => ownership.release(),
  );
}

/** The what-if session's events around the call: its start and copies, the request, then the answer or the error. */
async function writeAndSend(
  store: LogStore,
  sessionId: string,
  link: WhatIfLink,
  model: LanguageModel,
  request: BuiltRequest,
  options: SendOptions,
): Promise<SentWhatIf> {
  const log = await SessionLog.create(store, sessionId, { registry: options.registry, whatif: link });
  const ids = new ToolCallIds();
  const copies = request.drafts.length === 0 ? [] : await log.append(request.drafts);
  for (const copy of copies) ids.observe(copy);
  const [, sent] = await log.append([{ type: 'turn/start', data: { turn: 1 } }, requestDraft(copies, model, request, options.window)]);
  const requestSeq = (sent as LogEvent).seq;
  let raw: RawAnswer | undefined;
  let result: ModelResult;
  try {
    result = await model.send(
      { body: request.body, wireText: request.wireText },
      {
        onRawAnswer: (answer) => {
          raw = answer;
        },
        estimatedInputTokens: request.inputTokens,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    const [failed] = await log.append([modelErrorDraft(1, 1, error, 1, undefined), turnEnd('error')]);
    return { sessionId, requestSeq, digest: request.digest, answer: answerOfEvent(failed) };
  }
  const answer = assistantMessageDraft(result, ids.assign(result.toolCalls, log.nextSeq), model.modelId);
  const recorded = { ...answer, data: { ...(answer.data as JsonObject), finishReason: result.finishReason } };
  try {
    await log.append([recorded, turnEnd('completed')]);
  } catch (error) {
    const refusal = refusalOf(error, 'the what-if answer');
    if (refusal === undefined) throw error;
    await log.append([unrecordedAnswerDraft(1, 1, refusal, rawAnswerOf(result, raw)), turnEnd('error')]);
  }
  return { sessionId, requestSeq, digest: request.digest, answer: answerOfResult(result) };
}

function requestDraft(copies: readonly LogEvent[], model: LanguageModel, request: BuiltRequest, window: number): EventDraft {
  return {
    type: 'model/request',
    data: {
      turn: 1,
      step: 1,
      provider: model.provider,
      model: model.modelId,
      params: request.params as unknown as JsonObject,
      surfaceSeqs: copies.map((copy) => copy.seq),
      requestDigest: request.digest,
      estimatedTokens: request.inputTokens,
      contextWindow: window,
      rendererVersion: request.rendererVersion,
    },
  };
}

function turnEnd(reason: 'completed' | 'error'): EventDraft {
  return { type: 'turn/end', data: { turn: 1, reason } };
}
