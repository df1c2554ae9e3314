// The recall tool: the model reaches into what compaction shadowed. It searches the shadowed
// originals (text or a regular expression), reads one of them or a slice of one by seq, and
// lists what a recall handle covers. Each call is an ordinary tool call and result in the log,
// so it is audited and replayed like any other; results are bounded per call, calls per turn.

import { z } from 'zod';
import { ShadowlogError } from '../../log/errors.js';
import type { AssistantMessageData, LogEvent } from '../../log/event.js';
import { origins } from '../../log/origins.js';
import { defineTool, type Tool } from '../../spine/tool.js';
import type { LogStore } from '../../store/log-store.js';
import {
  askInputTokens,
  askPrompt,
  askSessionId,
  type RecallAskOptions,
  type RecallAskSettings,
  resolveRecallAsk,
  runAsk,
} from './recall-ask.js';
import { boundRecallResult, parseRecallConfig, type RecallConfig } from './recall-config.js';
import { eventLabel, eventText, type RecallIndex, RecallReader } from './recall-index.js';

export const RECALL_TOOL_NAME = 'recall';
const SNIPPET = 60;

/** A recall the tool refuses (bad arguments, a bound reached); the model reads the message as an error result. */
export class RecallError extends ShadowlogError {
  constructor(message: string) {
    super('RECALL_REFUSED', message);
  }
}

const fields = {
  query: z.string().min(1).optional().describe('search: the text to find (case-insensitive), or a regular expression with regex: true'),
  regex: z.boolean().optional().describe('search: treat query as a JavaScript regular expression'),
  handle: z
    .string()
    .min(1)
    .optional()
    .describe('search or list: only the originals this recall handle covers (the handle the compacted text names)'),
  seq: z.number().int().min(0).optional().describe('read: the seq of the shadowed event'),
  from: z.number().int().min(0).optional().describe('read: the first character of the slice (default 0)'),
  to: z.number().int().min(0).optional().describe('read: the character after the slice (default: the end)'),
};
const input = z.object({
  action: z.enum(['search', 'read', 'list']).describe('search the shadowed originals, read one by seq, or list what a handle covers'),
  ...fields,
});
/** With a sub-model: ask a question about a shadowed event (or a slice, from/to) and get its answer. */
const inputWithAsk = z.object({
  action: z
    .enum(['search', 'read', 'list', 'ask'])
    .describe('search the shadowed originals, read one by seq, list what a handle covers, or ask a question about one by seq'),
  ...fields,
  question: z.string().min(1).optional().describe('ask: the question a sub-model answers from the shadowed event (or its slice from/to)'),
});
type RecallArguments = z.infer<typeof inputWithAsk>;

export interface RecallToolOptions {
  /** The store the sessions live in (the tool reads the session it is called in). */
  readonly store: LogStore;
  /** Bounds (RecallConfig); unknown keys and bad values are refused. */
  readonly config?: unknown;
  /**
   * The sub-model variant, opt-in: an `ask` action whose question a sub-model answers from one
   * shadowed event or slice, in a sub-session linked to the tool call (see recall-ask.ts).
   */
  readonly ask?: RecallAskOptions;
}

export function createRecallTool(options: RecallToolOptions): Tool<RecallArguments> {
  const config = parseRecallConfig(options.config ?? {});
  const ask = options.ask === undefined ? undefined : resolveRecallAsk(options.ask);
  const reader = new RecallReader(options.store);
  const askText =
    ask === undefined
      ? ''
      : ` ask has a sub-model answer a question from one shadowed event by seq (or a slice with from/to); at most ${ask.maxCallsPerTurn} asks per turn.`;
  const tool = defineTool({
    name: RECALL_TOOL_NAME,
    description:
      'Recall what compaction took off your context: the log keeps every original. search finds text (or a regex) in the shadowed messages and tool results; read returns one by seq, or a slice with from/to; list shows what a recall handle covers.' +
      askText +
      ` Results hold at most ${config.maxCharsPerCall} characters; at most ${config.maxCallsPerTurn} recalls per turn.`,
    input: ask === undefined ? input : inputWithAsk,
    async execute(args: RecallArguments, context) {
      const index = await reader.index(context.sessionId);
      checkCallsThisTurn(index.events, context.callId, config);
      const text =
        args.action === 'ask' && ask !== undefined ? askSubModel(args, index, ask, options.store, context) : answer(args, index, config);
      return boundRecallResult(await text, config.maxCharsPerCall);
    },
  });
  return tool as Tool<RecallArguments>;
}

