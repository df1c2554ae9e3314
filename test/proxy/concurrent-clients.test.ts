// Several clients at once: eight conversations of the official openai client run concurrently
// through one proxy. Each becomes a session of its own whose surface is exactly its history,
// none borrows another's messages, and every call is recorded.

import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/log/verify.js';
import { answerJson } from './proxy-answers.js';
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
});
