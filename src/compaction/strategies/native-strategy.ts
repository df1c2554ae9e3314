// The `native` strategy: the provider compacts. The shadowed nodes go to the provider's own
// compaction (Anthropic's compact_20260112, the Responses API's compact endpoint) exactly as the
// model was sent them, with the session's tools; what the provider returns becomes the replacing
// node, one assistant/message holding one compaction block, kept as the provider returned it and
// sent back as it requires. The call is recorded like a summarizer's: its digest and renderer
// version in compaction/summary (summarizer "native"), so that `replay --compaction` rebuilds it.

import { canonicalJson } from '../../log/canonical-json.js';
import type { CompactionBlock } from '../../log/content-block.js';
import { messageOf } from '../../log/errors.js';
import type { JsonObject } from '../../log/event.js';
import { sha256Hex } from '../../log/sha256.js';
import type { LanguageModel, ToolDefinition } from '../../providers/language-model.js';
import type { NativeCompactor } from '../../providers/native-compaction.js';
import { renderSurface } from '../../spine/render-surface.js';
import type { SessionLog } from '../../store/session-log.js';
import { rangeProblem } from '../select-range-problem.js';
import { checkKeptItems } from './kept-items.js';
import { replacementPlan, tokensOf } from './replacement-plan.js';
import { NativeCompactionUnavailableError } from './resolve-strategy.js';
import type { CompactionStrategy, StrategyInput, StrategyPlan } from './strategy.js';
import { StrategyFailure } from './strategy.js';
import { selectWholeRange } from './summary-strategy.js';

export interface NativeStrategyOptions {
  /**
   * What runs instead when the range is smaller than the provider compacts at all (`auto`: the
   * summary strategy). Without one, such a range fails with the provider's minimum named.
   */
  readonly fallback?: () => CompactionStrategy;
}

/** The native strategy of `model`, whose provider must have a compaction of its own. */
export function createNativeStrategy(model: LanguageModel, options: NativeStrategyOptions = {}): CompactionStrategy {
  const compactor = model.nativeCompaction;
  if (compactor === undefined) throw new NativeCompactionUnavailableError(model.provider, model.modelId);
  return {
    name: 'native',
    select: selectWholeRange,
    problem: rangeProblem,
    delegateFor(selection, fold) {
      const fallback = options.fallback;
      const unserved = tokensOf(selection) < compactor.minimumInputTokens || fold.formatVersion === 1;
      return fallback !== undefined && unserved ? fallback() : undefined;
    },
    async plan(input) {
      // Checked before the call, so that no compaction is paid for that the log could not hold.
      if (input.log.fold.formatVersion === 1) {
        throw new StrategyFailure(
          `session ${input.log.sessionId} is written in log format 1, which has no compaction block; compact it with strategy summary, or auto, which does`,
        );
      }
      const shadowedTokenCount = tokensOf(input.selection);
      if (shadowedTokenCount < compactor.minimumInputTokens) {
        throw new StrategyFailure(
          `the range (${shadowedTokenCount} tokens by the session's meter) is smaller than ${model.provider} compacts at all (${compactor.minimumInputTokens} input tokens, its smallest trigger); use strategy auto, which summarizes such a range, or summary`,
        );
      }
      return nativePlan(input, model, compactor);
    },
  };
}

async function nativePlan(input: StrategyInput, model: LanguageModel, compactor: NativeCompactor): Promise<StrategyPlan> {
  if (input.signal.aborted) throw new StrategyFailure('the compaction was cancelled before the provider was asked', undefined, 'cancelled');

  const tools = await latestTools(input.log).catch((error: unknown) => {
    throw new StrategyFailure(`the session's tools could not be read: ${messageOf(error)}`, error);
  });
  const rendered = compactor.render({ messages: renderSurface(input.nodes), params: { tools: tools?.tools ?? [] } });
  const wireText = canonicalJson(rendered.body);
  const result = await compactor.send({ body: rendered.body, wireText }, { signal: input.signal }).catch((error: unknown) => {
    if (input.signal.aborted)
      throw new StrategyFailure('the compaction was cancelled while the provider compacted', undefined, 'cancelled');
    throw new StrategyFailure(`${model.provider} did not compact: ${messageOf(error)}`, error);
  });
  // What the provider kept of the range must have been in it: a message it added would stand on the surface as the user's.
  try {
    checkKeptItems(model.provider, result.block, rendered.body);
  } catch (error) {
    throw new StrategyFailure(messageOf(error), error);
  }
  const replacement = { content: [result.block], toolCalls: [], model: model.modelId };
  return replacementPlan(input, {
    what: `${model.provider}'s compaction`,
    summaryTokens: input.priceOfData('assistant/message', replacement),
    facts: {
      provider: model.provider,
      model: model.modelId,
      usage: result.usage === undefined ? null : { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
      requestDigest: sha256Hex(wireText),
      rendererVersion: compactor.rendererVersion,
      summarizer: 'native',
      ...(tools === undefined ? {} : { toolsSeq: tools.seq }),
      ...(result.responseId === undefined ? {} : { responseId: result.responseId }),
      ...(result.requestId === undefined ? {} : { requestId: result.requestId }),
    },
    node: { type: 'assistant/message', data: replacement as unknown as JsonObject },
  });
}

/** The tools of the session's latest model call, and its seq (replay sends the same); none before any call. */
async function latestTools(log: SessionLog): Promise<{ readonly seq: number; readonly tools: ToolDefinition[] } | undefined> {
  for (let seq = log.nextSeq - 1; seq >= 0; seq--) {
    const event = await log.store.readEvent(log.sessionId, seq);
    if (event.type !== 'model/request') continue;
    const tools = (event.data.params as { tools?: unknown } | undefined)?.tools;
    return Array.isArray(tools) && tools.length > 0 ? { seq, tools: tools as ToolDefinition[] } : undefined;
  }
  return undefined;
}

/** The compaction block a native replacement holds, if `data` is one. */
export function compactionBlockOf(data: { readonly content?: unknown }): CompactionBlock | undefined {
  const [first] = Array.isArray(data.content) ? data.content : [];
  return typeof first === 'object' && first !== null && (first as { type?: unknown }).type === 'compaction'
    ? (first as CompactionBlock)
    : undefined;
}