/** The ask action: checks the ceilings, then runs one sub-call in a sub-session linked to this tool call. */
async function askSubModel(
  args: RecallArguments,
  index: RecallIndex,
  ask: RecallAskSettings,
  store: LogStore,
  context: { readonly sessionId: string; readonly callId: string; readonly signal: AbortSignal },
): Promise<string> {
  if (args.question === undefined) throw new RecallError('ask needs a question for the sub-model to answer from the shadowed event');
  const asked = await asksBefore(index.events, context.sessionId, context.callId, store);
  if (asked >= ask.maxCallsPerTurn)
    throw new RecallError(
      `recall ask allows ${ask.maxCallsPerTurn} sub-call${ask.maxCallsPerTurn === 1 ? '' : 's'} per turn (maxCallsPerTurn) and this turn has made ${asked} already; read the slice yourself, or ask again next turn`,
    );
  const excerpt = read(args, index);
  const [heading = '', ...body] = excerpt.split('\n');
  const label = heading.replace(/:$/, '');
  const prompt = askPrompt(label, body.join('\n'), args.question);
  const tokens = askInputTokens(prompt);
  if (tokens > ask.maxInputTokens)
    throw new RecallError(
      `recall ask allows ${ask.maxInputTokens} input tokens per sub-call (maxInputTokens) and this one would send about ${tokens}; ask about a narrower slice with from and to`,
    );
  const outcome = await runAsk(store, ask, { sessionId: context.sessionId, callId: context.callId }, prompt, context.signal);
  if (outcome.reason !== 'completed')
    throw new RecallError(
      `the sub-model did not answer (${outcome.reason}${outcome.errorMessage === undefined ? '' : `: ${outcome.errorMessage}`}); its request is in sub-session ${outcome.sessionId}`,
    );
  return `answer from sub-session ${outcome.sessionId} about ${label}:\n${outcome.text}`;
}

/** Sub-calls made this turn before this call: the ask calls whose sub-session exists (a refused ask wrote none). */
async function asksBefore(events: readonly LogEvent[], sessionId: string, callId: string, store: LogStore): Promise<number> {
  let before = 0;
  for (const call of callsThisTurn(events)) {
    if (call.callId === callId) return before;
    const action = (call.arguments as { action?: unknown } | null)?.action;
    if (
      call.name === RECALL_TOOL_NAME &&
      action === 'ask' &&
      (await store.head(askSessionId({ sessionId, callId: call.callId }))) !== undefined
    )
      before++;
  }
  return before;
}

/** The tool calls of this turn's assistant messages, in log order: from the last turn/start (or the log's first event). */
function* callsThisTurn(events: readonly LogEvent[]): Generator<AssistantMessageData['toolCalls'][number]> {
  let turnStart = events.length - 1;
  while (turnStart > 0 && (events[turnStart] as LogEvent).type !== 'turn/start') turnStart--;
  for (const event of events.slice(turnStart)) {
    if (event.type === 'assistant/message') yield* (event.data as unknown as AssistantMessageData).toolCalls;
  }
}

/** Refuses the call when the recall calls before it this turn (in log order) have used the allowance. */
function checkCallsThisTurn(events: readonly LogEvent[], callId: string, config: RecallConfig): void {
  let before = 0;
  for (const call of callsThisTurn(events)) {
    if (call.callId === callId) {
      if (before >= config.maxCallsPerTurn)
        throw new RecallError(
          `recall allows ${config.maxCallsPerTurn} calls per turn and this turn has made ${before} already; answer with what you have, or recall again next turn`,
        );
      return;
    }
    if (call.name === RECALL_TOOL_NAME) before++;
  }
}

