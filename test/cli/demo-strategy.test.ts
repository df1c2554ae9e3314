// `demo --strategy mask|summary|recall`: the last question needs a value only the first turn's
// read of package.json holds, and by then compaction has taken that read off the surface. With
// recall the scripted agent gets it back through logged recall calls; with summary and mask it
// must read the file again. Each session verifies and every model call replays.

import { afterAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';

interface StrategyDemo {
  strategy: string;
  turns: string[];
  surface: { nodes: number; compactedMessages: number; maskedResults: number; wholeResults: number };
  lastTurn: { recallCalls: Array<{ seq: number; arguments: Record<string, unknown> }>; rereads: number; answer: string };
}

interface RecordEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  sourceEventSeqs?: number[];
}

describe('demo --strategy', () => {
  const workspace = createCliWorkspace();
  afterAll(() => workspace.cleanup());

  async function demo(strategy: string): Promise<StrategyDemo> {
    const result = await workspace.run(['demo', '--strategy', strategy, '--session', strategy, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as StrategyDemo;
  }

  async function recordOf(sessionId: string): Promise<RecordEvent[]> {
    return (JSON.parse((await workspace.run(['show', sessionId, '--record', '--json'])).stdout) as { events: RecordEvent[] }).events;
  }

  async function verifiesAndReplays(sessionId: string) {
    expect((await workspace.run(['verify', sessionId])).code).toBe(0);
    const requests = (await recordOf(sessionId)).filter((event) => event.type === 'model/request');
    for (const { data } of requests) {
      const result = await workspace.run(['replay', sessionId, '--turn', String(data.turn), '--step', String(data.step), '--json']);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ verified: true });
    }
  }

  it('recall: the agent recovers the shadowed value through logged recall calls', async () => {
    const run = await demo('recall');
    expect(run.turns.every((reason) => reason === 'completed')).toBe(true);
    expect(run.lastTurn.answer).toMatch(/^`node --test test\/`: the early read of package\.json was compacted away, so I recalled it/);
    expect(run.lastTurn.rereads).toBe(0);
    expect(run.lastTurn.recallCalls.map((call) => call.arguments.action)).toEqual(['search', 'read']);
    const events = await recordOf('recall');
    // The read's seq is the original read of package.json, now shadowed.
    const readSeq = run.lastTurn.recallCalls[1]?.arguments.seq as number;
    const original = events[readSeq] as RecordEvent;
    expect(original.type).toBe('tool/result');
    expect(JSON.stringify(original.data)).toContain('node --test test/');
    expect(events.some((event) => event.sourceEventSeqs?.includes(readSeq))).toBe(true);
    // Each recall is an ordinary tool call and result in the log.
    const results = events.filter(
      (event) =>
        event.type === 'tool/result' && JSON.stringify(event.data).includes('tool/result of read_file({\\"path\\":\\"package.json\\"})'),
    );
    expect(results).toHaveLength(2);
    // The surface holds recall handles, not summaries.
    const handles = events.filter((event) => event.type === 'compaction/summary');
    expect(handles.length).toBeGreaterThan(0);
    expect(handles.every((event) => event.data.strategy === 'recall')).toBe(true);
    await verifiesAndReplays('recall');
  });

  it('summary and mask: the value is gone from the surface, so the agent reads the file again', async () => {
    for (const strategy of ['summary', 'mask']) {
      const run = await demo(strategy);
      expect(run.turns.every((reason) => reason === 'completed')).toBe(true);
      expect(run.lastTurn.recallCalls).toEqual([]);
      expect(run.lastTurn.rereads).toBe(1);
      expect(run.lastTurn.answer).toMatch(/nothing on my surface held it, so I read the file again/);
      if (strategy === 'mask') {
        expect(run.surface.maskedResults).toBeGreaterThan(0);
        expect(run.surface.compactedMessages).toBe(0);
      } else expect(run.surface.compactedMessages).toBeGreaterThan(0);
      await verifiesAndReplays(strategy);
    }
  });

  it('prints what the strategy left on the surface', async () => {
    const result = await workspace.run(['demo', '--strategy', 'recall', '--session', 'recall-text']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('════ The surface recall left: what the model is shown now ════');
    expect(result.stdout).toMatch(/surface: \d+ messages; \d+ compacted \(recall handles\), 0 masked tool results, \d+ tool results whole/);
    expect(result.stdout).toMatch(/recall call at #\d+: \{"action":"search","query":"\\"test\\":"\} \(a logged tool call and result\)/);
    expect(result.stdout).toMatch(/under recall handle "[0-9a-f]{8}"/);
  });

  it('refuses a strategy the demo does not show', async () => {
    const result = await workspace.run(['demo', '--strategy', 'native']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/demo --strategy takes summary, mask, recall, found "native"/);
  });
});
