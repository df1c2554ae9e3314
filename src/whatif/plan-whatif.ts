// Everything a what-if decides before it sends anything (SPEC §15): the calls it asks (one, or
// every call between a compaction and the next, within the call budget), for each the
// counterfactual surface and the recorded one as requests for the model asked, held to its
// window, and the ids of the what-if sessions that will record them. A bad question fails here,
// with a typed error, having sent and written nothing.

import type { JsonObject, WhatIfLink } from '../log/event.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import type { LanguageModel, ModelParams } from '../providers/language-model.js';
import type { RendererResolver } from '../spine/replay.js';
import type { LogStore } from '../store/log-store.js';
import { type Answer, answerOfEvent } from './answers.js';
import { type AuditedCall, type AuditedSession, type CallChoice, readAudit } from './audited-session.js';
import { type Replacement, type RestoreChoice, restoreSurface } from './restore-surface.js';
import { type BuiltRequest, buildWhatIfRequest, type SurfaceEntry } from './what-if-request.js';
import { WhatIfBudgetError, WhatIfInputError } from './whatif-errors.js';
import { whatIfSessionIds } from './whatif-ids.js';
import { windowRefusal } from './window-refusal.js';

/** What a what-if changes: replacements undone, or a surface a caller builds (a policy's, a probe's). */
export type WhatIfQuestion =
  | { readonly restore: RestoreChoice }
  | {
      /** How the question is recorded in each what-if session's link. */
      readonly label: JsonObject;
      readonly surface: (
        audit: AuditedSession,
        call: AuditedCall,
        target: WhatIfTarget,
        params: ModelParams,
      ) => readonly SurfaceEntry[] | Promise<readonly SurfaceEntry[]>;
    };

/** The model a call is asked again of, and the window its request is held to. */
export interface WhatIfTarget {
  readonly model: LanguageModel;
  readonly window: number;
}

export interface PlanOptions {
  readonly registry: EventTypeRegistry;
  /** Renders the recorded requests again, to prove them by their digests. */
  readonly resolveRenderer: RendererResolver;
  /** The model and window for a call (a caller defaults to the recorded provider and model). */
  readonly target: (call: AuditedCall) => WhatIfTarget;
  /** Send the recorded request and the counterfactual this many times each (0: the counterfactual once). */
  readonly samples: number;
  /** The most requests the what-if may send in all. */
  readonly maxCalls: number;
  /** Completion tokens to reserve instead of the recorded call's (both requests are sent with it). */
  readonly maxOutputTokens?: number;
}

export interface PlannedCall {
  readonly call: AuditedCall;
  readonly target: WhatIfTarget;
  readonly counterfactual: BuiltRequest;
  /** The recorded surface, copied as it was, rendered for the model asked. */
  readonly recorded: BuiltRequest;
  /** The replacements the counterfactual undid (empty for a question that builds its own surface). */
  readonly restored: readonly Replacement[];
  readonly recordedAnswer: Answer;
  /** The question, as each what-if session's link records it. */
  readonly question: JsonObject;
  /** Each request's session, with the link its session/start will hold. */
  readonly sessions: ReadonlyArray<{ readonly id: string; readonly link: WhatIfLink }>;
  /** What the reader should know about the request (parameters the log does not hold). */
  readonly notes: readonly string[];
}

export interface WhatIfPlan {
  readonly sessionId: string;
  readonly calls: readonly PlannedCall[];
  /** Calls the budget left out, in order. */
  readonly skipped: readonly AuditedCall[];
  readonly compaction?: AuditedSession['compaction'];
  readonly samples: number;
  readonly maxCalls: number;
  /** Requests per call: 2 × samples, or 1. */
  readonly requestsPerCall: number;
}

/** The requests one what-if may send unless its caller allows more (the CLI's --max-calls). */
export const DEFAULT_WHATIF_MAX_CALLS = 20;

/** Checks a call budget: a positive whole number of calls. */
export function checkCallBudget(maxCalls: number, flag = '--max-calls'): void {
  if (!Number.isSafeInteger(maxCalls) || maxCalls < 1)
    throw new WhatIfBudgetError(maxCalls, `${flag} must allow at least one call, found ${maxCalls}; nothing was sent`);
}

