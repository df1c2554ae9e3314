// The public entry of compaction (the `shadowlog/compaction` subpath): the capability, its
// policy, the transaction's outcome, summarizers, the pruner, and the strategies that decide
// what replaces a compacted range.

export { CompactionCapability, type CompactionOptions, createCompaction, type ManualOutcome } from './compaction-capability.js';
export {
  COMPACTION_EVENT_TYPES,
  COMPACTION_MASK,
  COMPACTION_POLICY,
  type CompactionMaskData,
  type CompactionPolicyData,
  type CompactionTrigger,
} from './event-types.js';
export * from './policy.js';
export { parsePrunerConfig, pruneMarker } from './pruner-config.js';
export { boundRecallResult, parseRecallConfig, RECALL_DEFAULTS, type RecallConfig } from './recall/recall-config.js';
export { eventText, type RecallIndex, RecallReader, recallHandleOf } from './recall/recall-index.js';
export { createRecallTool, RECALL_TOOL_NAME, RecallError, type RecallToolOptions } from './recall/recall-tool.js';
export { replaySummary, type SummaryReplayResult } from './replay-summary.js';
export { type Selection, selectRange } from './select-range.js';
export { isMaskPlaceholder, MASK_PREFIX, maskPlaceholder } from './strategies/mask-placeholder.js';
export { createMaskStrategy, type MaskStrategyOptions } from './strategies/mask-strategy.js';
export { NATIVE_COMPACTIONS, type NativeCompaction, nativeStrategyFor } from './strategies/native-compactions.js';
export { createRecallStrategy, type RecallHandle, recallHandleText } from './strategies/recall-strategy.js';
export {
  NativeCompactionUnavailableError,
  type ResolveStrategyOptions,
  resolveStrategy,
  type StrategyFactories,
} from './strategies/resolve-strategy.js';
export {
  type CompactionStrategy,
  isStrategyName,
  type ResolvedStrategyName,
  type SelectInput,
  STRATEGY_NAMES,
  StrategyFailure,
  type StrategyInput,
  type StrategyName,
  type StrategyPlan,
} from './strategies/strategy.js';
export { createSummaryStrategy, selectWholeRange, summarizeSelection, summaryPlan } from './strategies/summary-strategy.js';
export {
  createExtractiveSummarizer,
  createModelSummarizer,
  type Summarizer,
  type SummaryRequest,
  type SummaryResult,
} from './summarizer.js';
export { createToolResultPruner, ToolResultPruner } from './tool-result-pruner.js';
export type { CompactionFailure, CompactionOutcome } from './transaction.js';
