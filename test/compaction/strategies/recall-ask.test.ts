// The recall tool's sub-model variant: `ask` has a sub-model answer a question from one shadowed
// event (or a slice of one). The answer comes back as the tool result; the sub-call is a model
// request in a sub-session of the same store whose parent is the calling session and the tool
// call; both sessions verify and every model request of both replays; the sub-model is sent no
// tools (depth 1); each ceiling (sub-calls per turn, input tokens per sub-call) refuses with an
// error result naming it, and a refused ask writes no sub-session.

import { describe, expect, it } from 'vitest';
import {
  COMPACTION_EVENT_TYPES,
  createCompaction,
  createRecallTool,
  RECALL_ASK_SYSTEM_PROMPT,
  type RecallAskOptions,
} from '../../../src/compaction/index.js';
import type { AssistantMessageData, LogEvent, SessionStartData, ToolResultData } from '../../../src/log/event.js';
import { EventTypeRegistry } from '../../../src/log/event-types.js';
import { verifyLog } from '../../../src/log/verify.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../../../src/providers/scripted-model.js';
import { createHarness } from '../../../src/spine/harness.js';
import { replay } from '../../../src/spine/replay.js';
import { MemoryLogStore } from '../../../src/store/memory/memory-store.js';
import { agent, readFile } from '../support/recall-agent.js';

const textOfMessage = (call: ScriptedCall, role: string) =>
  call.messages
    .filter((message) => message.role === role)
    .flatMap((message) => message.content.map((block) => (block.type === 'text' ? block.text : '')))
    .join('\n');

/** The sub-model: finds the value the question names in the excerpt it was sent, or says it is not there. */
function subModel(call: ScriptedCall): ScriptedReply {
  const user = textOfMessage(call, 'user');
  const name = /Question: what is (\w+)\?/.exec(user)?.[1] ?? '';
  const value = new RegExp(`${name} = (\\S+)`).exec(user)?.[1];
  return { text: value === undefined ? 'The excerpt does not say.' : `${name} is ${value}.` };
}

