// The scripted model keeps its window as a real server does: input (messages and tool
// definitions) + reserved completion tokens over the window is refused with the error an
// OpenAI server sends, classified by the adapters' own code; a run without compaction dies
// on that call, and compaction's overflow path recovers from it.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import type { LogEvent } from '../../src/log/event.js';
import { isContextOverflow } from '../../src/providers/context-overflow.js';
import type { ModelLimits, ModelRequest } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import { contextWindowErrorBody, countScriptedRequest } from '../../src/providers/scripted-window.js';
import { createHarness } from '../../src/spine/harness.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { type FakeProviderServer, startFakeProviderServer } from '../support/fake-provider-server.js';

const TOOL = { name: 'read_file', description: 'Read a file of the repository', parameters: { type: 'object', properties: {} } };
const REQUEST: ModelRequest = {
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'You are a coding agent.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Read the README and tell me what the project does, in two lines.' }] },
  ],
  params: { tools: [TOOL], maxOutputTokens: 200, stream: false },
};

/** A model whose window is exactly what `request` needs, plus `slack`. */
function modelFitting(request: ModelRequest, slack: number, replies = [{ text: 'ok' }]): ScriptedModel {
  const probe = new ScriptedModel({ replies: [], limits: { contextWindow: 1_000_000, defaultMaxOutputTokens: 100 } });
  const count = countScriptedRequest(probe.render(request).body, probe.limits);
  const limits: ModelLimits = { contextWindow: count.inputTokens + count.reservedTokens + slack, defaultMaxOutputTokens: 100 };
  return new ScriptedModel({ replies, limits });
}

async function refusal(model: ScriptedModel, request: ModelRequest): Promise<ProviderError> {
  const error = await model.send(model.render(request)).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('the scripted model’s window', () => {
  it('takes a request whose input + max output tokens equals the window, and refuses one token more', async () => {
    await expect(modelFitting(REQUEST, 0).send(modelFitting(REQUEST, 0).render(REQUEST))).resolves.toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });
    const error = await refusal(modelFitting(REQUEST, -1), REQUEST);
    expect(error).toMatchObject({ kind: 'context-overflow', contextOverflow: true, retryable: false, status: 400, provider: 'scripted' });
    expect(error.code).toBe('PROVIDER_CONTEXT_OVERFLOW');
  });

  it('counts the tool definitions and the reserved completion tokens, as a server does', async () => {
    const model = modelFitting(REQUEST, 0);
    const withoutTools: ModelRequest = { ...REQUEST, params: { ...REQUEST.params, tools: [] } };
    const count = countScriptedRequest(model.render(REQUEST).body, model.limits);
    expect(count.toolTokens).toBeGreaterThan(0);
    expect(count.reservedTokens).toBe(200);
    // The same messages fit once the tools are gone, and with a smaller answer reserved.
    await expect(model.send(model.render(withoutTools))).resolves.toBeDefined();
    const moreOutput: ModelRequest = { ...REQUEST, params: { ...REQUEST.params, maxOutputTokens: 201 } };
    expect((await refusal(modelFitting(REQUEST, 0), moreOutput)).kind).toBe('context-overflow');
    // With no maxOutputTokens in the request, the model's default is what it reserves.
    const noMax: ModelRequest = { ...REQUEST, params: { tools: [TOOL], stream: false } };
    expect(countScriptedRequest(model.render(noMax).body, model.limits).reservedTokens).toBe(100);
  });

  it('words the refusal as OpenAI does, and the OpenAI adapter classifies that body the same way', async () => {
    const model = modelFitting(REQUEST, -5);
    const error = await refusal(model, REQUEST);
    const count = countScriptedRequest(model.render(REQUEST).body, model.limits);
    const body = contextWindowErrorBody(count, model.limits) as { error: { message: string } };
    expect(body.error.message).toBe(
      `This model's maximum context length is ${model.limits.contextWindow} tokens. However, you requested ${model.limits.contextWindow + 5} tokens (${count.inputTokens} in the messages, 200 in the completion). Please reduce the length of the messages or completion.`,
    );
    expect(isContextOverflow(400, body.error.message)).toBe(true);
    expect(error.message).toContain(body.error.message);

    let server: FakeProviderServer | undefined;
    try {
      server = await startFakeProviderServer();
      server.enqueue({ type: 'error', status: 400, body });
      const openai = createOpenAIChatModel({ model: 'gpt-4o', apiKey: 'sk-test', baseUrl: `${server.baseUrl}/v1`, env: {} });
      const real = await openai.send(openai.render(REQUEST)).then(
        () => undefined,
        (reason: unknown) => reason as ProviderError,
      );
      expect(real).toMatchObject({
        kind: error.kind,
        contextOverflow: true,
        retryable: error.retryable,
        status: error.status,
        code: error.code,
      });
      const quoted = (message: string) => message.slice(message.indexOf(': ') + 2);
      expect(quoted(error.message)).toBe(quoted(real?.message ?? ''));
    } finally {
      await server?.close();
    }
  });

  it('answers no script for a refused request: the next call that fits gets the next reply', async () => {
    const model = modelFitting(REQUEST, 0, [{ text: 'first reply' }]);
    const tooLong: ModelRequest = { ...REQUEST, params: { ...REQUEST.params, maxOutputTokens: 10_000 } };
    await refusal(model, tooLong);
    await expect(model.send(model.render(REQUEST))).resolves.toMatchObject({ content: [{ type: 'text', text: 'first reply' }] });
    expect(model.calls).toHaveLength(2);
  });

  it('reports as usage the input tokens it counted', async () => {
    const model = modelFitting(REQUEST, 10);
    const result = await model.send(model.render(REQUEST));
    expect(result.usage?.inputTokens).toBe(countScriptedRequest(model.render(REQUEST).body, model.limits).inputTokens);
  });
});

