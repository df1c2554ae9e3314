// The public API of shadowlog: the log, the stores, the harness, the providers, compaction, the
// meter, replay and verify. Everything else has an explicit subpath: shadowlog/log,
// shadowlog/store, shadowlog/spine, shadowlog/providers, shadowlog/compaction, shadowlog/meter,
// shadowlog/importers, shadowlog/store/sqlite, shadowlog/store/postgres. api/ holds the report
// of each entry's names and types.

// Compaction.
export { createCompaction } from './compaction/compaction-capability.js';
export type { CompactionConfig } from './compaction/policy.js';
export { createExtractiveSummarizer, createModelSummarizer } from './compaction/summarizer.js';
export { createToolResultPruner } from './compaction/tool-result-pruner.js';
export { ShadowlogError } from './log/errors.js';
// The log and the stores that hold it.
export type { EventDraft, LogEvent } from './log/event.js';
export { origins } from './log/origins.js';
export { verifyLog } from './log/verify.js';
// The meter.
export { createEstimator } from './meter/estimators.js';
export { SurfaceMeter } from './meter/measure.js';
// The providers.
export { createAnthropicMessagesModel } from './providers/anthropic-messages/anthropic-messages-model.js';
export type { LanguageModel } from './providers/language-model.js';
export { createOpenAIChatModel } from './providers/openai-chat/openai-chat-model.js';
export { createOpenAIResponsesModel } from './providers/openai-responses/openai-responses-model.js';
export { ProviderError } from './providers/provider-error.js';
export { ScriptedModel } from './providers/scripted-model.js';
// The harness: agent sessions, tools, replay.
export { AgentSession, type TurnResult } from './spine/agent-session.js';
export { createHarness, Harness, type HarnessOptions } from './spine/harness.js';
export { replay } from './spine/replay.js';
export { defineTool, type Tool } from './spine/tool.js';
export { createFileTools } from './spine/tools/file-tools.js';
export { exportSession, importSession } from './store/jsonl.js';
export type { LogStore } from './store/log-store.js';
export { MemoryLogStore } from './store/memory/memory-store.js';
export { resolveSessionId } from './store/resolve-session.js';
export { SessionLog } from './store/session-log.js';
