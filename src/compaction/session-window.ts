// The context window a recorded session really ran in, per model, and the rule that gave it:
// what the record states; else the window the source harness's own compactions imply under that
// harness's rule; else the client's default for the model; else the model table. `tune`, `stats`
// and `view` say which rule gave each session's window, and `tune` warns on a guessed one.

import type { LogEvent } from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import { FOREIGN_SOURCES, type ForeignSource, isForeignType } from '../log/foreign-event.js';
import { knownModelLimits } from '../providers/model-limits.js';

/**
 * Which rule gave a window, strongest first: `--window`; `recorded` (the record states it:
 * shadowlog's own harness or proxy, or the source, as Codex's `model_context_window`);
 * `harness-compaction` (the source harness compacted, and its rule fits one window);
 * `client-default` (what the harness runs the model in unless told otherwise); `model-table`.
 */
export type WindowRule = 'option' | 'recorded' | 'harness-compaction' | 'client-default' | 'model-table';

export interface ResolvedWindow {
  readonly model: string;
  readonly window: number;
  readonly rule: WindowRule;
  /** The rule's evidence in a sentence: the figures it read and where. */
  readonly evidence: string;
  /** The window is a default or the table's, not something this session shows. */
  readonly guessed: boolean;
}

export interface SessionWindow {
  /** The harness that wrote the source, for an imported session; null for shadowlog's own. */
  readonly harness: ForeignSource | null;
  /** The window of the model with the most calls (undefined when no call's window can be known). */
  readonly primary: ResolvedWindow | undefined;
  /** Every model the session called, with its window; a model missing here has no known window. */
  readonly models: ReadonlyMap<string, ResolvedWindow>;
  /** Models called whose window no rule gives (they need --window). */
  readonly unknown: readonly string[];
}

/** Claude Code's automatic compaction: W − min(max output, 20,000) − 13,000, so 167,000 of 200,000. */
export const CLAUDE_CODE_COMPACTION_MARGIN = 33_000;
/** pi compacts above W − reserveTokens (its default 16,384). */
export const PI_RESERVE_FOR_WINDOW = 16_384;
/** Codex compacts at auto_compact_token_limit, 90 % of the window unless configured. */
export const CODEX_COMPACT_RATIO = 0.9;

const CLAUDE_WINDOWS = [200_000, 1_000_000];
const COMMON_WINDOWS = [32_000, 64_000, 128_000, 200_000, 256_000, 272_000, 400_000, 1_000_000, 1_047_576];

/** The threshold a harness compacts at in a window of `window` tokens. */
function harnessThreshold(harness: ForeignSource, window: number): number {
  if (harness === 'claude-code') return window - CLAUDE_CODE_COMPACTION_MARGIN;
  if (harness === 'pi') return window - PI_RESERVE_FOR_WINDOW;
  return Math.floor(window * CODEX_COMPACT_RATIO);
}

const HARNESS_RULE: Record<ForeignSource, string> = {
  'claude-code': 'Claude Code compacts at W − 33,000',
  codex: 'Codex compacts at 90 % of W',
  pi: 'pi compacts above W − 16,384',
};

/**
 * The window a harness compaction before `tokens` implies: a window whose threshold the count
 * reached (within 10 % below it) and that the count does not exceed; the model's own window when
 * it fits, else the smallest candidate that does.
 */
export function impliedWindow(harness: ForeignSource, tokens: number, modelWindow?: number): number | undefined {
  const fits = (window: number) => tokens <= window && tokens >= 0.9 * harnessThreshold(harness, window);
  const candidates = harness === 'claude-code' ? CLAUDE_WINDOWS : COMMON_WINDOWS;
  if (modelWindow !== undefined && harness !== 'claude-code' && fits(modelWindow)) return modelWindow;
  return candidates.find(fits);
}

/** Claude Code runs Claude models in 200,000 tokens unless the model is chosen with its 1M context. */
function claudeCodeDefault(model: string): number | undefined {
  if (!model.startsWith('claude-') && !/^(opus|sonnet|haiku)\b/.test(model)) return undefined;
  return /\[1m\]|-1m$/i.test(model) ? 1_000_000 : 200_000;
}

/** The harness of an imported session: the namespace of its foreign events, else its derived id's prefix. */
function harnessOf(sessionId: string, events: readonly LogEvent[]): ForeignSource | null {
  for (const event of events) if (isForeignType(event.type)) return event.type.slice(0, event.type.indexOf('/')) as ForeignSource;
  for (const event of events) {
    const source = event.type === 'compaction/summary' ? (event.data as Record<string, unknown>).source : undefined;
    if (typeof source === 'string' && (FOREIGN_SOURCES as readonly string[]).includes(source)) return source as ForeignSource;
  }
  const imported = events.some((event) => event.type === 'model/request' && dataOf(event, 'model/request').provenance === 'imported');
  if (!imported) return null;
  return FOREIGN_SOURCES.find((source) => sessionId.startsWith(`${source}-`)) ?? null;
}

