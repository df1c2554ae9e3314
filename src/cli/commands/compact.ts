// `shadowlog compact <id>`: a manual compaction from the command line. It takes the session
// over as a new lifecycle, summarizes with the extractive summarizer (offline, the default)
// or a named model, and prints the outcome.

import { createCompaction, type ManualOutcome } from '../../compaction/compaction-capability.js';
import { createToolResultPruner } from '../../compaction/tool-result-pruner.js';
import { withCleanup } from '../../log/cleanup.js';
import { SessionNotFoundError } from '../../log/errors.js';
import type { ModelRequestData } from '../../log/event.js';
import { dataOf } from '../../log/event-data.js';
import { assertSessionId } from '../../log/session-id.js';
import type { LanguageModel } from '../../providers/language-model.js';
import { createHarness } from '../../spine/harness.js';
import type { LogStore } from '../../store/log-store.js';
import type { CommandContext } from '../context.js';
import { rendererFor } from '../renderers.js';
import { UsageError } from '../usage-error.js';
import { type ChatOptions, createChatModel } from './chat.js';
import { type PolicyFlags, policyFlagsConfig } from './policy.js';

export interface CompactOptions extends PolicyFlags {
  /** The session model's context window, when the log does not record it. */
  readonly window?: number;
  /** Summarize with this model instead of the extractive summarizer. */
  readonly summarizer?: Pick<ChatOptions, 'provider' | 'model' | 'baseUrl'>;
  readonly prune: boolean;
}

export async function compactCommand(context: CommandContext, sessionId: string, options: CompactOptions): Promise<number> {
  assertSessionId(sessionId);
  const store = await context.store();
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  const sessionModel = await lastModel(store, sessionId, options.window);
  const summarizerModel = options.summarizer === undefined ? undefined : createChatModel(options.summarizer);
  const compaction = createCompaction({
    config: {
      ...policyFlagsConfig(options),
      summarizer:
        summarizerModel === undefined ? { kind: 'extractive' } : { provider: summarizerModel.provider, model: summarizerModel.modelId },
    },
    ...(summarizerModel === undefined ? {} : { summarizerModel }),
    ...(options.prune ? { pruner: createToolResultPruner() } : {}),
  });
  const harness = createHarness({
    store,
    model: sessionModel,
    capabilities: [compaction],
    maxOutputTokens: Math.min(sessionModel.limits.defaultMaxOutputTokens, sessionModel.limits.contextWindow - 1),
  });
  const session = await harness.openSession(sessionId, 'manual compaction by shadowlog compact');
  // The outcome is printed before the session is released: if releasing fails too (a full disk
  // fails both), the user still learns what the compaction did.
  const outcome: ManualOutcome = await withCleanup(
    async () => {
      const result = await compaction.compactNow(session);
      if (context.json) context.printJson(result);
      else context.print(describeOutcome(sessionId, result));
      return result;
    },
    () => session.close(),
  );
  return outcome.status === 'failed' ? 1 : 0;
}

function describeOutcome(sessionId: string, outcome: ManualOutcome): string {
  switch (outcome.status) {
    case 'nothing':
      return `${sessionId}: ${outcome.message}`;
    case 'compacted':
      return `${sessionId}: compacted ${outcome.shadowedSeqs.length} nodes into summary #${outcome.summarySeq}; surface ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens (see \`shadowlog origins ${sessionId} ${outcome.summarySeq}\`)`;
    case 'failed':
      return `${sessionId}: compaction failed (${outcome.reason}): ${outcome.message}${outcome.orphaned ? '; the lock stays open until `shadowlog unlock`' : ''}`;
  }
}

/** The model of the session's latest model call, with the window recorded then (or --window). */
async function lastModel(store: LogStore, sessionId: string, window: number | undefined): Promise<LanguageModel> {
  let latest: ModelRequestData | undefined;
  for await (const page of store.read(sessionId)) {
    for (const event of page) if (event.type === 'model/request') latest = dataOf(event, 'model/request');
  }
  if (latest === undefined)
    throw new UsageError(
      `session ${sessionId} has no model calls, so its model and window are unknown; there is nothing a compaction could save yet`,
    );
  const contextWindow = window ?? latest.contextWindow;
  if (contextWindow === undefined)
    throw new UsageError(`the log does not record the context window of ${latest.provider}/${latest.model}; pass --window TOKENS`);
  const renderer = rendererFor(latest.provider, latest.model);
  // An imported call may have no params: its reserve is then unknown, and 1 is the least.
  const reserve = Number((latest.params as { maxOutputTokens?: number } | undefined)?.maxOutputTokens ?? 1);
  return Object.assign(Object.create(renderer) as LanguageModel, { limits: { contextWindow, defaultMaxOutputTokens: reserve } });
}
