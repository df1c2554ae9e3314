// A three-level nest: the demo's agent and policy run its tasks twice over, so that summaries
// come to hold summaries that hold summaries. The deepest is checked against a golden file;
// at every level the first request stays the session's first and nothing comes back as text.
// Regenerate the golden: SHADOWLOG_UPDATE_GOLDEN=1 npx vitest run test/compaction/nested-summaries.test.ts

import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_PROJECT } from '../../src/cli/commands/demo.js';
import { DEMO_TASKS, demoAgentReply } from '../../src/cli/demo/demo-agent.js';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import type { SummarySections } from '../../src/compaction/summary-sections.js';
import { createToolResultPruner } from '../../src/compaction/tool-result-pruner.js';
import type { LogEvent } from '../../src/log/event.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { createFileTools } from '../../src/spine/tools/file-tools.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { expectGolden } from './support/golden.js';

const textOf = (event: LogEvent | undefined) =>
  ((event?.data.content ?? []) as Array<{ text?: string }>).map((block) => block.text ?? '').join('');

describe('summaries nested three levels deep', () => {
  const events: LogEvent[] = [];
  /** How deep each summary node nests: 1 for a summary of originals only. */
  const depth = new Map<number, number>();

  beforeAll(async () => {
    const store = new MemoryLogStore();
    const model = new ScriptedModel({
      modelId: 'demo-script',
      replies: demoAgentReply,
      limits: { contextWindow: 3_000, defaultMaxOutputTokens: 512 },
    });
    const compaction = createCompaction({
      config: { headroomTokens: 0, retainTokens: 1_200, summarizer: { kind: 'extractive' } },
      pruner: createToolResultPruner({ thresholdChars: 4_096, headChars: 1_536, tailChars: 512 }),
    });
    const harness = createHarness({ store, model, tools: createFileTools(SAMPLE_PROJECT), capabilities: [compaction] });
    const session = await harness.createSession('nested');
    for (const task of [...DEMO_TASKS, ...DEMO_TASKS, ...DEMO_TASKS]) await session.send(task.prompt);
    await session.close();
    for await (const page of store.read('nested')) events.push(...page);
    for (const event of events) {
      if (event.type !== 'user/message' || event.sourceEventSeqs === undefined) continue;
      const inner = event.sourceEventSeqs.map((seq) => depth.get(seq) ?? 0);
      depth.set(event.seq, 1 + Math.max(0, ...inner));
    }
  });

  const deepest = () => Math.max(...depth.values());
  const nodesAt = (level: number) => events.filter((event) => depth.get(event.seq) === level);

  it('nests at least three levels', () => {
    expect(deepest()).toBeGreaterThanOrEqual(3);
  });

  it('keeps the session’s first request first at every level, in one wrapper, never re-reading a summary as text', () => {
    const first = textOf(events.find((event) => event.type === 'user/message'));
    for (const node of events.filter((event) => depth.has(event.seq))) {
      const text = textOf(node);
      expect(text.match(/<compacted-summary>/g)).toHaveLength(1);
      expect(text.match(/<\/compacted-summary>/g)).toHaveLength(1);
      expect(text.split('\n## Requests\n')[1]?.split('\n')[0]).toBe(`- [done] "${first}"`);
      expect(text.match(/Earlier context was compacted/g)).toHaveLength(1);
      expect(text.match(/^## Requests$/gm)).toHaveLength(1);
      const summary = events.find((event) => event.seq === node.seq - 1);
      const sections = summary?.data.sections as unknown as SummarySections;
      expect(sections.earlier).toEqual([]);
    }
  });

  it('keeps every request of the levels below, in order', () => {
    const requestsOf = (node: LogEvent) =>
      ((events.find((event) => event.seq === node.seq - 1)?.data.sections as unknown as SummarySections | undefined)?.requests ?? []).map(
        (request) => request.text,
      );
    for (let level = 2; level <= deepest(); level++) {
      for (const node of nodesAt(level)) {
        const outer = requestsOf(node);
        for (const inner of nodesAt(level - 1).filter((candidate) => node.sourceEventSeqs?.includes(candidate.seq)))
          expect(outer.slice(0, requestsOf(inner).length)).toEqual(requestsOf(inner));
      }
    }
  });

  it('matches the golden file at the deepest level', () => {
    const node = nodesAt(deepest()).at(-1);
    expectGolden(new URL('./fixtures/nested-three-levels.txt', import.meta.url), `${textOf(node)}\n`);
  });
});