async function eventsOf(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

const registry = () => new EventTypeRegistry(COMPACTION_EVENT_TYPES);

async function compactedSession(ask: Omit<RecallAskOptions, 'model'> = {}) {
  const store = new MemoryLogStore();
  const model = new ScriptedModel({ replies: agent, limits: { contextWindow: 100_000, defaultMaxOutputTokens: 500 } });
  const sub = new ScriptedModel({ modelId: 'sub', replies: subModel, limits: { contextWindow: 100_000, defaultMaxOutputTokens: 500 } });
  const compaction = createCompaction({
    config: { headroomTokens: 0, retainTokens: 50, auto: false, strategy: 'recall', summarizer: { kind: 'extractive' } },
  });
  const harness = createHarness({
    store,
    model,
    tools: [readFile, createRecallTool({ store, ask: { model: sub, ...ask } })],
    capabilities: [compaction],
  });
  const session = await harness.createSession('s');
  for (let file = 1; file <= 4; file++) await session.send(`read ${file}`);
  const outcome = await compaction.compactNow(session);
  if (outcome.status !== 'compacted') throw new Error(`the fixture must compact, found ${outcome.status}`);
  const events = await eventsOf(store, 's');
  const resultOf = (file: number) =>
    events.find((event) => event.type === 'tool/result' && JSON.stringify(event.data).includes(`secret${file} = `)) as LogEvent;
  const recall = async (calls: object[]) => {
    await session.send(`recall ${JSON.stringify(calls)}`);
    const all = await eventsOf(store, 's');
    const turnStart = all.findLastIndex((event) => event.type === 'turn/start');
    const turn = all.slice(turnStart);
    const callIds = turn
      .filter((event) => event.type === 'assistant/message')
      .flatMap((event) => (event.data as unknown as AssistantMessageData).toolCalls.map((each) => each.callId));
    const results = turn.filter((event) => event.type === 'tool/result').map((event) => event.data as unknown as ToolResultData);
    return { callIds, results };
  };
  return { store, session, model, sub, outcome, resultOf, recall };
}

const textOf = (result: ToolResultData | undefined) => (result?.content[0] as { text: string } | undefined)?.text ?? '';

async function verified(store: MemoryLogStore, sessionId: string): Promise<boolean> {
  const events = await eventsOf(store, sessionId);
  const report = await verifyLog(
    (async function* () {
      yield events;
    })(),
    { registry: registry() },
  );
  return report.ok;
}

async function replaysAll(store: MemoryLogStore, sessionId: string, model: ScriptedModel): Promise<number> {
  let count = 0;
  for (const event of (await eventsOf(store, sessionId)).filter((each) => each.type === 'model/request')) {
    const data = event.data as { turn: number; step: number };
    const replayed = await replay(
      store,
      sessionId,
      { turn: data.turn, step: data.step },
      { resolveRenderer: () => model, registry: registry() },
    );
    expect(replayed.verified).toBe(true);
    count++;
  }
  return count;
}

describe('the recall tool ask action', () => {
  it('answers from a shadowed slice in a sub-session linked to the tool call; both sessions verify and replay', async () => {
    const { store, session, model, sub, outcome, resultOf, recall } = await compactedSession();
    const seq = resultOf(2).seq;
    expect(outcome.shadowedSeqs).toContain(seq);
    const { callIds, results } = await recall([{ action: 'ask', seq, question: 'what is secret2?' }]);
    expect(results).toHaveLength(1);
    expect(results[0]?.error).toBeUndefined();
    const subId = /^answer from sub-session (\S+) about #/.exec(textOf(results[0]))?.[1] as string;
    expect(textOf(results[0])).toMatch(
      new RegExp(`about #${seq} tool/result of read_file\\(\\{"file":2\\}\\), all of \\d+:\\nsecret2 is value-22\\.$`),
    );
    await session.close();

    const subEvents = await eventsOf(store, subId);
    const start = subEvents[0]?.data as unknown as SessionStartData;
    expect(subEvents[0]?.type).toBe('session/start');
    expect(start.parent).toEqual({ sessionId: 's', callId: callIds[0] });
    expect((await store.listSessions()).map((each) => each.id).sort()).toEqual(['s', subId].sort());
    // One model request, with the system prompt, the excerpt and the question — and no tools (depth 1).
    const requests = subEvents.filter((event) => event.type === 'model/request');
    expect(requests).toHaveLength(1);
    expect(sub.calls).toHaveLength(1);
    const call = sub.calls[0] as { tools?: unknown[] };
    expect(call.tools ?? []).toEqual([]);
    expect(JSON.stringify(call)).toContain(JSON.stringify(RECALL_ASK_SYSTEM_PROMPT).slice(1, -1));
    expect(JSON.stringify(call)).toContain('secret2 = value-22');

    expect(await verified(store, 's')).toBe(true);
    expect(await verified(store, subId)).toBe(true);
    expect(await replaysAll(store, subId, sub)).toBe(1);
    expect(await replaysAll(store, 's', model)).toBeGreaterThan(4);
  });

  it('asks about a slice only: the sub-model is sent the characters from–to', async () => {
    const { sub, resultOf, recall } = await compactedSession();
    const seq = resultOf(3).seq;
    const { results } = await recall([{ action: 'ask', seq, from: 0, to: 40, question: 'what is secret3?' }]);
    expect(textOf(results[0])).toMatch(/characters 0–40 of \d+:\nThe excerpt does not say\.$/);
    expect(JSON.stringify(sub.calls[0])).not.toContain('secret3 = value');
  });

  it('refuses an ask past maxCallsPerTurn as an error result naming the ceiling, and a new turn has its allowance again', async () => {
    const { store, resultOf, recall } = await compactedSession({ maxCallsPerTurn: 1 });
    const seq = resultOf(1).seq;
    const { results } = await recall([
      { action: 'ask', seq, question: 'what is secret1?' },
      { action: 'read', seq, from: 0, to: 10 },
      { action: 'ask', seq, question: 'what is secret1?' },
    ]);
    expect(results.map((result) => result.error !== undefined)).toEqual([false, false, true]);
    expect(textOf(results[2])).toMatch(
      /^Error: .*recall ask allows 1 sub-call per turn \(maxCallsPerTurn\) and this turn has made 1 already/,
    );
    expect(await store.listSessions()).toHaveLength(2);
    const next = await recall([{ action: 'ask', seq, question: 'what is secret1?' }]);
    expect(textOf(next.results[0])).toMatch(/secret1 is value-11\.$/);
    expect(await store.listSessions()).toHaveLength(3);
  });

  it('refuses an ask past maxInputTokens as an error result naming the ceiling, writing no sub-session', async () => {
    const { store, sub, resultOf, recall } = await compactedSession({ maxInputTokens: 100 });
    expect((await store.listSessions()).map((each) => each.id)).toEqual(['s']);
    const seq = resultOf(4).seq;
    const { results } = await recall([
      { action: 'ask', seq, question: 'what is secret4?' },
      { action: 'ask', seq, from: 0, to: 30, question: 'what is secret4?' },
    ]);
    expect(results[0]?.error).toBeDefined();
    expect(textOf(results[0])).toMatch(
      /^Error: .*recall ask allows 100 input tokens per sub-call \(maxInputTokens\) and this one would send about \d+; ask about a narrower slice/,
    );
    expect(sub.calls).toHaveLength(1);
    // The refused ask wrote no sub-session and does not use the turn's allowance: the narrow slice is answered.
    expect(textOf(results[1])).toMatch(/characters 0–30 of \d+:\nThe excerpt does not say\.$/);
    expect(await store.listSessions()).toHaveLength(2);
  });

  it('refuses ask without a question, on an event that is not shadowed, and when the tool has no sub-model', async () => {
    const { recall, resultOf } = await compactedSession({ maxCallsPerTurn: 4 });
    const { results } = await recall([
      { action: 'ask', seq: resultOf(1).seq },
      { action: 'ask', seq: 0, question: 'what is secret1?' },
    ]);
    expect(textOf(results[0])).toMatch(/^Error: .*ask needs a question/);
    expect(textOf(results[1])).toMatch(/^Error: .*#0 is not a shadowed original/);
    const plain = createRecallTool({ store: new MemoryLogStore() });
    expect(JSON.stringify(plain.definition.parameters)).not.toContain('"ask"');
    expect(plain.parse({ action: 'ask', seq: 1, question: 'x' }).ok).toBe(false);
    expect(() => createRecallTool({ store: new MemoryLogStore(), ask: { model: {} as never } })).toThrow(
      /ask\.model must be a LanguageModel/,
    );
    expect(() =>
      createRecallTool({ store: new MemoryLogStore(), ask: { model: new ScriptedModel({ replies: [] }), maxInputTokens: 0 } }),
    ).toThrow(/ask\.maxInputTokens must be a positive integer/);
  });
});
