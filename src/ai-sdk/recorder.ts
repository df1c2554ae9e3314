// shadowlog for apps built on the Vercel AI SDK (ai@6, LanguageModelV3): a middleware that
// records every model call of a session in the log, a fetch that captures the exact bytes each
// call sent, and, with `compaction`, compaction at the log layer: the model is sent the session's
// surface while the app keeps its own whole `messages`.
//
//   const recorder = await createAiSdkRecorder({ store, sessionId: 'support-42' });
//   const model = wrapLanguageModel({
//     model: createOpenAI({ fetch: recorder.fetch }).chat('gpt-4.1-mini'),
//     middleware: recorder.middleware,
//   });

import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Middleware, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { PrunerOptions } from '../compaction/pruner-config.js';
import { ConfigError, messageOf, ShadowlogError } from '../log/errors.js';
import { assertSessionId } from '../log/session-id.js';
import { isContextOverflow } from '../providers/context-overflow.js';
import type { LogStore } from '../store/log-store.js';
import { answerOfGenerate, StreamCollector } from './answer-of.js';
import { type AiSdkCompactionOptions, LogCompaction } from './log-compaction.js';
import { type PreparedStep, RecorderSession, type StepInfo, type StepOutcome } from './recorder-session.js';
import { openNamedStore, StoreUnavailableError } from './recorder-store.js';
import { capturingFetch, StepCapture, withCapture } from './wire-capture.js';

export interface AiSdkRecorderOptions {
  /** Where the log is written: a LogStore, or a store named as the CLI names one (`sqlite:PATH`, a `.db` path, `postgres://…`). */
  readonly store: LogStore | string;
  /** The session to record; an existing one is continued (a new lifecycle). */
  readonly sessionId: string;
  /** The model's context window in tokens: required with compaction, recorded with each call. */
  readonly contextWindow?: number;
  /** The completion tokens the app reserves per call (the trigger subtracts them from the window); default 16,384 or less than the window. */
  readonly maxOutputTokens?: number;
  /** Compaction at the log layer; needs contextWindow. */
  readonly compaction?: AiSdkCompactionOptions;
  /** The tool-result pruner (SPEC §9), run by compaction before it summarizes. */
  readonly pruner?: PrunerOptions;
  /** Told each record the store refused (the app's call went on). Default: a process warning. */
  readonly onRecordError?: (error: unknown) => void;
  /** The fetch the recorder's fetch forwards to (default globalThis.fetch). */
  readonly baseFetch?: typeof globalThis.fetch;
}

export interface AiSdkRecorder {
  readonly sessionId: string;
  /** For wrapLanguageModel({ model, middleware }). */
  readonly middleware: LanguageModelV3Middleware;
  /** For the provider's settings (createOpenAI({ fetch })): captures the bytes each call sends. */
  readonly fetch: typeof globalThis.fetch;
  /** Waits until every call that has ended is in the store (or reported). */
  flush(): Promise<void>;
  /** Writes what is left, ends the open turn, and gives up the session (and the store, if the recorder opened it). */
  close(): Promise<void>;
}

const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;

/**
 * A recorder for one session. Refuses bad input with a typed error before any model call: a
 * session another writer owns (SessionBusyError), a store that cannot be opened
 * (StoreUnavailableError), an invalid compaction configuration (ConfigError).
 */
