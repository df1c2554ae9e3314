// Several clients at once: eight conversations of the official openai client run concurrently
// through one proxy. Each becomes a session of its own whose surface is exactly its history,
// none borrows another's messages, and every call is recorded. And twelve calls at once naming
// one session: each answer is written on the surface of the request it answers.

import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/log/verify.js';
import { answerJson, answerStream } from './proxy-answers.js';
import { type ProxyHarness, startProxyHarness } from './proxy-harness.js';

let harness: ProxyHarness;
beforeEach(async () => {
  harness = await startProxyHarness();
});
afterEach(async () => {
  await harness.close();
});

describe('concurrent clients', () => {
  it('records eight concurrent conversations as eight sessions, each exactly its own history', async () => {
    const clients = 8;
    const turns = 3;
    harness.upstream.enqueue(
      ...Array.from({ length: clients * turns }, (_, index) => answerJson('openai', { text: `answer ${index}` }, index)),
    );
    const openai = new OpenAI({ apiKey: 'sk-x', baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    const histories = await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        const history: ChatCompletionMessageParam[] = [{ role: 'system', content: 'Shared system prompt.' }];
        for (let turn = 1; turn <= turns; turn++) {
          history.push({ role: 'user', content: `client ${client}, turn ${turn}` });
          const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
          history.push({ role: 'assistant', content: completion.choices[0]?.message.content ?? '' });
        }
        return history.map((message) => `${message.role}/message: ${String(message.content)}`);
      }),
    );
    await harness.proxy.settled();
    const ids = harness.proxy.sessionIds();
    expect(ids).toHaveLength(clients);
    const surfaces = await Promise.all(ids.map(async (id) => (await harness.surface(id)).map((line) => line.replace(/^\d+ /, ''))));
    expect(surfaces.sort()).toEqual([...histories].sort());
    for (const id of ids) expect((await verifyLog(harness.store.read(id))).ok).toBe(true);
    expect(harness.proxy.stats).toMatchObject({ forwarded: clients * turns, recorded: clients * turns, recordErrors: 0 });
  });

  it('writes twelve concurrent calls naming one session each with its own answer, on a surface one of them sent', async () => {
    const calls = 12;
    // Twelve calls in flight are twelve listeners on the proxy's stop signal: no leak warning for that.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    harness.upstream.enqueue(
      ...Array.from({ length: calls }, () => ({
        type: 'computed' as const,
        respond: (request: { body: string }) => {
          const { messages } = JSON.parse(request.body) as { messages: Array<{ content: string }> };
          const question = messages[messages.length - 1]?.content ?? '';
          return { ...answerStream('openai', { text: `answer to ${question}` }, 1, [16]), delayMs: 2 };
        },
      })),
    );
    await Promise.all(
      Array.from({ length: calls }, async (_, index) => {
        const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x', 'x-shadowlog-session': 'shared' },
          body: JSON.stringify({
            model: 'gpt-4o',
            stream: true,
            messages: [
              { role: 'system', content: 'Shared system prompt.' },
              { role: 'user', content: `question ${index}` },
            ],
          }),
        });
        expect(response.status).toBe(200);
        await response.text();
      }),
    );
    const events = await harness.events('shared');
    // Each answer follows the request it answers: the question of the nearest model/request before it.
    let asked: string | undefined;
    const answers: string[] = [];
    for (const event of events) {
      if (event.type === 'model/request') {
        const body = JSON.parse((event.data as { requestBody: { text: string } }).requestBody.text) as {
          messages: Array<{ content: string }>;
        };
        asked = body.messages[body.messages.length - 1]?.content;
      }
      if (event.type === 'assistant/message') {
        const text = (event.data as { content: Array<{ text: string }> }).content[0]?.text;
        expect(text).toBe(`answer to ${asked}`);
        answers.push(text as string);
      }
    }
    expect(answers).toHaveLength(calls);
    // The surface is one call's messages and its answer: a surface somebody sent.
    // (Each call after the first rewrote the one before it: its question replaces the other's, and the answer.)
    const surface = (await harness.surface('shared')).map((line) => line.replace(/^\d+ /, '').replace(' (replaces)', ''));
    const question = /user\/message: (question \d+)/.exec(surface[1] ?? '')?.[1];
    expect(surface).toEqual([
      'system/message: Shared system prompt.',
      `user/message: ${question}`,
      `assistant/message: answer to ${question}`,
    ]);
    expect((await verifyLog(harness.store.read('shared'))).ok).toBe(true);
    expect(harness.proxy.stats).toMatchObject({ forwarded: calls, recorded: calls, recordErrors: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
