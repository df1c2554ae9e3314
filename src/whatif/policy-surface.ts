// The surface a compaction policy would have sent at a recorded call (SPEC §15, --policy): the
// session's originals (its append-origin messages, before any compaction shadowed them) appended
// in order to a session held in memory, with compaction mounted under the policy, and its
// trigger run before each recorded call as the spine runs it before each step. Summaries come
// from the extractive summarizer, as `tune` replays policies: no model is asked to summarize.
// What the policy leaves verbatim are copies of the audited messages; what it made (a summary, a
// pruned result) stands for the audited messages it replaced.

import { createCompaction } from '../compaction/compaction-capability.js';
import type { CompactionConfig } from '../compaction/policy/policy-config.js';
import type { PrunerConfig } from '../compaction/pruner-config.js';
import { createToolResultPruner } from '../compaction/tool-result-pruner.js';
import { isSurfaceType, type LogEvent, type SurfaceType } from '../log/event.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { origins } from '../log/origins.js';
import { encodeRequestSurface } from '../log/surface-change.js';
import { isReplaceOp } from '../log/surface-op.js';
import type { LanguageModel, ModelParams } from '../providers/language-model.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../spine/harness.js';
import { lazyFixedRequestText } from '../spine/request-overhead.js';
import { MemoryLogStore } from '../store/memory/memory-store.js';
import { SessionLog } from '../store/session-log.js';
import type { AuditedCall, AuditedSession } from './audited-session.js';
import { copyDraft, renderedData, type SurfaceEntry } from './what-if-request.js';
import { WhatIfInputError } from './whatif-errors.js';

export interface PolicySurfaceOptions {
  readonly registry: EventTypeRegistry;
  /** The model asked: the policy measures requests as it renders them (tool definitions and parameters). */
  readonly model: LanguageModel;
  readonly params: ModelParams;
  /** The window the policy's trigger is a share of, instead of the call's recorded one (tune's --window). */
  readonly window?: number;
  /** The completion tokens the policy reserves, instead of the parameters' (tune's reserve for the session). */
  readonly reserve?: number;
  /** The tool-result pruner to mount: its configuration, or null for none (default: the pruner at its defaults, as chat mounts it). */
  readonly pruner?: PrunerConfig | null;
}

const REPLAY_ID = 'policy-replay';

/** The counterfactual surface of `call` under `config` (with the default tool-result pruner mounted, as chat mounts it, unless `options.pruner` says otherwise). */
export async function policySurface(
  audit: AuditedSession,
  call: AuditedCall,
  config: CompactionConfig,
  options: PolicySurfaceOptions,
): Promise<SurfaceEntry[]> {
  if (config.strategy === 'native' || config.strategy === 'auto')
    throw new WhatIfInputError(
      `the policy's strategy is ${config.strategy}, which asks the provider to compact; --policy replays a policy offline: use summary, mask or recall`,
    );
  // The window the session ran in: the policy's trigger is a share of it.
  const window = options.window ?? call.data.contextWindow ?? options.model.limits.contextWindow;
  const reserve =
    options.reserve ??
    options.params.maxOutputTokens ??
    Math.min(DEFAULT_MAX_OUTPUT_TOKENS, options.model.limits.defaultMaxOutputTokens, window - 1);
  const model = sizedModel(options.model, window, reserve);
  const pruner =
    options.pruner === undefined ? createToolResultPruner() : options.pruner === null ? undefined : createToolResultPruner(options.pruner);
  const compaction = createCompaction({
    config: { ...config, summarizer: { kind: 'extractive' } },
    ...(pruner === undefined ? {} : { pruner }),
  });
  compaction.mount({ model, maxOutputTokens: reserve, fixedRequestText: lazyFixedRequestText(model, options.params) });
  const store = new MemoryLogStore();
  const log = await SessionLog.create(store, REPLAY_ID, {
    registry: options.registry,
    checkpoints: false,
    observe: (event) => compaction.observe(REPLAY_ID, event),
  });
  const originals = new Map<number, LogEvent>();
  const signal = new AbortController().signal;
  const step = async (request: { readonly turn: number; readonly step: number }) => {
    await compaction.beforeStep({
      sessionId: REPLAY_ID,
      log,
      model,
      maxOutputTokens: reserve,
      signal,
      turn: request.turn,
      step: request.step,
    });
  };
  const requests = audit.requests.filter((request) => request.seq < call.seq);
  let next = 0;
  const sendRequestsBefore = async (seq: number) => {
    for (; next < requests.length && (requests[next] as { seq: number }).seq < seq; next++) {
      const request = requests[next] as { seq: number; turn: number; step: number };
      await step(request);
      await log.append([
        {
          type: 'model/request',
          data: {
            turn: request.turn,
            step: request.step,
            provenance: 'imported',
            provider: model.provider,
            model: model.modelId,
            ...encodeRequestSurface(
              log.fold.lastRequestSurface,
              log.fold.toArray().map((node) => node.seq),
            ),
          },
        },
      ]);
    }
  };
  for (const event of audit.events.values()) {
    if (event.seq >= call.seq) break;
    if (!isSurfaceType(event.type) || isReplaceOp(event.surfaceOp) || event.data.copyOf !== undefined) continue;
    await sendRequestsBefore(event.seq);
    const [copy] = await log.append([copyDraft(audit.sessionId, event)]);
    originals.set((copy as LogEvent).seq, event);
  }
  await sendRequestsBefore(call.seq);
  await step(call);
  const entries: SurfaceEntry[] = [];
  for (const node of log.fold.toArray()) {
    const original = originals.get(node.seq);
    if (original !== undefined) {
      entries.push({ copyOf: original });
      continue;
    }
    const stood = await origins(node.seq, (seq) => store.readEvent(REPLAY_ID, seq));
    entries.push({
      type: node.type,
      data: renderedData(node.type as SurfaceType, node.event.data),
      standsFor: stood.map((seq) => (originals.get(seq) as LogEvent).seq),
    });
  }
  return entries;
}

/** `model` as the policy measures it: its renderer, in the session's window, with its reserve. */
function sizedModel(model: LanguageModel, contextWindow: number, reserve: number): LanguageModel {
  return {
    provider: model.provider,
    modelId: model.modelId,
    rendererVersion: model.rendererVersion,
    limits: { contextWindow, defaultMaxOutputTokens: reserve },
    render: (request, version) => model.render(request, version),
    send: () => Promise.reject(new WhatIfInputError('the policy replay sends nothing; this is a bug in shadowlog')),
  };
}
