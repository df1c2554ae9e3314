// The strategy is part of the policy: `summary` by default (and what it did before strategies
// existed), per model policy, recorded in compaction/policy and compaction/start; `native`
// refuses a provider without its own compaction, naming it, and `auto` falls back to summary;
// a provider that offers one is chosen by both.

import { describe, expect, it } from 'vitest';
import { COMPACTION_POLICY, COMPACTION_START } from '../../../src/compaction/event-types.js';
import {
  type CompactionStrategy,
  createCompaction,
  createSummaryStrategy,
  type NativeCompaction,
  NativeCompactionUnavailableError,
  parseCompactionConfig,
  resolvePolicy,
} from '../../../src/compaction/index.js';
import { ConfigError } from '../../../src/log/errors.js';
import type { LogEvent } from '../../../src/log/event.js';
import { ScriptedModel } from '../../../src/providers/scripted-model.js';
import { createHarness } from '../../../src/spine/harness.js';
import { MemoryLogStore } from '../../../src/store/memory/memory-store.js';

const BASE = { headroomTokens: 0, retainTokens: 200, summarizer: { kind: 'extractive' }, auto: false } as const;

function scripted() {
  return new ScriptedModel({
    limits: { contextWindow: 4_000, defaultMaxOutputTokens: 500 },
    replies: ({ index }) => ({ text: `Answer ${index + 1}: ${'a careful explanation of the parser '.repeat(30)}` }),
  });
}

async function eventsOf(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

async function compactOnce(config: object, options: { natives?: readonly NativeCompaction[] } = {}) {
  const store = new MemoryLogStore();
  const compaction = createCompaction({ config: { ...BASE, ...config }, ...options });
  const harness = createHarness({ store, model: scripted(), capabilities: [compaction] });
  const session = await harness.createSession('s');
  for (let turn = 1; turn <= 4; turn++) await session.send(`Question ${turn}`);
  const outcome = await compaction.compactNow(session);
  await session.close();
  return { outcome, events: await eventsOf(store, 's'), compaction };
}

describe('choosing a strategy', () => {
  it('defaults to summary and accepts every name, generally and per model', () => {
    expect(parseCompactionConfig({}).strategy).toBe('summary');
    for (const strategy of ['summary', 'mask', 'recall', 'native', 'auto'] as const)
      expect(parseCompactionConfig({ strategy }).strategy).toBe(strategy);
    const config = parseCompactionConfig({
      strategy: 'summary',
      modelPolicies: [{ provider: 'openai', model: 'gpt-4.1', strategy: 'auto' }],
    });
    expect(resolvePolicy(config, { provider: 'openai', model: 'gpt-4.1', contextWindow: 1_000_000, reserve: 0 }).strategy).toBe('auto');
    expect(resolvePolicy(config, { provider: 'openai', model: 'gpt-4o', contextWindow: 1_000_000, reserve: 0 }).strategy).toBe('summary');
  });

  it('refuses an unknown strategy with the path and the choices', () => {
    expect(() => parseCompactionConfig({ strategy: 'shrink' })).toThrow(ConfigError);
    expect(() => parseCompactionConfig({ strategy: 'shrink' })).toThrow(
      /^strategy must be one of "summary", "mask", "recall", "native", "auto"/,
    );
    expect(() => parseCompactionConfig({ modelPolicies: [{ provider: 'a', model: 'b', strategy: 7 }] })).toThrow(
      /modelPolicies\[0\]\.strategy/,
    );
  });

  it('records the strategy in compaction/policy and compaction/start; summary compacts as before', async () => {
    const { outcome, events } = await compactOnce({});
    expect(outcome).toMatchObject({ status: 'compacted', strategy: 'summary' });
    if (outcome.status !== 'compacted') return;
    expect(outcome.replacementSeqs).toEqual([outcome.summarySeq]);
    const policy = events.findLast((event) => event.type === COMPACTION_POLICY) as LogEvent;
    expect(policy.data).toMatchObject({ strategy: 'summary', config: { strategy: 'summary' } });
    const start = events.findLast((event) => event.type === COMPACTION_START) as LogEvent;
    expect(start.data).toMatchObject({ strategy: 'summary' });
  });

  it('refuses native where the provider has no compaction, naming the provider and model, before any turn', async () => {
    const harness = () =>
      createHarness({
        store: new MemoryLogStore(),
        model: scripted(),
        capabilities: [createCompaction({ config: { ...BASE, strategy: 'native' } })],
      });
    expect(harness).toThrow(NativeCompactionUnavailableError);
    try {
      harness();
    } catch (error) {
      expect(error).toMatchObject({ code: 'NATIVE_COMPACTION_UNAVAILABLE', provider: 'scripted' });
      expect((error as Error).message).toMatch(/scripted offers none for scripted.*"auto"/);
    }
  });

  it('falls back to summary under auto, and records what auto became', async () => {
    const { outcome, events, compaction } = await compactOnce({ strategy: 'auto' });
    expect(compaction.strategy.name).toBe('summary');
    expect(outcome).toMatchObject({ status: 'compacted', strategy: 'summary' });
    const policy = events.findLast((event) => event.type === COMPACTION_POLICY) as LogEvent;
    expect(policy.data).toMatchObject({ strategy: 'summary', config: { strategy: 'auto' } });
  });

  it('chooses a provider compaction that offers itself, under native and under auto', async () => {
    const offered: string[] = [];
    const native: NativeCompaction = {
      provider: 'scripted',
      offers: (model) => model.provider === 'scripted',
      create: (model): CompactionStrategy => {
        offered.push(model.modelId);
        // A stand-in that summarizes, under the native name: what matters here is the choice.
        return { ...createSummaryStrategy(), name: 'native' };
      },
    };
    for (const strategy of ['native', 'auto']) {
      const { outcome, events } = await compactOnce({ strategy }, { natives: [native] });
      expect(outcome).toMatchObject({ status: 'compacted', strategy: 'native' });
      const start = events.findLast((event) => event.type === COMPACTION_START) as LogEvent;
      expect(start.data).toMatchObject({ strategy: 'native' });
    }
    expect(offered).toEqual(['scripted', 'scripted']);
  });
});
