// The compaction policies of other agent harnesses, as baselines to compare shadowlog's with
// (the compaction benchmark, and `tune`). Each is named, says what the harness does and where
// the numbers come from, and says how it runs here: as shadowlog's own transaction with a
// threshold and a retained tail, or, for dropping the oldest turns, as a projection of what
// that harness would send. The summary is not part of a policy: a comparison gives every policy
// the same summarizer, so that what differs is where and how much is cut.

import type { SurfaceNode } from '../log/surface-fold.js';
import { type CompactionConfig, parseCompactionConfig, type ResolvedPolicy, resolvePolicy } from './policy.js';

/** The window a policy is resolved for. */
export interface PolicyWindow {
  /** W, in tokens. */
  readonly contextWindow: number;
  /** The completion tokens every request reserves for the answer (its max output tokens). */
  readonly reserve: number;
}

/** How a policy runs on shadowlog for one window. */
export type PeerPlan =
  /** Compaction as shadowlog's transaction: the configuration that gives this policy's threshold and tail, resolved. */
  | { readonly kind: 'compaction'; readonly config: CompactionConfig; readonly resolved: ResolvedPolicy }
  /** Before each request, the oldest whole turns that do not fit are left out (newestWholeTurns). */
  | { readonly kind: 'drop-oldest' }
  /** Everything is sent until the window refuses it. */
  | { readonly kind: 'none' };

export type PeerPolicyName = 'pi' | 'claude-code' | 'codex' | 'opencode' | 'drop-oldest' | 'none';

export interface PeerPolicy {
  readonly name: PeerPolicyName;
  /** What the harness does, in a sentence or two. */
  readonly description: string;
  /** Where that comes from: the code or the recorded sessions it was read from. */
  readonly source: string;
  /** How it runs here for `window`; a window the policy cannot work in is a ConfigError, as for shadowlog's own. */
  plan(window: PolicyWindow): PeerPlan;
}

/** The configuration for a threshold of floor(min(W × ratio, W − reserve − headroom)) and a fixed tail, resolved for `window`. */
function compactionPlan(window: PolicyWindow, config: CompactionConfig): PeerPlan {
  const resolved = resolvePolicy(parseCompactionConfig(config), { contextWindow: window.contextWindow, reserve: window.reserve });
  return { kind: 'compaction', config, resolved };
}

/**
 * A trigger at W − fixed, written in SPEC §6's terms: ratio 1, and a headroom that brings
 * W − reserve − headroom to W − fixed. A reserve above `fixed` leaves headroom 0: shadowlog's
 * threshold never lets input and reserve exceed the window together, where the peer's would.
 */
function belowWindow(window: PolicyWindow, fixed: number): Pick<CompactionConfig, 'thresholdRatio' | 'headroomTokens'> {
  return { thresholdRatio: 1, headroomTokens: Math.max(0, fixed - window.reserve) };
}

export const PI_RESERVE_TOKENS = 16_384;
export const PI_KEEP_RECENT_TOKENS = 20_000;
export const CLAUDE_CODE_THRESHOLD_RATIO = 0.84;
/** 90 % of Codex's effective window, which is 95 % of the model's window. */
export const CODEX_THRESHOLD_RATIO = 0.855;
export const OPENCODE_BUFFER_TOKENS = 20_000;
export const OPENCODE_KEEP_MIN_TOKENS = 2_000;
export const OPENCODE_KEEP_MAX_TOKENS = 15_000;