export async function planWhatIf(
  store: LogStore,
  sessionId: string,
  choice: CallChoice,
  question: WhatIfQuestion,
  options: PlanOptions,
): Promise<WhatIfPlan> {
  checkCallBudget(options.maxCalls);
  if (!Number.isSafeInteger(options.samples) || options.samples < 0)
    throw new WhatIfBudgetError(options.maxCalls, `--samples must be a whole number of at least 1, found ${options.samples}`);
  const requestsPerCall = options.samples === 0 ? 1 : 2 * options.samples;
  if (requestsPerCall > options.maxCalls)
    throw new WhatIfBudgetError(
      options.maxCalls,
      `--samples ${options.samples} sends ${requestsPerCall} requests per call (the recorded one and the counterfactual, ${options.samples} times each), more than --max-calls ${options.maxCalls} allows; raise --max-calls or lower --samples`,
    );
  const audit = await readAudit(store, sessionId, choice, options);
  const fit = Math.floor(options.maxCalls / requestsPerCall);
  const asked = audit.calls.slice(0, fit);
  const ids = await whatIfSessionIds(store, sessionId, asked, options.samples);
  const calls: PlannedCall[] = [];
  for (const [index, call] of asked.entries()) {
    calls.push(await planCall(audit, call, question, options, ids[index] as readonly string[]));
  }
  return {
    sessionId,
    calls,
    skipped: audit.calls.slice(fit),
    ...(audit.compaction === undefined ? {} : { compaction: audit.compaction }),
    samples: options.samples,
    maxCalls: options.maxCalls,
    requestsPerCall,
  };
}

async function planCall(
  audit: AuditedSession,
  call: AuditedCall,
  question: WhatIfQuestion,
  options: PlanOptions,
  ids: readonly string[],
): Promise<PlannedCall> {
  const offSurface = call.replay?.offSurface;
  if (offSurface !== undefined)
    throw new WhatIfInputError(
      `turn ${call.turn} step ${call.step} (event #${call.seq}) is a proxied call whose messages are not on the session's surface (${offSurface.reason}): there is no recorded surface to change; \`shadowlog replay\` shows what its body held`,
    );
  const recordedParams = paramsOf(call);
  const { notes } = recordedParams;
  const params =
    options.maxOutputTokens === undefined ? recordedParams.params : { ...recordedParams.params, maxOutputTokens: options.maxOutputTokens };
  const restored = 'restore' in question ? restoreSurface(audit, call, question.restore) : undefined;
  // Asked after the question is checked: a call with nothing to restore is told so before a missing key.
  const target = options.target(call);
  const entries =
    restored === undefined
      ? await (question as Exclude<WhatIfQuestion, { restore: RestoreChoice }>).surface(audit, call, target, params)
      : restored.events.map((event) => ({ copyOf: event }));
  const label: JsonObject =
    restored === undefined
      ? (question as { readonly label: JsonObject }).label
      : { restore: restored.names === 'all' ? 'all' : [...restored.names] };
  const run = ids[0] as string;
  const links = ids.map((_id, index) => linkOf(audit.sessionId, call, label, run, index, options.samples));
  const counterfactual = await buildWhatIfRequest(audit.sessionId, entries, target.model, params, links[0] as WhatIfLink, options.registry);
  const recordedEntries = call.nodes.map((node) => ({ copyOf: node.event }));
  const recordedLink = links.find((link) => link.variant === 'recorded') ?? { ...(links[0] as WhatIfLink), variant: 'recorded' as const };
  const recorded = await buildWhatIfRequest(audit.sessionId, recordedEntries, target.model, params, recordedLink, options.registry);
  windowRefusal(audit, call, counterfactual, target, restored?.restored ?? [], recorded.inputTokens);
  if (options.samples > 0) windowRefusal(audit, call, recorded, target, [], recorded.inputTokens);
  return {
    call,
    target,
    counterfactual,
    recorded,
    restored: restored?.restored ?? [],
    recordedAnswer: answerOfEvent(call.answer),
    question: label,
    sessions: ids.map((id, index) => ({ id, link: links[index] as WhatIfLink })),
    notes,
  };
}

/** The link of the index-th session of a call: the counterfactual samples first, then the recorded ones. */
function linkOf(sessionId: string, call: AuditedCall, question: JsonObject, run: string, index: number, samples: number): WhatIfLink {
  const counterfactuals = Math.max(1, samples);
  const recorded = index >= counterfactuals;
  return {
    sessionId,
    requestSeq: call.seq,
    turn: call.turn,
    step: call.step,
    question,
    variant: recorded ? 'recorded' : 'counterfactual',
    sample: recorded ? index - counterfactuals + 1 : index + 1,
    run,
  };
}

/** The recorded call's parameters; a call shadowlog did not send (imported, proxied) recorded none, and is asked with none. */
function paramsOf(call: AuditedCall): { params: ModelParams; notes: string[] } {
  if (call.data.provenance === undefined) return { params: call.data.params as unknown as ModelParams, notes: [] };
  return {
    params: { tools: [], stream: false },
    notes: [
      `the call was ${call.data.provenance === 'proxied' ? 'proxied' : 'imported'}: the log holds its messages, not its tool definitions and parameters as shadowlog sends them, so the what-if sends the messages with no tool definitions (the recorded answer was given with the client's)`,
    ],
  };
}
