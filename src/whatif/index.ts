// shadowlog/whatif: a recorded call asked again under a counterfactual surface (SPEC §15), the
// originals a compaction or prune shadowed restored, or another surface, or another model, each
// request recorded in a what-if session that replays to the digest of the bytes sent.

export { type Answer, answerCounts, answerKey, answerOfEvent, answerOfResult, normalizedText } from './answers.js';
export { type AuditedCall, type AuditedSession, type CallChoice, type CallName, readAudit } from './audited-session.js';
export { type WhatIfCommandOptions, whatifCommandLine } from './command-line.js';
export { type DiffLine, diffLines } from './diff-lines.js';
export { estimateWhatIf, type WhatIfEstimate } from './estimate.js';
export {
  checkCallBudget,
  DEFAULT_WHATIF_MAX_CALLS,
  type PlannedCall,
  type PlanOptions,
  planWhatIf,
  type WhatIfPlan,
  type WhatIfQuestion,
  type WhatIfTarget,
} from './plan-whatif.js';
export { type PolicySurfaceOptions, policySurface } from './policy-surface.js';
export {
  describeReplacement,
  type Replacement,
  type ReplacementKind,
  type RestoreChoice,
  type RestoredSurface,
  replacementsOn,
  restoreSurface,
} from './restore-surface.js';
export { askWhatIf, type RunOptions, runWhatIf, type WhatIfCallReport, type WhatIfReport } from './run-whatif.js';
export { type BuiltRequest, buildWhatIfRequest, copyDraft, renderedData, type SurfaceEntry } from './what-if-request.js';
export { type SentWhatIf, sendWhatIf } from './whatif-call.js';
export { RestoreTargetError, WhatIfBudgetError, WhatIfInputError, WhatIfProviderError, WhatIfWindowError } from './whatif-errors.js';