export async function createAiSdkRecorder(options: AiSdkRecorderOptions): Promise<AiSdkRecorder> {
  const sessionId = assertSessionId(options.sessionId);
  const { contextWindow } = options;
  if (contextWindow !== undefined && (!Number.isSafeInteger(contextWindow) || contextWindow < 1))
    throw new ConfigError('contextWindow', `contextWindow must be a positive integer (tokens), found ${String(contextWindow)}`);
  const maxOutputTokens =
    options.maxOutputTokens ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, Math.floor((contextWindow ?? Number.MAX_SAFE_INTEGER) / 4));
  if (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1 || (contextWindow !== undefined && maxOutputTokens >= contextWindow))
    throw new ConfigError(
      'maxOutputTokens',
      `maxOutputTokens must be a positive integer below the context window (${contextWindow ?? 'not given'}), found ${String(maxOutputTokens)}`,
    );
  if (options.pruner !== undefined && options.compaction === undefined)
    throw new ConfigError('pruner', 'the pruner runs as part of compaction: give compaction too, or leave pruner out');
  let compaction: LogCompaction | undefined;
  if (options.compaction !== undefined) {
    if (contextWindow === undefined)
      throw new ConfigError('contextWindow', "compaction needs the model's context window: give contextWindow (tokens)");
    compaction = new LogCompaction(options.compaction, options.pruner, contextWindow, maxOutputTokens);
  }
  const onRecordError =
    options.onRecordError ?? ((error: unknown) => process.emitWarning(messageOf(error), { code: 'SHADOWLOG_AI_SDK_RECORD' }));
  const opened = typeof options.store === 'string' ? await openNamedStore(options.store) : undefined;
  const store = opened ?? (options.store as LogStore);
  let session: RecorderSession;
  try {
    session = await RecorderSession.start(store, sessionId, {
      onRecordError,
      ...(contextWindow === undefined ? {} : { contextWindow }),
      ...(compaction === undefined ? {} : { compaction }),
    });
  } catch (error) {
    await opened?.close().catch(() => {});
    if (ShadowlogError.isInstance(error)) throw error;
    throw new StoreUnavailableError(typeof options.store === 'string' ? options.store : 'the store given', error);
  }
  let fetchUsed = false;
  const prepared = new WeakMap<LanguageModelV3CallOptions, { prompt: LanguageModelV3CallOptions['prompt']; step: PreparedStep }>();
  const stepOf = (params: LanguageModelV3CallOptions, model: LanguageModelV3, operation: 'generate' | 'stream'): StepInfo => {
    const ready = prepared.get(params);
    return {
      provider: model.provider,
      modelId: model.modelId,
      operation,
      prompt: ready?.prompt ?? params.prompt,
      ...(ready === undefined ? {} : { prepared: ready.step }),
    };
  };
  // Recording never stands in the app's way: a failure here is reported, and the call goes on.
  const safely = (record: () => void) => {
    try {
      record();
    } catch (error) {
      onRecordError(error);
    }
  };

  const middleware: LanguageModelV3Middleware = {
    specificationVersion: 'v3',
    ...(compaction === undefined
      ? {}
      : {
          transformParams: async ({ params, model, type }) => {
            try {
              const step = await session.prepare(
                { provider: model.provider, modelId: model.modelId, operation: type, prompt: params.prompt },
                JSON.stringify(params.tools ?? []),
              );
              const sent = { ...params, prompt: step.prompt };
              prepared.set(sent, { prompt: params.prompt, step });
              return sent;
            } catch (error) {
              onRecordError(error);
              return params;
            }
          },
        }),
    async wrapGenerate({ doGenerate, params, model }) {
      const step = stepOf(params, model, 'generate');
      session.begin(step);
      const capture = new StepCapture();
      try {
        const result = await withCapture(capture, doGenerate);
        safely(() => session.finish(step, capture.result(fetchUsed), { kind: 'answer', result: answerOfGenerate(result) }));
        return result;
      } catch (error) {
        safely(() => session.finish(step, capture.result(fetchUsed), failureOf(error)));
        throw error;
      }
    },
    async wrapStream({ doStream, params, model }) {
      const step = stepOf(params, model, 'stream');
      session.begin(step);
      const capture = new StepCapture();
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await withCapture(capture, doStream);
      } catch (error) {
        safely(() => session.finish(step, capture.result(fetchUsed), failureOf(error)));
        throw error;
      }
      const body = capture.result(fetchUsed);
      const collector = new StreamCollector();
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, controller) {
            controller.enqueue(part);
            safely(() => collector.add(part));
          },
          flush() {
            safely(() =>
              session.finish(
                step,
                body,
                collector.error !== undefined && !collector.finished
                  ? failureOf(collector.error)
                  : { kind: 'answer', result: collector.answer() },
              ),
            );
          },
        }),
      );
      return { ...result, stream };
    },
  };

  return {
    sessionId,
    middleware,
    fetch: capturingFetch(options.baseFetch ?? globalThis.fetch, () => {
      fetchUsed = true;
    }),
    flush: () => session.settled(),
    async close() {
      try {
        await session.close();
      } finally {
        compaction?.release(sessionId);
        await opened?.close();
      }
    },
  };
}

/** A failed call as the log records it (model/error). */
function failureOf(error: unknown): StepOutcome {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    statusCode?: unknown;
    isRetryable?: unknown;
    responseBody?: unknown;
  };
  const message = messageOf(error);
  const status = typeof fields.statusCode === 'number' ? fields.statusCode : undefined;
  const name = typeof fields.name === 'string' ? fields.name : 'Error';
  return {
    kind: 'failure',
    code:
      name === 'AbortError'
        ? 'AI_SDK_ABORTED'
        : `AI_SDK_${name
            .replace(/^AI_/, '')
            .replace(/[^A-Za-z0-9]+/g, '_')
            .toUpperCase()}`,
    message: status === undefined ? message : `HTTP ${status}: ${message}`,
    retryable: fields.isRetryable === true,
    contextOverflow:
      status !== undefined && isContextOverflow(status, `${message} ${typeof fields.responseBody === 'string' ? fields.responseBody : ''}`),
  };
}