describe('a session on the scripted model', () => {
  const readLog = defineTool({
    name: 'read_log',
    description: 'Read a build log',
    input: z.object({}),
    execute: () => 'step: compiled src/module.ts in 12 ms\n'.repeat(80),
  });
  const replies = ({ messages }: { messages: readonly { role: string }[] }) =>
    messages.at(-1)?.role === 'user' ? { toolCalls: [{ name: 'read_log', arguments: {} }] } : { text: 'Read it: all compiled.' };
  const limits: ModelLimits = { contextWindow: 4_000, defaultMaxOutputTokens: 300 };

  async function run(capabilities: ReturnType<typeof createCompaction>[]) {
    const store = new MemoryLogStore();
    const harness = createHarness({ store, model: new ScriptedModel({ replies, limits }), tools: [readLog], capabilities });
    const session = await harness.createSession('s');
    const reasons: string[] = [];
    for (let turn = 1; turn <= 8; turn++) reasons.push((await session.send(`Read the build log again (${turn}).`)).reason);
    await session.close();
    const events: LogEvent[] = [];
    for await (const page of store.read('s')) events.push(...page);
    return { reasons, events };
  }

  it('without compaction, dies on the call that no longer fits, with the context-overflow error recorded', async () => {
    const { reasons, events } = await run([]);
    const firstError = reasons.indexOf('error');
    expect(firstError).toBeGreaterThan(0);
    expect(reasons.slice(0, firstError).every((reason) => reason === 'completed')).toBe(true);
    const errors = events.filter((event) => event.type === 'model/error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]?.data).toMatchObject({ code: 'PROVIDER_CONTEXT_OVERFLOW', contextOverflow: true, retryable: false });
  });

  it('with compaction answering overflow only (auto off), compacts on the refusal and every turn completes', async () => {
    const compaction = createCompaction({ config: { headroomTokens: 0, auto: false, summarizer: { kind: 'extractive' } } });
    const { reasons, events } = await run([compaction]);
    expect(reasons.every((reason) => reason === 'completed')).toBe(true);
    expect(events.some((event) => event.type === 'model/error' && event.data.contextOverflow === true)).toBe(true);
    const starts = events.filter((event) => event.type === 'compaction/start');
    expect(starts.length).toBeGreaterThan(0);
    expect(starts.every((event) => event.data.trigger === 'context-overflow')).toBe(true);
  });
});
