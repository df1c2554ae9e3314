// The recall tool's sub-model variant: one bounded sub-call that reads a shadowed slice and
// answers a question about it. Depth 1: the sub-model is given no tools, so it cannot recall in
// turn. The sub-call runs in a sub-session of the same store whose parent is the calling session
// and the tool call that spawned it, as an ordinary recorded model request (replay checks it).
// Ceilings: sub-calls per turn, and estimated input tokens per sub-call; past either the call is
// refused before anything is written.

import { ConfigError } from '../../log/errors.js';
import type { SessionParent } from '../../log/event.js';
import { scriptAwareEstimator } from '../../meter/script-aware.js';
import type { LanguageModel } from '../../providers/language-model.js';
import { createHarness } from '../../spine/harness.js';
import type { LogStore } from '../../store/log-store.js';

/** The sub-model variant of the recall tool (RecallToolOptions.ask). */
export interface RecallAskOptions {
  /** The model that answers; it gets the slice and the question, and no tools. */
  readonly model: LanguageModel;
  /** Sub-calls (ask actions) answered per turn; later ones are refused. Default 1. */
  readonly maxCallsPerTurn?: number;
  /** The most input tokens (script-aware estimate of the prompt) one sub-call may send. Default 8,000. */
  readonly maxInputTokens?: number;
  /** Completion tokens one sub-call may spend. Default 1,024, or the model's default when smaller. */
  readonly maxOutputTokens?: number;
}

export interface RecallAskSettings {
  readonly model: LanguageModel;
  readonly maxCallsPerTurn: number;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
}

export const RECALL_ASK_SYSTEM_PROMPT =
  'You answer one question about an excerpt of an agent session log that was taken off the agent context. ' +
  'Answer from the excerpt only, briefly; if the excerpt does not hold the answer, say so.';

function positive(value: number | undefined, fallback: number, key: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ConfigError(`ask.${key}`, `ask.${key} must be a positive integer, found ${String(value)}`);
  return value;
}

export function resolveRecallAsk(options: RecallAskOptions): RecallAskSettings {
  if (typeof options.model?.send !== 'function')
    throw new ConfigError('ask.model', 'ask.model must be a LanguageModel: the model that answers the sub-call');
  return {
    model: options.model,
    maxCallsPerTurn: positive(options.maxCallsPerTurn, 1, 'maxCallsPerTurn'),
    maxInputTokens: positive(options.maxInputTokens, 8_000, 'maxInputTokens'),
    maxOutputTokens: positive(options.maxOutputTokens, Math.min(1_024, options.model.limits.defaultMaxOutputTokens), 'maxOutputTokens'),
  };
}

/** The user message of a sub-call: the excerpt, then the question. */
export function askPrompt(label: string, excerpt: string, question: string): string {
  return `Excerpt (${label}):\n<<<\n${excerpt}\n>>>\n\nQuestion: ${question}`;
}

/** Estimated input tokens of a sub-call's prompt (system and user text). */
export function askInputTokens(prompt: string): number {
  return scriptAwareEstimator.countText(RECALL_ASK_SYSTEM_PROMPT) + scriptAwareEstimator.countText(prompt);
}

/** The sub-session id of the sub-call a tool call spawned. */
export function askSessionId(parent: SessionParent & { callId: string }): string {
  return `${parent.sessionId}.ask-${parent.callId}`.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 128);
}

export interface AskOutcome {
  readonly sessionId: string;
  readonly text: string;
  readonly reason: string;
  readonly errorMessage?: string;
}

/** Runs the sub-call: one turn, one step, no tools, in a sub-session linked to the tool call. */
export async function runAsk(
  store: LogStore,
  settings: RecallAskSettings,
  parent: SessionParent & { callId: string },
  prompt: string,
  signal: AbortSignal,
): Promise<AskOutcome> {
  const harness = createHarness({
    store,
    model: settings.model,
    systemPrompt: RECALL_ASK_SYSTEM_PROMPT,
    maxSteps: 1,
    maxOutputTokens: settings.maxOutputTokens,
    retries: { maxRetries: 0 },
  });
  const sessionId = askSessionId(parent);
  const session = await harness.createSession(sessionId, { parent });
  try {
    const result = await session.send(prompt, { signal });
    return {
      sessionId,
      text: result.text,
      reason: result.reason,
      ...(result.error === undefined ? {} : { errorMessage: result.error.message }),
    };
  } finally {
    await session.close();
  }
}