async function answer(args: RecallArguments, index: RecallIndex, config: RecallConfig): Promise<string> {
  switch (args.action) {
    case 'search':
      return search(args, index, config);
    case 'read':
      return read(args, index);
    case 'list':
      return list(args, index);
    case 'ask':
      throw new RecallError('ask is not enabled on this recall tool; search or read instead');
  }
}

/** The shadowed originals a handle covers, or all of them. */
async function scope(handle: string | undefined, index: RecallIndex): Promise<number[]> {
  if (handle === undefined) return [...index.shadowed];
  const node = index.handleNode(handle);
  if (node === undefined)
    throw new RecallError(`${JSON.stringify(handle)} is not a recall handle in this session; the compacted text names its handle`);
  const covered = await origins(node as never, (seq) => index.events[seq] as LogEvent);
  return covered.filter((seq) => index.isShadowed(seq));
}

function matcher(args: RecallArguments): RegExp {
  if (args.query === undefined) throw new RecallError('search needs a query: the text to find, or a regular expression with regex: true');
  if (args.regex !== true) return new RegExp(args.query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  try {
    return new RegExp(args.query, 'gi');
  } catch (error) {
    throw new RecallError(
      `the query is not a valid regular expression (${(error as Error).message}); fix it, or search for plain text without regex`,
    );
  }
}

async function search(args: RecallArguments, index: RecallIndex, config: RecallConfig): Promise<string> {
  const pattern = matcher(args);
  const seqs = await scope(args.handle, index);
  const lines: string[] = [];
  let total = 0;
  let events = 0;
  for (const seq of seqs) {
    const event = index.events[seq] as LogEvent;
    const text = eventText(event);
    let found = false;
    for (const match of text.matchAll(pattern)) {
      if (match[0] === '') break; // an empty match would repeat forever
      total++;
      found = true;
      if (lines.length >= config.maxMatches) continue;
      const at = match.index;
      const start = Math.max(0, at - SNIPPET);
      const end = Math.min(text.length, at + match[0].length + SNIPPET);
      const snippet = text.slice(start, end).replace(/\s+/g, ' ');
      lines.push(
        `${eventLabel(event, index.events)}, characters ${at}–${at + match[0].length}: ${start > 0 ? '…' : ''}${snippet}${end < text.length ? '…' : ''}`,
      );
    }
    if (found) events++;
  }
  if (total === 0) return `no match for ${JSON.stringify(args.query)} in ${seqs.length} shadowed events`;
  const shown = total > lines.length ? ` (the first ${lines.length} shown; narrow the query for the rest)` : '';
  return [
    `${total} match${total === 1 ? '' : 'es'} in ${events} of ${seqs.length} shadowed events${shown}; read one with action "read" and its seq:`,
    ...lines,
  ].join('\n');
}

function read(args: RecallArguments, index: RecallIndex): string {
  if (args.seq === undefined) throw new RecallError('read needs the seq of a shadowed event; search or list to find one');
  const event = index.events[args.seq];
  if (event === undefined) throw new RecallError(`#${args.seq} is not in the log yet (it has ${index.events.length} events)`);
  if (!index.isShadowed(args.seq))
    throw new RecallError(
      `#${args.seq} is not a shadowed original (${event.type}); recall reads what compaction took off your context, and the rest is still in it`,
    );
  const text = eventText(event);
  const length = text.length;
  const from = Math.min(args.from ?? 0, length);
  const to = Math.max(from, Math.min(args.to ?? length, length));
  const slice = from === 0 && to === length ? 'all' : `characters ${from}–${to}`;
  return `${eventLabel(event, index.events)}, ${slice} of ${length}:\n${text.slice(from, to)}`;
}

async function list(args: RecallArguments, index: RecallIndex): Promise<string> {
  if (args.handle === undefined) throw new RecallError('list needs a handle: the seq a recall handle names');
  const seqs = await scope(args.handle, index);
  const lines = seqs.map((seq) => {
    const event = index.events[seq] as LogEvent;
    const text = eventText(event);
    return `${eventLabel(event, index.events)}: ${text.length} characters — ${text.slice(0, 80).replace(/\s+/g, ' ')}${text.length > 80 ? '…' : ''}`;
  });
  return [`recall handle ${JSON.stringify(args.handle)} covers ${seqs.length} shadowed events:`, ...lines].join('\n');
}
