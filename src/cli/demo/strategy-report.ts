// The end of `demo --strategy`: what the strategy left on the surface (summaries or recall
// handles, masked results, whole results), and how the last question, whose answer only an
// early read held, was answered: from the surface, by recall calls, or by reading the file again.

import { COMPACTION_EVENT_TYPES, isMaskPlaceholder, RECALL_TOOL_NAME } from '../../compaction/index.js';
import { type AssistantMessageData, EventTypeRegistry, type LogEvent, SurfaceFold, type ToolResultData } from '../../log/index.js';
import type { TurnResult } from '../../spine/index.js';
import type { LogStore } from '../../store/index.js';
import { showCommand } from '../commands/show.js';
import type { CommandContext } from '../context.js';

export interface StrategyReportInput {
  readonly store: LogStore;
  readonly sessionId: string;
  readonly strategy: string;
  readonly turns: readonly TurnResult[];
  readonly threshold: number;
}

interface SurfaceCounts {
  nodes: number;
  compactedMessages: number;
  maskedResults: number;
  wholeResults: number;
}

export async function reportStrategy(context: CommandContext, input: StrategyReportInput): Promise<number> {
  const events: LogEvent[] = [];
  for await (const page of input.store.read(input.sessionId)) events.push(...page);
  const fold = new SurfaceFold({ registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) });
  for (const event of events) fold.apply(event);
  const counts: SurfaceCounts = { nodes: 0, compactedMessages: 0, maskedResults: 0, wholeResults: 0 };
  for (const node of fold.toArray()) {
    counts.nodes++;
    if (node.type === 'user/message' && node.sourceEventSeqs.length > 0) counts.compactedMessages++;
    if (node.type !== 'tool/result') continue;
    const first = (node.event.data as unknown as ToolResultData).content[0];
    if (node.sourceEventSeqs.length > 0 && first?.type === 'text' && isMaskPlaceholder(first.text)) counts.maskedResults++;
    else counts.wholeResults++;
  }
  // The last turn: its tool calls, and its answer.
  const lastTurn = events.findLastIndex((event) => event.type === 'turn/start');
  const calls = events
    .slice(lastTurn)
    .filter((event) => event.type === 'assistant/message')
    .flatMap((event) => (event.data as unknown as AssistantMessageData).toolCalls.map((call) => ({ seq: event.seq, call })));
  const recalls = calls.filter(({ call }) => call.name === RECALL_TOOL_NAME);
  const rereads = calls.filter(({ call }) => call.name === 'read_file');
  const answer = input.turns.at(-1)?.text ?? '';
  if (context.json) {
    context.printJson({
      sessionId: input.sessionId,
      strategy: input.strategy,
      events: events.length,
      threshold: input.threshold,
      turns: input.turns.map((turn) => turn.reason),
      surface: counts,
      lastTurn: {
        recallCalls: recalls.map(({ seq, call }) => ({ seq, arguments: call.arguments })),
        rereads: rereads.length,
        answer,
      },
    });
    return 0;
  }
  context.print(`\n════ The surface ${input.strategy} left: what the model is shown now ════`);
  await showCommand(context, input.sessionId, { view: 'surface' });
  context.print(`\n════ What ${input.strategy} left, and the question only an early read could answer ════`);
  context.print(
    `surface: ${counts.nodes} messages; ${counts.compactedMessages} compacted (${input.strategy === 'recall' ? 'recall handles' : 'summaries'}), ${counts.maskedResults} masked tool results, ${counts.wholeResults} tool results whole`,
  );
  for (const { seq, call } of recalls)
    context.print(`recall call at #${seq}: ${JSON.stringify(call.arguments)} (a logged tool call and result)`);
  if (rereads.length > 0)
    context.print(
      `the agent read ${rereads.length} file${rereads.length === 1 ? '' : 's'} again: what it had read was no longer on its surface`,
    );
  context.print(`last answer: ${answer}`);
  context.print(
    `\nTry: shadowlog show ${input.sessionId} --record   ·   shadowlog verify ${input.sessionId}   ·   shadowlog stats ${input.sessionId}`,
  );
  return 0;
}
