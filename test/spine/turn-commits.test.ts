// How a turn is committed: its start (turn/start, the user's message) goes in one transaction
// with its first model/request, which is still written before the call is made (SPEC §4), and
// the turn's last answer in one with its turn/end, before send() returns it. A turn with no
// tool calls is two commits. A crash between them loses only what was never acknowledged, and
// the log a crash leaves verifies, replays and continues.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import type { Capability } from '../../src/spine/capability.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import type { LogStore } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';
import { failingStore, failOnType, InjectedFailure } from '../support/failing-store.js';

const CHILD = 'test/spine/support/turn-commit-agent.ts';
const directory = mkdtempSync(join(tmpdir(), 'shadowlog-turn-commits-'));
const children: Child[] = [];
afterEach(() => killChildren(children));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function events(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

/** A store that records the types of each append it is given. */
function recording(inner: LogStore): { store: LogStore; commits: string[][] } {
  const commits: string[][] = [];
  const store: LogStore = Object.create(inner);
  store.append = (sessionId, batch, options) => {
    commits.push(batch.map((event) => event.type));
    return inner.append(sessionId, batch, options);
  };
  return { store, commits };
}

const types = (list: readonly LogEvent[]) => list.map((event) => event.type);

/** Every model/request of the log replays to its digest. */
async function expectEveryCallReplays(store: LogStore, sessionId: string, model: ScriptedModel): Promise<number> {
  let calls = 0;
  for (const event of await events(store, sessionId)) {
    if (event.type !== 'model/request') continue;
    const { turn, step } = event.data as { turn: number; step: number };
    const replayed = await replay(store, sessionId, { turn, step }, { resolveRenderer: () => model });
    expect(replayed.verified).toBe(true);
    calls++;
  }
  return calls;
}

describe('the commits of a turn', () => {
  it('a turn without tool calls is two commits: its start with its model/request, its answer with its turn/end', async () => {
    const { store, commits } = recording(await openSqliteStore(join(directory, 'two-commits.db')));
    const model = new ScriptedModel({ replies: [{ text: 'one' }, { text: 'two' }] });
    const session = await createHarness({ store, model, systemPrompt: 'Be brief.' }).createSession('s');
    commits.length = 0;
    await session.send('first');
    await session.send('second');
    expect(commits).toEqual([
      ['turn/start', 'user/message', 'model/request'],
      ['assistant/message', 'turn/end'],
      ['turn/start', 'user/message', 'model/request'],
      ['assistant/message', 'turn/end'],
    ]);
    await session.close();
    expect(await expectEveryCallReplays(store, 's', model)).toBe(2);
    await store.close();
  });

  it('an answer with tool calls is committed before the tools run; the last answer goes with turn/end', async () => {
    const memory = new MemoryLogStore();
    const { store, commits } = recording(memory);
    const model = new ScriptedModel({ replies: [{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'done' }] });
    const seenByTool: string[][] = [];
    const echo = {
      definition: { name: 'echo', description: 'Echo', parameters: { type: 'object', properties: { text: { type: 'string' } } } },
      parse: (value: unknown) => ({ ok: true as const, value }),
      execute: async () => {
        seenByTool.push(types(await events(memory, 's')));
        return 'x';
      },
    };
    const session = await createHarness({ store, model, tools: [echo] }).createSession('s');
    commits.length = 0;
    expect((await session.send('go')).reason).toBe('completed');
    expect(commits).toEqual([
      ['turn/start', 'user/message', 'model/request'],
      ['assistant/message'],
      ['tool/result'],
      ['model/request'],
      ['assistant/message', 'turn/end'],
    ]);
    expect(seenByTool[0]?.slice(-1)).toEqual(['assistant/message']);
  });

  it('a capability that runs before each step finds the turn’s start in the store', async () => {
    const memory = new MemoryLogStore();
    const { store, commits } = recording(memory);
    const seen: string[][] = [];
    const watcher: Capability = {
      name: 'watcher',
      beforeStep: async (context) => {
        seen.push(types(await events(memory, context.sessionId)));
      },
    };
    const model = new ScriptedModel({ replies: [{ text: 'one' }] });
    const session = await createHarness({ store, model, capabilities: [watcher] }).createSession('s');
    commits.length = 0;
    await session.send('first');
    expect(seen).toEqual([['session/start', 'turn/start', 'user/message']]);
    expect(commits).toEqual([['turn/start', 'user/message'], ['model/request'], ['assistant/message', 'turn/end']]);
  });

  it('a failed first commit takes the turn’s start back: nothing of the turn is written, and its number is used again', async () => {
    const memory = new MemoryLogStore();
    const store = failingStore(memory, failOnType('model/request'));
    const model = new ScriptedModel({ replies: [{ text: 'one' }] });
    const session = await createHarness({ store, model }).createSession('s');
    await expect(session.send('lost')).rejects.toBeInstanceOf(InjectedFailure);
    expect(types(await events(memory, 's'))).toEqual(['session/start']);
    expect(session.log.nextSeq).toBe(1);
    expect(session.log.heldEvents).toBe(0);
    const result = await session.send('kept');
    expect(result).toMatchObject({ turn: 1, reason: 'completed', text: 'one' });
    expect(types(await events(memory, 's'))).toEqual([
      'session/start',
      'turn/start',
      'user/message',
      'model/request',
      'assistant/message',
      'turn/end',
    ]);
    expect((await verifyLog(memory.read('s'))).ok).toBe(true);
  });

  it('a failed last commit takes the answer back with its turn/end: send() rejects, and the log ends at the request', async () => {
    const memory = new MemoryLogStore();
    const store = failingStore(memory, failOnType('turn/end'));
    const model = new ScriptedModel({ replies: [{ text: 'one' }] });
    const session = await createHarness({ store, model }).createSession('s');
    await expect(session.send('asked')).rejects.toBeInstanceOf(InjectedFailure);
    expect(types(await events(memory, 's')).slice(-3)).toEqual(['turn/start', 'user/message', 'model/request']);
    expect(session.log.nextSeq).toBe(4);
    expect(session.log.heldEvents).toBe(0);
  });

  for (const point of ['before-request', 'in-call', 'before-end'] as const) {
    it(`after a SIGKILL ${point.replace('-', ' ')} of turn 2, the log verifies, keeps turn 1, and the session continues`, async () => {
      const database = join(directory, `${point}.db`);
      const child = startChild(CHILD, [database, 's', point], 60_000);
      children.push(child);
      const exit = await child.exited;
      const { stdout, stderr } = child.output();
      expect(exit.signal, stderr).toBe('SIGKILL');
      expect(stdout.split('\n')).toEqual(['acked turn 1', `kill ${point}`, '']);

      const store = await openSqliteStore(database);
      const left = await events(store, 's');
      expect((await verifyLog([left])).ok).toBe(true);
      const turnOne = ['turn/start', 'user/message', 'model/request', 'assistant/message', 'turn/end'];
      const turnTwo = point === 'before-request' ? [] : ['turn/start', 'user/message', 'model/request'];
      expect(types(left)).toEqual(['session/start', 'system/message', ...turnOne, ...turnTwo]);

      const model = new ScriptedModel({ replies: [{ text: 'after the crash' }] });
      const session = await createHarness({ store, model }).openSession('s');
      const result = await session.send('again');
      expect(result.turn).toBe(point === 'before-request' ? 2 : 3);
      await session.close();
      const after = types(await events(store, 's')).slice(left.length);
      const closing = point === 'before-request' ? ['session/end-seed'] : ['session/end-seed', 'turn/end'];
      expect(after).toEqual([...closing, ...turnOne]);
      expect((await verifyLog(store.read('s'))).ok).toBe(true);
      expect(await expectEveryCallReplays(store, 's', model)).toBe(point === 'before-request' ? 2 : 3);
      await store.close();
    });
  }
});
