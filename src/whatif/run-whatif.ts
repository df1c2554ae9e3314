// Asks the planned calls (SPEC §15): each request is sent and recorded in its what-if session,
// the recorded request and the counterfactual alternately when sampling, and each call's answers
// are compared with the recorded one: by their tool calls, else by their text.

import type { JsonObject } from '../log/event.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import type { LogStore } from '../store/log-store.js';
import { type Answer, answerCounts, answerKey } from './answers.js';
import type { CallChoice } from './audited-session.js';
import { type PlannedCall, type PlanOptions, planWhatIf, type WhatIfPlan, type WhatIfQuestion } from './plan-whatif.js';
import type { ReplacementKind } from './restore-surface.js';
import { type SentWhatIf, sendWhatIf } from './whatif-call.js';

export interface WhatIfCallReport {
  /** The audited call: its model/request's seq, turn and step, and the provider and model that answered it. */
  readonly seq: number;
  readonly turn: number;
  readonly step: number;
  readonly recordedProvider: string;
  readonly recordedModel: string;
  /** The model asked now. */
  readonly provider: string;
  readonly model: string;
  readonly window: number;
  /** Whether the recorded request was proven byte for byte by its digest; why not, when it was not. */
  readonly recordedVerified: boolean;
  readonly unverified: string | null;
  readonly recordedAnswer: Answer;
  /** The question, as the what-if sessions' links record it: `{restore: 'all'}`, `{restore: [ids]}`, `{policy: {file, config}}`. */
  readonly question: JsonObject;
  readonly restored: ReadonlyArray<{
    readonly seq: number;
    readonly kind: ReplacementKind;
    readonly compactionId: string | null;
    readonly shadowed: readonly number[];
  }>;
  /** Input tokens by the script-aware estimate: the recorded surface and the counterfactual one, as requests to the model asked. */
  readonly tokens: { readonly recorded: number; readonly counterfactual: number };
  readonly counterfactual: readonly SentWhatIf[];
  /** The recorded request sent again (with --samples). */
  readonly recordedSamples: readonly SentWhatIf[];
  /** How often each answer occurred, most frequent first (with --samples). */
  readonly counts: {
    readonly recorded: ReadonlyArray<{ key: string; count: number }>;
    readonly counterfactual: ReadonlyArray<{ key: string; count: number }>;
  } | null;
  /** The counterfactual's answer differs from the recorded one (with --samples: the most frequent answers differ). */
  readonly changed: boolean;
  /** Every counterfactual request failed (the provider refused it, or could not be reached): nothing to compare; the error is recorded. */
  readonly failed: boolean;
  readonly notes: readonly string[];
}

export interface WhatIfReport {
  readonly sessionId: string;
  readonly calls: readonly WhatIfCallReport[];
  /** Calls not asked: left out by the budget, or after the run was stopped. */
  readonly skipped: ReadonlyArray<{ readonly seq: number; readonly turn: number; readonly step: number }>;
  readonly changed: number;
  /** Calls whose counterfactual requests all failed. */
  readonly failed: number;
}

export interface RunOptions {
  readonly registry: EventTypeRegistry;
  readonly signal?: AbortSignal;
  /** Told of each call once it is asked. */
  readonly onCall?: (report: WhatIfCallReport, done: number, total: number) => void;
}

export async function runWhatIf(store: LogStore, plan: WhatIfPlan, options: RunOptions): Promise<WhatIfReport> {
  const calls: WhatIfCallReport[] = [];
  for (const planned of plan.calls) {
    // Stopped (Ctrl-C): what was asked is reported, the rest not asked.
    if (options.signal?.aborted === true) break;
    const report = await askCall(store, planned, plan.samples, options);
    calls.push(report);
    options.onCall?.(report, calls.length, plan.calls.length);
  }
  return {
    sessionId: plan.sessionId,
    calls,
    skipped: [...plan.calls.slice(calls.length).map((planned) => planned.call), ...plan.skipped].map(({ seq, turn, step }) => ({
      seq,
      turn,
      step,
    })),
    changed: calls.filter((call) => call.changed).length,
    failed: calls.filter((call) => call.failed).length,
  };
}

async function askCall(store: LogStore, planned: PlannedCall, samples: number, options: RunOptions): Promise<WhatIfCallReport> {
  const { call, target } = planned;
  const send = (index: number) => {
    const session = planned.sessions[index] as PlannedCall['sessions'][number];
    const request = session.link.variant === 'recorded' ? planned.recorded : planned.counterfactual;
    return sendWhatIf(store, session.id, session.link, target.model, request, {
      registry: options.registry,
      window: target.window,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  };
  const counterfactual: SentWhatIf[] = [];
  const recordedSamples: SentWhatIf[] = [];
  const counterfactuals = Math.max(1, samples);
  // Alternately, so that a drift of the server over the run touches both alike.
  for (let sample = 0; sample < counterfactuals; sample++) {
    if (samples > 0) recordedSamples.push(await send(counterfactuals + sample));
    counterfactual.push(await send(sample));
  }
  const counts =
    samples === 0
      ? null
      : {
          recorded: answerCounts(recordedSamples.map((sent) => sent.answer)),
          counterfactual: answerCounts(counterfactual.map((sent) => sent.answer)),
        };
  // A request the provider refused, or that failed, answered nothing to compare.
  const failed = counterfactual.every((sent) => sent.answer.error !== null);
  const changed =
    !failed &&
    (counts === null
      ? answerKey((counterfactual[0] as SentWhatIf).answer) !== answerKey(planned.recordedAnswer)
      : counts.recorded[0]?.key !== counts.counterfactual[0]?.key);
  return {
    seq: call.seq,
    turn: call.turn,
    step: call.step,
    recordedProvider: call.data.provider,
    recordedModel: call.data.model,
    provider: target.model.provider,
    model: target.model.modelId,
    window: target.window,
    recordedVerified: call.replay?.verified === true,
    unverified: call.unverified ?? null,
    recordedAnswer: planned.recordedAnswer,
    question: planned.question,
    restored: planned.restored.map(({ seq, kind, compactionId, shadowed }) => ({ seq, kind, compactionId, shadowed })),
    tokens: { recorded: planned.recorded.inputTokens, counterfactual: planned.counterfactual.inputTokens },
    counterfactual,
    recordedSamples,
    counts,
    changed,
    failed,
    notes: planned.notes,
  };
}

/**
 * Plans and asks in one step (planWhatIf, then runWhatIf): for a caller with no budget to print
 * between the two, such as a probe asking one call with a surface of its own.
 */
export async function askWhatIf(
  store: LogStore,
  sessionId: string,
  choice: CallChoice,
  question: WhatIfQuestion,
  options: PlanOptions & RunOptions,
): Promise<WhatIfReport> {
  return runWhatIf(store, await planWhatIf(store, sessionId, choice, question, options), options);
}
