// The recall tool over a session compacted with the recall strategy: a search lists bounded
// matches in the shadowed originals, read returns one or a slice, list names what a handle
// covers; a result past maxCharsPerCall is cut with a marker, a call past maxCallsPerTurn is
// refused as an error result, bad arguments are refused too; every recall is a logged tool call
// and result, the log verifies and every model call replays.

import { describe, expect, it } from 'vitest';
import { COMPACTION_EVENT_TYPES, createCompaction, createRecallTool, parseRecallConfig } from '../../../src/compaction/index.js';
import type { LogEvent, ToolResultData } from '../../../src/log/event.js';
import { EventTypeRegistry } from '../../../src/log/event-types.js';
import { verifyLog } from '../../../src/log/verify.js';
import { ScriptedModel } from '../../../src/providers/scripted-model.js';
import { createHarness } from '../../../src/spine/harness.js';
import { replay } from '../../../src/spine/replay.js';
import { MemoryLogStore } from '../../../src/store/memory/memory-store.js';
import { agent, readFile } from '../support/recall-agent.js';

async function compactedSession(recallConfig: object = {}) {
  const store = new MemoryLogStore();
  const model = new ScriptedModel({ replies: agent, limits: { contextWindow: 100_000, defaultMaxOutputTokens: 500 } });
  const compaction = createCompaction({
    config: { headroomTokens: 0, retainTokens: 50, auto: false, strategy: 'recall', summarizer: { kind: 'extractive' } },
  });
  const harness = createHarness({
    store,
    model,
    tools: [readFile, createRecallTool({ store, config: recallConfig })],
    capabilities: [compaction],
  });
  const session = await harness.createSession('s');
  for (let file = 1; file <= 4; file++) await session.send(`read ${file}`);
  const outcome = await compaction.compactNow(session);
  if (outcome.status !== 'compacted') throw new Error(`the fixture must compact, found ${outcome.status}`);
  const handleText = JSON.stringify(session.log.fold.node(outcome.summarySeq)?.event.data);
  const handle = /recall handle \\"([0-9a-f]{8})\\"/.exec(handleText)?.[1] as string;
  const recall = async (calls: object[]) => {
    await session.send(`recall ${JSON.stringify(calls)}`);
    const events = await eventsOf(store);
    const turnStart = events.findLastIndex((event) => event.type === 'turn/start');
    return events
      .slice(turnStart)
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data as unknown as ToolResultData);
  };
  return { store, session, model, outcome, handle, recall };
}

async function eventsOf(store: MemoryLogStore): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read('s')) out.push(...page);
  return out;
}

const textOf = (result: ToolResultData | undefined) => (result?.content[0] as { text: string } | undefined)?.text ?? '';

describe('the recall tool', () => {
  it('searches, reads and lists the shadowed originals, as logged tool calls that verify and replay', async () => {
    const { store, session, model, outcome, handle, recall } = await compactedSession();
    expect(handle).toMatch(/^[0-9a-f]{8}$/);
    const [search, regex, list] = await recall([
      { action: 'search', query: 'secret2 =' },
      { action: 'search', query: 'secret\\d = value-(22|33)', regex: true, handle },
      { action: 'list', handle },
    ]);
    expect(textOf(search)).toMatch(
      /^1 match in 1 of \d+ shadowed events; read one with action "read" and its seq:\n#(\d+) tool\/result of read_file\(\{"file":2\}\), characters \d+–\d+: .*secret2 = value-22/,
    );
    const seq = Number(/\n#(\d+) /.exec(textOf(search))?.[1]);
    expect(outcome.shadowedSeqs).toContain(seq);
    expect(textOf(regex)).toMatch(/^2 matches in 2 of/);
    expect(textOf(list)).toMatch(new RegExp(`^recall handle "${handle}" covers \\d+ shadowed events:\\n#\\d+ user/message`));
    const [whole, slice] = await recall([
      { action: 'read', seq },
      { action: 'read', seq, from: 0, to: 20 },
    ]);
    expect(textOf(whole)).toContain('secret2 = value-22');
    expect(textOf(slice)).toBe(
      `#${seq} tool/result of read_file({"file":2}), characters 0–20 of ${textOf(whole).split('\n').slice(1).join('\n').length}:\nfile 2 line 0: fille`,
    );
    await session.close();
    const events = await eventsOf(store);
    expect(
      (
        await verifyLog(
          (async function* () {
            yield events;
          })(),
          { registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) },
        )
      ).ok,
    ).toBe(true);
    for (const event of events.filter((each) => each.type === 'model/request')) {
      const data = event.data as { turn: number; step: number };
      const replayed = await replay(
        store,
        's',
        { turn: data.turn, step: data.step },
        { resolveRenderer: () => model, registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) },
      );
      expect(replayed.verified).toBe(true);
    }
  });

  it('cuts a result past maxCharsPerCall with a marker, and bounds the matches a search lists', async () => {
    const { recall } = await compactedSession({ maxCharsPerCall: 200, maxMatches: 2 });
    const [search, read] = await recall([
      { action: 'search', query: 'filler' },
      { action: 'search', query: 'secret1 =' },
    ]);
    expect(textOf(search)).toMatch(/^\d+ matches in \d+ of \d+ shadowed events \(the first 2 shown; narrow the query for the rest\)/);
    expect(textOf(search)).toMatch(
      /\n\[recall result cut at 200 characters; \d+ more were left out — narrow the search, or read a slice with from and to\]$/,
    );
    expect([...(textOf(search).split('\n[recall result cut')[0] as string)].length).toBe(200);
    expect(textOf(read)).toMatch(/^1 match in 1 of \d+ shadowed events/);
  });

  it('refuses calls past maxCallsPerTurn, and bad arguments, as error results the model reads', async () => {
    const { recall, outcome } = await compactedSession({ maxCallsPerTurn: 2 });
    const onSurface = 0; // the session/start is not a shadowed original
    const results = await recall([
      { action: 'search', query: '(', regex: true },
      { action: 'read', seq: onSurface },
      { action: 'read', seq: outcome.shadowedSeqs[0] },
    ]);
    expect(results.map((result) => result.error !== undefined)).toEqual([true, true, true]);
    expect(textOf(results[0])).toMatch(/^Error: .*the query is not a valid regular expression/);
    expect(textOf(results[1])).toMatch(/^Error: .*#0 is not a shadowed original/);
    expect(textOf(results[2])).toMatch(/^Error: .*recall allows 2 calls per turn and this turn has made 2 already/);
    // A new turn has its allowance again.
    const [next] = await recall([{ action: 'list', handle: 'ffffffff' }]);
    expect(textOf(next)).toMatch(/^Error: .*"ffffffff" is not a recall handle in this session/);
  });

  it('refuses bounds that cannot work', () => {
    expect(() => parseRecallConfig({ maxCharsPerCall: 50 })).toThrow(/maxCharsPerCall must be at least 200/);
    expect(() => parseRecallConfig({ maxCallsPerTurn: 0 })).toThrow(/maxCallsPerTurn/);
    expect(() => parseRecallConfig({ maxCalls: 3 })).toThrow(/maxCalls is not a key of the recall options/);
  });
});
