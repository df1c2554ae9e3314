// A property of the proxy's rewrite rule: whatever a client does to its own history between
// calls (asks on, drops its oldest messages, summarizes a prefix, edits a message, regenerates
// the last answer), the session's surface after each call is exactly the list the client sent
// plus the answer, every call is recorded with the digest of its bytes, and the log verifies.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { dataOf } from '../../src/log/event-data.js';
import { verifyLog } from '../../src/log/verify.js';
import { SessionLog } from '../../src/store/session-log.js';
import { answerJson } from './proxy-answers.js';
import { type ProxyHarness, sha256, startProxyHarness } from './proxy-harness.js';

type Message = { role: 'system' | 'user' | 'assistant'; content: string };
type Operation =
  | { kind: 'ask' }
  | { kind: 'window'; keep: number }
  | { kind: 'summarize'; count: number }
  | { kind: 'edit'; at: number }
  | { kind: 'regenerate' };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Operation>({ kind: 'ask' }) },
  fc.record({ kind: fc.constant('window' as const), keep: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('summarize' as const), count: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(20) }),
  fc.constant<Operation>({ kind: 'regenerate' }),
);

let harness: ProxyHarness;
beforeAll(async () => {
  harness = await startProxyHarness();
});
afterAll(async () => {
  await harness.close();
});

let run = 0;

describe('the rewrite rule', () => {
  it('keeps the surface equal to what the client sent, whatever it does to its history', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 8 }), async (operations) => {
        const session = `property-${++run}`;
        const system: Message = { role: 'system', content: 'Be brief.' };
        let history: Message[] = [];
        let counter = 0;
        const sent: string[] = [];
        for (const op of operations) {
          counter++;
          if (op.kind === 'window') history = history.slice(-op.keep);
          else if (op.kind === 'summarize')
            history = [{ role: 'user', content: `summary ${counter} of ${op.count}` }, ...history.slice(op.count)];
          else if (op.kind === 'edit' && history.length > 0) {
            const at = op.at % history.length;
            history[at] = { ...(history[at] as Message), content: `${(history[at] as Message).content} (edited ${counter})` };
          } else if (op.kind === 'regenerate' && history.at(-1)?.role === 'assistant') history = history.slice(0, -1);
          if (history.at(-1)?.role !== 'user') history.push({ role: 'user', content: `question ${counter}` });
          harness.upstream.enqueue(answerJson('openai', { text: `answer ${run}.${counter}` }, counter));
          const body = JSON.stringify({ model: 'gpt-4o', messages: [system, ...history] });
          sent.push(body);
          const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x', 'x-shadowlog-session': session },
            body,
          });
          const answer = (await response.json()) as { choices: [{ message: Message }] };
          expect(response.status).toBe(200);
          history.push({ role: 'assistant', content: answer.choices[0].message.content });
        }
        await harness.proxy.settled();
        const log = await SessionLog.open(harness.store, session);
        const surface = log.fold.toArray().map((node) => [node.type, textOf(node.event)]);
        expect(surface).toEqual([system, ...history].map((message) => [`${message.role}/message`, message.content]));
        const events: LogEvent[] = [];
        for await (const page of harness.store.read(session)) events.push(...page);
        const calls = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
        expect(calls.map((call) => call.requestDigest)).toEqual(sent.map((body) => sha256(body)));
        expect((await verifyLog(harness.store.read(session))).ok).toBe(true);
        expect(harness.recordErrors).toEqual([]);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});

function textOf(event: LogEvent): string {
  return ((event.data as { content?: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? '').join('');
}