export const PEER_POLICIES: readonly PeerPolicy[] = [
  {
    name: 'pi',
    description:
      'pi coding agent: compacts when the context exceeds W − 16,384 (reserveTokens), keeps about the newest 20,000 tokens (keepRecentTokens) verbatim, and summarizes everything before them (merging an earlier summary).',
    source:
      'badlogic/pi-mono, packages/coding-agent/src/core/compaction/compaction.ts: DEFAULT_COMPACTION_SETTINGS {reserveTokens: 16384, keepRecentTokens: 20000}, shouldCompact: contextTokens > contextWindow − reserveTokens, findCutPoint walks back until keepRecentTokens',
    plan: (window) => compactionPlan(window, { ...belowWindow(window, PI_RESERVE_TOKENS), retainTokens: PI_KEEP_RECENT_TOKENS }),
  },
  {
    name: 'claude-code',
    description:
      'Claude Code (observed): compacts automatically near 84 % of the window and keeps nothing of the conversation verbatim; one summary replaces it all.',
    source:
      'the Claude Code 2.1.39 session in shared/corpus/sessions/claude-code (marot/spotter fixture): its compact_boundary reports preTokens 170,251 of a 200,000-token window (85 %), and its last request before the cut carried 164,831 (82 %); commonly described as W − 20,000 (output) − 13,000 (buffer) = 83.5 %',
    plan: (window) => compactionPlan(window, { thresholdRatio: CLAUDE_CODE_THRESHOLD_RATIO, headroomTokens: 0, retainTokens: 0 }),
  },
  {
    name: 'codex',
    description:
      'Codex CLI: compacts at 90 % of its effective window (95 % of the model’s), replacing the history with a summary after the recent user messages (up to 20,000 tokens of them); here it keeps no verbatim tail, since a replay of user messages alone is not a contiguous tail.',
    source:
      'openai/codex, codex-rs/protocol/src/openai_models.rs: auto_compact_token_limit() is 90 % of the context window when not set, effective_context_window_percent (the share usable for input) defaults to 95; core/src/compact.rs: COMPACT_USER_MESSAGE_MAX_TOKENS 20,000; recorded Codex sessions compacted near 81 % of the window',
    plan: (window) => compactionPlan(window, { thresholdRatio: CODEX_THRESHOLD_RATIO, headroomTokens: 0, retainTokens: 0 }),
  },
  {
    name: 'opencode',
    description:
      'OpenCode: compacts when the context reaches W − max output − min(20,000, max output) and keeps the newest whole turns within min(15,000, max(2,000, a quarter of that)) tokens.',
    source:
      'sst/opencode, packages/opencode/src/session/overflow.ts (usable, COMPACTION_BUFFER 20,000) and session/compaction.ts (MIN_PRESERVE_RECENT_TOKENS 2,000, MAX_PRESERVE_RECENT_TOKENS 15,000, preserveRecentBudget)',
    plan: (window) => {
      const buffer = Math.min(OPENCODE_BUFFER_TOKENS, window.reserve);
      const usable = window.contextWindow - window.reserve - buffer;
      const keep = Math.min(OPENCODE_KEEP_MAX_TOKENS, Math.max(OPENCODE_KEEP_MIN_TOKENS, Math.floor(usable * 0.25)));
      return compactionPlan(window, { thresholdRatio: 1, headroomTokens: buffer, retainTokens: keep });
    },
  },
  {
    name: 'drop-oldest',
    description:
      'The common in-loop cut: before each request the harness sends the system prompt and the newest whole turns that fit the window with the answer’s reserve; older turns are left out, unsummarized.',
    source: 'the sliding-window truncation of simple agent loops and chat frontends (no summary call); what newestWholeTurns computes',
    plan: () => ({ kind: 'drop-oldest' }),
  },
  {
    name: 'none',
    description: 'No compaction: every request carries the whole history, until the window refuses one.',
    source: 'the baseline',
    plan: () => ({ kind: 'none' }),
  },
];

/** The peer policy called `name`, or undefined. */
export function peerPolicy(name: string): PeerPolicy | undefined {
  return PEER_POLICIES.find((policy) => policy.name === name);
}

/**
 * The drop-oldest projection: the surface position of the first node a harness that drops
 * the oldest whole turns would send after the system message, or undefined when the whole
 * surface fits. A turn starts at an appended user message; a node that stands for dropped
 * turns (a marker) is dropped with them. `budget` is what the messages may cost (W − reserve
 * − the request's fixed part), `replacementTokens` what the node standing for the dropped
 * turns costs. The current (last) turn is always sent: when even it does not fit, the
 * projection keeps it alone and the request is over the window.
 */
export function newestWholeTurns(
  nodes: readonly SurfaceNode[],
  prices: readonly number[],
  budget: number,
  replacementTokens: number,
): number | undefined {
  const head = nodes[0]?.type === 'system/message' ? 1 : 0;
  const headTokens = head === 1 ? (prices[0] ?? 0) : 0;
  let total = 0;
  for (const price of prices) total += price;
  if (total <= budget) return undefined;
  const starts: number[] = [];
  for (let index = head; index < nodes.length; index++) {
    const node = nodes[index] as SurfaceNode;
    if (node.type === 'user/message' && node.event.surfaceOp === 'append') starts.push(index);
  }
  const current = starts.at(-1);
  if (current === undefined) return undefined;
  let kept = 0;
  for (let index = nodes.length - 1; index >= current; index--) kept += prices[index] ?? 0;
  let first = current;
  for (let turn = starts.length - 2; turn >= 0; turn--) {
    const start = starts[turn] as number;
    let cost = 0;
    for (let index = start; index < first; index++) cost += prices[index] ?? 0;
    if (headTokens + replacementTokens + kept + cost > budget) break;
    kept += cost;
    first = start;
  }
  // Every turn fits once the marker is counted: there is no whole turn to leave out.
  return first === starts[0] ? undefined : first;
}