const count = (value: number) => value.toLocaleString('en-US');

export interface SessionWindowOptions {
  /** `--window`: every call's window, whatever the record says. */
  readonly window?: number;
}

/** The window of each model a session called, and the rule that gave it (see WindowRule). */
export function resolveSessionWindow(sessionId: string, events: readonly LogEvent[], options: SessionWindowOptions = {}): SessionWindow {
  const harness = harnessOf(sessionId, events);
  const calls = new Map<string, number>();
  const recorded = new Map<string, { window: number; imported: boolean }>();
  const compactions = new Map<string, number[]>();
  let lastModel: string | undefined;
  for (const event of events) {
    if (event.type === 'model/request') {
      const data = dataOf(event, 'model/request');
      lastModel = data.model;
      calls.set(data.model, (calls.get(data.model) ?? 0) + 1);
      const table = knownModelLimits(data.model)?.contextWindow;
      const imported = data.provenance === 'imported';
      // An importer records the table's window where the source states none: only a different one is the source's.
      if (data.contextWindow !== undefined && !recorded.has(data.model) && (!imported || data.contextWindow !== table))
        recorded.set(data.model, { window: data.contextWindow, imported });
    } else if (event.type === 'compaction/summary' && lastModel !== undefined) {
      const data = event.data as Record<string, unknown>;
      const before = data.sourceTokensBefore;
      if (data.provenance === 'imported' && data.trigger === 'pressure' && typeof before === 'number' && before > 0)
        compactions.set(lastModel, [...(compactions.get(lastModel) ?? []), before]);
    }
  }
  const models = new Map<string, ResolvedWindow>();
  const unknown: string[] = [];
  for (const model of calls.keys()) {
    const resolved = resolveModel(model, harness, recorded.get(model), compactions.get(model) ?? [], options);
    if (resolved === undefined) unknown.push(model);
    else models.set(model, resolved);
  }
  let primary: ResolvedWindow | undefined;
  for (const [model, resolved] of models)
    if (primary === undefined || (calls.get(model) ?? 0) > (calls.get(primary.model) ?? 0)) primary = resolved;
  return { harness, primary, models, unknown };
}

function resolveModel(
  model: string,
  harness: ForeignSource | null,
  recorded: { window: number; imported: boolean } | undefined,
  compactions: readonly number[],
  options: SessionWindowOptions,
): ResolvedWindow | undefined {
  const of = (window: number, rule: WindowRule, evidence: string): ResolvedWindow => ({
    model,
    window,
    rule,
    evidence,
    guessed: rule === 'client-default' || rule === 'model-table',
  });
  if (options.window !== undefined) return of(options.window, 'option', `--window ${options.window}`);
  if (recorded !== undefined)
    return of(
      recorded.window,
      'recorded',
      recorded.imported
        ? `the source states ${count(recorded.window)} for ${model}`
        : `the record states ${count(recorded.window)} for ${model}`,
    );
  const table = knownModelLimits(model)?.contextWindow;
  if (harness !== null && compactions.length > 0) {
    const implied = compactions.map((tokens) => impliedWindow(harness, tokens, table));
    const window = implied[0];
    if (window !== undefined && implied.every((each) => each === window)) {
      const low = Math.min(...compactions);
      const high = Math.max(...compactions);
      const at = low === high ? count(low) : `${count(low)}–${count(high)}`;
      return of(window, 'harness-compaction', `${model} compacted at ${at} tokens, and ${HARNESS_RULE[harness]}`);
    }
  }
  if (harness === 'claude-code') {
    const window = claudeCodeDefault(model);
    if (window !== undefined)
      return of(window, 'client-default', `Claude Code runs ${model} in ${count(window)} unless it is chosen with [1m]`);
  }
  if (table !== undefined) return of(table, 'model-table', `the model table gives ${model} ${count(table)}`);
  return undefined;
}

/** The session's window read from a store: only the events the rules look at are kept while reading. */
export async function readSessionWindow(
  store: { read(sessionId: string): AsyncIterable<readonly LogEvent[]> },
  sessionId: string,
  options: SessionWindowOptions = {},
): Promise<SessionWindow> {
  const kept: LogEvent[] = [];
  let foreign = false;
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      if (event.type === 'model/request' || event.type === 'compaction/summary') kept.push(event);
      else if (!foreign && isForeignType(event.type)) {
        foreign = true;
        kept.push(event);
      }
    }
  }
  return resolveSessionWindow(sessionId, kept, options);
}
