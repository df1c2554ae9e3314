// shadowlog for the Vercel AI SDK (ai@6, @ai-sdk/provider@3), published as `shadowlog/ai-sdk`:
// the recorder (a middleware and a fetch), compaction at the log layer, and their errors.

export { createAiSdkSummarizer } from './ai-sdk-summarizer.js';
export type { AiSdkCompactionOptions } from './log-compaction.js';
export { type AiSdkRecorder, type AiSdkRecorderOptions, createAiSdkRecorder } from './recorder.js';
export { RecorderSendsNothingError, RecordFailedError } from './recorder-errors.js';
export { AI_SDK_HARNESS_VERSION } from './recorder-session.js';
export { StoreUnavailableError } from './recorder-store.js';
