// The harness on branches (SPEC §14): createSession with a fork point starts a branch whose model
// calls send the parent's prefix and nothing the parent did after the fork; openSession continues
// a branch; replay and verify work through the prefix; compaction mounted on a branch finds a lock
// left open in the prefix stale, and compacts the branch without touching its parent.

import { describe, expect, it } from 'vitest';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import { trackCompactionLocks } from '../../src/compaction/compaction-locks.js';
import { COMPACTION_END, COMPACTION_START } from '../../src/compaction/event-types.js';
import { createToolResultPruner } from '../../src/compaction/tool-result-pruner.js';
import { ConfigError, ForkPointError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { readLogTool, requestedPart } from '../support/build-log-tool.js';

async function eventsOf(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

const textOf = (call: JSON | object) => JSON.stringify(call);

describe('the harness on branches', () => {
  it('starts a branch at a turn end: its calls send the prefix, nothing the parent did after, and it replays and verifies', async () => {
    const store = new MemoryLogStore();
    const model = new ScriptedModel({ replies: ({ index }) => ({ text: `Answer ${index + 1}.` }) });
    const harness = createHarness({ store, model, systemPrompt: 'Be brief.' });
    const parent = await harness.createSession('p');
    await parent.send('first question');
    await parent.send('second question');
    await parent.close();
    const parentBefore = await eventsOf(store, 'p');
    const turnOneEnd = parentBefore.find((event) => event.type === 'turn/end' && event.data.turn === 1) as LogEvent;

    const branch = await harness.createSession('b', { fork: { sessionId: 'p', at: turnOneEnd.seq } });
    expect((await branch.send('a different second question')).turn).toBe(2);
    const sent = textOf(model.calls.at(-1) as object);
    expect(sent).toContain('first question');
    expect(sent).toContain('Answer 1.');
    expect(sent).toContain('a different second question');
    expect(sent).not.toContain('"text":"second question"');
    expect(sent).not.toContain('Answer 2.');
    await branch.close();

    expect(await eventsOf(store, 'p')).toEqual(parentBefore);
    const own = (await eventsOf(store, 'b')).slice(turnOneEnd.seq + 1);
    expect(own[0]).toMatchObject({ type: 'session/fork', data: { parentSessionId: 'p', forkSeq: turnOneEnd.seq } });
    for (const id of ['p', 'b']) expect((await verifyLog(store.read(id), { registry: harness.registry })).ok).toBe(true);
    // Both calls of the branch replay to their digests: the one in the prefix and its own.
    for (const turn of [1, 2]) {
      const replayed = await replay(store, 'b', { turn }, { resolveRenderer: () => model, registry: harness.registry });
      expect(replayed.verified).toBe(true);
    }
    // Reopened, the branch continues as any session.
    const again = await harness.openSession('b');
    await again.send('third on the branch');
    await again.close();
    expect((await verifyLog(store.read('b'), { registry: harness.registry })).ok).toBe(true);
    expect(await eventsOf(store, 'p')).toEqual(parentBefore);
  });

  it('closes a turn the prefix leaves open, and refuses a fork point inside a tool call or a branch that is also a sub-session', async () => {
    const store = new MemoryLogStore();
    const model = new ScriptedModel({
      replies: ({ index }) => (index === 0 ? { toolCalls: [{ name: 'read_log', arguments: { part: 1 } }] } : { text: 'Done.' }),
    });
    const harness = createHarness({ store, model, tools: [readLogTool] });
    const parent = await harness.createSession('p');
    await parent.send('Read part 1 of the build log.');
    await parent.close();
    const events = await eventsOf(store, 'p');
    const call = events.find((event) => event.type === 'assistant/message') as LogEvent;
    const error = await harness.createSession('b', { fork: { sessionId: 'p', at: call.seq } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ForkPointError);
    expect(error).toMatchObject({ before: call.seq - 1, after: call.seq + 1 });
    expect(await store.head('b')).toBeUndefined();
    await expect(
      harness.createSession('b', { fork: { sessionId: 'p', at: call.seq + 1 }, parent: { sessionId: 'p' } }),
    ).rejects.toBeInstanceOf(ConfigError);
    // After the result, mid-turn: the branch closes turn 1 as interrupted and goes on with turn 2.
    const branch = await harness.createSession('b', { fork: { sessionId: 'p', at: call.seq + 1 } });
    const own = (await eventsOf(store, 'b')).slice(call.seq + 2);
    expect(own.map((event) => [event.type, event.data.reason])).toEqual([
      ['session/fork', undefined],
      ['turn/end', 'interrupted'],
    ]);
    expect((await branch.send('Now answer.')).turn).toBe(2);
    await branch.close();
    expect((await verifyLog(store.read('b'), { registry: harness.registry })).ok).toBe(true);
  });

  it('mounts compaction on a branch: a lock open in the prefix is stale there, and the branch compacts on its own', async () => {
    const window = { contextWindow: 6_000, defaultMaxOutputTokens: 500 };
    const agent = (call: ScriptedCall): ScriptedReply => {
      const last = call.messages[call.messages.length - 1];
      if (last?.role === 'user') {
        const part = requestedPart(last.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
        return { toolCalls: [{ name: 'read_log', arguments: { part } }] };
      }
      return { text: `Part read: every module compiled. ${'Details follow. '.repeat(20)}` };
    };
    const store = new MemoryLogStore();
    const build = () =>
      createHarness({
        store,
        model: new ScriptedModel({ replies: agent, limits: window }),
        tools: [readLogTool],
        systemPrompt: 'You read build logs.',
        capabilities: [
          createCompaction({
            config: { headroomTokens: 0, summarizer: { kind: 'extractive' } },
            pruner: createToolResultPruner({ thresholdChars: 2_000, headChars: 600, tailChars: 300 }),
          }),
        ],
      });
    const harness = build();
    const parent = await harness.createSession('p');
    for (let turn = 1; turn <= 3; turn++) await parent.send(`Read part ${turn} of the build log.`);
    await parent.close();
    // A compaction whose process died after its start: the parent's lock stays open.
    const log = await SessionLog.open(store, 'p', { registry: harness.registry, checkpoints: false });
    const [start] = await log.append([{ type: COMPACTION_START, data: { compactionId: 'c-dead', trigger: 'manual', turn: null } }]);
    const parentLocks = trackCompactionLocks();
    for (const event of await eventsOf(store, 'p')) parentLocks.observe(event);
    expect(parentLocks.openCompactions()).toEqual([{ compactionId: 'c-dead', startSeq: start?.seq }]);
    const parentBefore = await eventsOf(store, 'p');

    const branchHarness = build();
    const branch = await branchHarness.createSession('b', { fork: { sessionId: 'p', at: start?.seq as number } });
    const branchLocks = trackCompactionLocks();
    for (const event of await eventsOf(store, 'b')) branchLocks.observe(event);
    expect(branchLocks.openCompactions()).toEqual([]);
    for (let turn = 4; turn <= 14; turn++) expect((await branch.send(`Read part ${turn} of the build log.`)).reason).toBe('completed');
    await branch.close();
    const own = (await eventsOf(store, 'b')).slice((start?.seq as number) + 1);
    expect(own.filter((event) => event.type === COMPACTION_END).length).toBeGreaterThan(0);
    expect(await eventsOf(store, 'p')).toEqual(parentBefore);
    expect((await verifyLog(store.read('b'), { registry: branchHarness.registry })).ok).toBe(true);
    for (const event of own.filter((item) => item.type === 'model/request')) {
      const replayed = await replay(
        store,
        'b',
        { turn: event.data.turn as number, step: event.data.step as number },
        { resolveRenderer: () => new ScriptedModel({ replies: [], limits: window }), registry: branchHarness.registry },
      );
      expect(replayed.requestDigest).toBe(event.data.requestDigest);
    }
  });
});
