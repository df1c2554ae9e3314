// The spine (SPEC §8), published as `shadowlog/spine`: the harness and its agent sessions,
// capabilities, tools, the surface renderer and replay.

export { AgentSession, type AgentSessionSettings, type TurnOptions, type TurnResult } from './agent-session.js';
export type { Capability, MountContext, ObservedCapabilityState, RequestErrorContext, SessionContext, StepContext } from './capability.js';
export { createHarness, DEFAULT_MAX_OUTPUT_TOKENS, type ForkPoint, Harness, type HarnessOptions, newSessionId } from './harness.js';
export { renderSurface, SURFACE_RENDERER_VERSION } from './render-surface.js';
export { type OffSurfaceCall, type RendererResolver, type ReplayOptions, type ReplayResult, type ReplayTarget, replay } from './replay.js';
export {
  ReplayError,
  type ReplayProblem,
  TooLargeToRecordError,
  TurnInProgressError,
  UnrecordedAnswerError,
} from './spine-errors.js';
export { defineTool, type Tool, type ToolContext, type ToolOutput, type ToolSpec } from './tool.js';
export { DEFAULT_MAX_TOOL_RESULT_CHARS, MAX_TOOL_RESULT_CHARS_LIMIT } from './tool-results.js';
export { createFileTools } from './tools/file-tools.js';
