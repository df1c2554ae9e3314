// Compaction (SPEC §6–§9), published as `shadowlog/compaction`: the capability and its policy,
// the transaction's outcome, the summarizers, the tool-result pruner, the strategies that decide
// what replaces a compacted range, the compaction events, and reading a summary back.

export {
  CompactionCapability,
  CompactionNotMountedError,
  type CompactionOptions,
  type CompactionPreview,
  createCompaction,
  type ManualOutcome,
  type NothingToCompact,
} from './compaction-capability.js';
export { type CompactionLockTracker, type OpenCompaction, trackCompactionLocks } from './compaction-locks.js';
export type { CompactionNotice } from './compaction-notice.js';
export {
  COMPACTION_END,
  COMPACTION_EVENT_TYPES,
  COMPACTION_MASK,
  COMPACTION_OVER_THRESHOLD,
  COMPACTION_POLICY,
  COMPACTION_PRUNE,
  COMPACTION_START,
  COMPACTION_SUMMARY,
  type CompactionEndData,
  type CompactionMaskData,
  type CompactionPolicyData,
  type CompactionPruneData,
  type CompactionStartData,
  type CompactionSummaryData,
  type CompactionTrigger,
} from './event-types.js';
export { type ParsedSummary, parseSummaryText } from './parse-summary.js';
export * from './policy.js';
export { COMPACTION_PRESETS, type CompactionPreset, compactionPreset, UnknownPresetError } from './presets.js';
export {
  PRUNER_DEFAULTS,
  type PrunerConfig,
  type PrunerOptions,
  parsePrunerConfig,
  pruneMarker,
  readPrunerOptions,
} from './pruner-config.js';
export { RECALL_ASK_SYSTEM_PROMPT, type RecallAskOptions } from './recall/recall-ask.js';
export { boundRecallResult, parseRecallConfig, RECALL_DEFAULTS, type RecallConfig } from './recall/recall-config.js';
export { eventText, type RecallIndex, RecallReader, recallHandleOf } from './recall/recall-index.js';
export { createRecallTool, RECALL_TOOL_NAME, RecallError, type RecallToolOptions } from './recall/recall-tool.js';
export { summaryInside } from './render-summary.js';
export { replaySummary, type SummaryReplayOptions, type SummaryReplayResult } from './replay-summary.js';
export { type Selection, selectRange } from './select-range.js';
export {
  type CallsReport,
  createSessionCallMeter,
  meterSessionCalls,
  readSessionMeterSettings,
  type SessionMeterSettings,
  sessionMeterSettings,
} from './session-call-meter.js';
export {
  CLAUDE_CODE_COMPACTION_MARGIN,
  impliedWindow,
  type ResolvedWindow,
  readSessionWindow,
  resolveSessionWindow,
  type SessionWindow as RunWindow,
  type SessionWindowOptions,
  type WindowRule,
} from './session-window.js';
export { checkKeptItems, KeptItemNotSentError } from './strategies/kept-items.js';
export { isMaskPlaceholder, MASK_PREFIX, maskPlaceholder } from './strategies/mask-placeholder.js';
export { createMaskStrategy, type MaskStrategyOptions } from './strategies/mask-strategy.js';
export { NATIVE_COMPACTIONS, type NativeCompaction, nativeStrategyFor } from './strategies/native-compactions.js';
export { compactionBlockOf, createNativeStrategy, type NativeStrategyOptions } from './strategies/native-strategy.js';
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
  type EarlierSummary,
  type ModelSummarizerOptions,
  type Summarizer,
  SummaryFailedError,
  type SummaryRequest,
  type SummaryResult,
} from './summarizer.js';
export { SummaryBudgetError, type SummaryBudgetInput, summaryOutputBudget } from './summary-budget.js';
export type { SummarySections } from './summary-sections.js';
export { createToolResultPruner, type PruneResult, ToolResultPruner } from './tool-result-pruner.js';
export type { CompactionFailure, CompactionOutcome } from './transaction.js';
