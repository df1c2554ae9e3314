// The policy a session ran under is in its log (compaction/policy, once per lifecycle and when
// the resolved numbers change; compaction/start names it); the measure prices the whole request,
// tool definitions included; the reserve is a modest default, not the model's maximum; a failed
// compaction keeps its cause; and the spine honours maxOverflowRetries.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import { COMPACTION_END, COMPACTION_POLICY, COMPACTION_START, type CompactionPolicyData } from '../../src/compaction/event-types.js';
import { configToJson } from '../../src/compaction/policy/config-json.js';
import { parseCompactionConfig } from '../../src/compaction/policy.js';
import { compactionPreset } from '../../src/compaction/presets.js';
import type { Summarizer } from '../../src/compaction/summarizer.js';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { LogEvent, ModelRequestData } from '../../src/log/event.js';
import { scriptAwareEstimator } from '../../src/meter/script-aware.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import { createHarness, DEFAULT_MAX_OUTPUT_TOKENS } from '../../src/spine/harness.js';
import { fixedRequestText } from '../../src/spine/request-overhead.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';

const CONFIG = { thresholdRatio: 0.8, headroomTokens: 0, retainTokens: 200, summarizer: { kind: 'extractive' } } as const;

async function eventsOf(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

const longAnswer = (index: number) => ({ text: `Answer ${index + 1}: ${'a careful explanation of the parser '.repeat(30)}` });

describe('the policy in the log', () => {
  it('is recorded once per lifecycle, again when its numbers change, and named by each compaction', async () => {
    const store = new MemoryLogStore();
    const model = new ScriptedModel({
      limits: { contextWindow: 4_000, defaultMaxOutputTokens: 500 },
      replies: ({ index }) => longAnswer(index),
    });
    const harness = createHarness({ store, model, capabilities: [createCompaction({ config: CONFIG })] });
    const session = await harness.createSession('p');
    for (let turn = 1; turn <= 18; turn++) await session.send(`Question ${turn}`);
    await session.close();

    let events = await eventsOf(store, 'p');
    const policies = events.filter((event) => event.type === COMPACTION_POLICY);
    expect(policies).toHaveLength(1);
    const policy = policies[0] as LogEvent;
    const data = policy.data as unknown as CompactionPolicyData;
    expect(data).toMatchObject({
      provider: 'scripted',
      contextWindow: 4_000,
      reserve: 500,
      threshold: 3_200,
      retain: 200,
      decidedBy: 'ratio',
    });
    // The configuration as written parses back to the one the session ran under.
    expect(parseCompactionConfig(data.config)).toEqual(parseCompactionConfig(CONFIG));
    expect(configToJson(parseCompactionConfig(data.config))).toEqual(data.config);
    const starts = events.filter((event) => event.type === COMPACTION_START);
    expect(starts.length).toBeGreaterThan(0);
    for (const start of starts) expect(start.data.policySeq).toBe(policy.seq);

    // A new lifecycle records it again; a different reserve is a different policy.
    const reopened = createHarness({ store, model, maxOutputTokens: 300, capabilities: [createCompaction({ config: CONFIG })] });
    const again = await reopened.openSession('p');
    await again.send('One more question');
    await again.close();
    events = await eventsOf(store, 'p');
    const latest = events.filter((event) => event.type === COMPACTION_POLICY);
    expect(latest).toHaveLength(2);
    expect(latest[1]?.data).toMatchObject({ reserve: 300, threshold: 3_200 });
    expect((latest[1] as LogEvent).seq).toBeGreaterThan(events.findLastIndex((event) => event.type === 'session/end-seed'));
  });
});

describe('measuring the whole request', () => {
  const bigTool = defineTool({
    name: 'search_code',
    // Tool definitions travel with every request; this one is about 1,500 tokens.
    description: `Searches the code base. ${'It accepts a pattern and returns matching lines with their paths. '.repeat(120)}`,
    input: z.object({ pattern: z.string() }),
    execute: () => 'no match',
  });

  it('records estimatedTokens as the surface plus what every request carries', async () => {
    const store = new MemoryLogStore();
    const model = new ScriptedModel({ limits: { contextWindow: 100_000, defaultMaxOutputTokens: 500 }, replies: [{ text: 'Hello.' }] });
    const harness = createHarness({ store, model, tools: [bigTool] });
    await (await harness.createSession('m')).send('Hi');
    const request = (await eventsOf(store, 'm')).find((event) => event.type === 'model/request') as LogEvent;
    const fixed = scriptAwareEstimator.countText(fixedRequestText(model, harness.requestParams));
    expect(fixed).toBeGreaterThan(1_000);
    const withoutTools = createHarness({ store: new MemoryLogStore(), model, tools: [] });
    const bare = scriptAwareEstimator.countText(fixedRequestText(model, withoutTools.requestParams));
    // The surface here is one short user message: almost all of the estimate is the fixed part.
    const estimated = (request.data as unknown as ModelRequestData).estimatedTokens ?? 0;
    expect(estimated).toBeGreaterThan(fixed);
    expect(estimated - fixed).toBeLessThan(40);
    expect(bare).toBeLessThan(60);
  });

  it('compacts when the surface alone is below the threshold but the whole request is not', async () => {
    const run = async (tools: (typeof bigTool)[]) => {
      const store = new MemoryLogStore();
      // Threshold 2,400 tokens; eight turns bring the surface to about 1,900, the tool definitions add 1,500.
      const model = new ScriptedModel({
        limits: { contextWindow: 3_000, defaultMaxOutputTokens: 500 },
        replies: ({ index }) => longAnswer(index),
      });
      const harness = createHarness({ store, model, tools, capabilities: [createCompaction({ config: CONFIG })] });
      const session = await harness.createSession('w');
      for (let turn = 1; turn <= 8; turn++) await session.send(`Question ${turn}`);
      return (await eventsOf(store, 'w')).filter((event) => event.type === COMPACTION_START).length;
    };
    expect(await run([])).toBe(0);
    expect(await run([bigTool])).toBeGreaterThan(0);
  });
});

describe('the reserve', () => {
  it('is DEFAULT_MAX_OUTPUT_TOKENS, or the model maximum when smaller, unless maxOutputTokens is given', () => {
    const big = new ScriptedModel({ limits: { contextWindow: 200_000, defaultMaxOutputTokens: 64_000 }, replies: [] });
    const small = new ScriptedModel({ limits: { contextWindow: 200_000, defaultMaxOutputTokens: 8_192 }, replies: [] });
    const store = new MemoryLogStore();
    expect(createHarness({ store, model: big }).maxOutputTokens).toBe(DEFAULT_MAX_OUTPUT_TOKENS);
    expect(DEFAULT_MAX_OUTPUT_TOKENS).toBe(16_384);
    expect(createHarness({ store, model: small }).maxOutputTokens).toBe(8_192);
    expect(createHarness({ store, model: big, maxOutputTokens: 32_000 }).maxOutputTokens).toBe(32_000);
    // The reserve is in the threshold wherever a headroom is: with DSH's 65,536, a 200,000-token
    // window compacts at 200,000 − 16,384 − 65,536 = 118,080 tokens, not 70,464.
    const compaction = createCompaction({ config: { ...compactionPreset('dsh').config, summarizer: { kind: 'extractive' } } });
    createHarness({ store, model: big, capabilities: [compaction] });
    expect(compaction.policy).toMatchObject({ reserve: 16_384, threshold: 118_080 });
  });
});

describe('a failed compaction', () => {
  it('keeps the provider error behind it: code, kind and retryable flag, in compaction/end and the outcome', async () => {
    const failing: Summarizer = {
      summarize: async () => {
        throw new ProviderError('rate-limit', 'openai', 'too many requests', { status: 429 });
      },
    };
    const store = new MemoryLogStore();
    const model = new ScriptedModel({
      limits: { contextWindow: 4_000, defaultMaxOutputTokens: 500 },
      replies: ({ index }) => longAnswer(index),
    });
    const compaction = createCompaction({ config: { ...CONFIG, auto: false }, summarizer: failing });
    const harness = createHarness({ store, model, capabilities: [compaction] });
    const session = await harness.createSession('f');
    for (let turn = 1; turn <= 3; turn++) await session.send(`Question ${turn}`);
    const outcome = await compaction.compactNow(session);
    expect(outcome).toMatchObject({
      status: 'failed',
      reason: 'summary',
      cause: { code: 'PROVIDER_RATE_LIMIT', kind: 'rate-limit', retryable: true },
    });
    const end = (await eventsOf(store, 'f')).find((event) => event.type === COMPACTION_END) as LogEvent;
    expect(end.data.error).toMatchObject({
      reason: 'summary',
      cause: { code: 'PROVIDER_RATE_LIMIT', kind: 'rate-limit', retryable: true, contextOverflow: false },
    });
    expect(canonicalJson(end.data)).toContain('too many requests');
  });
});

describe('maxOverflowRetries', () => {
  it('decides how many overflow retries compaction asks the spine for', async () => {
    const askedOnSecondRetry = async (maxOverflowRetries: number) => {
      const store = new MemoryLogStore();
      const model = new ScriptedModel({
        limits: { contextWindow: 100_000, defaultMaxOutputTokens: 500 },
        replies: ({ index }) => longAnswer(index),
      });
      const compaction = createCompaction({ config: { ...CONFIG, maxOverflowRetries } });
      const session = await createHarness({ store, model, capabilities: [compaction] }).createSession('o');
      for (let turn = 1; turn <= 6; turn++) await session.send(`Question ${turn}`);
      const before = session.log.nextSeq;
      const error = new ProviderError('context-overflow', 'scripted', 'prompt is too long', { status: 400 });
      const context = {
        sessionId: 'o',
        log: session.log,
        model,
        maxOutputTokens: 500,
        signal: new AbortController().signal,
        turn: 7,
        step: 2,
      };
      const retry = await compaction.onRequestError({ ...context, error, retries: 1 });
      return { retry, wrote: session.log.nextSeq > before };
    };
    expect(await askedOnSecondRetry(1)).toEqual({ retry: false, wrote: false });
    expect(await askedOnSecondRetry(2)).toEqual({ retry: true, wrote: true });
  });
});
