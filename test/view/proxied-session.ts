// A session recorded through the proxy in which the client does what real clients do: asks on,
// switches model, regenerates an answer, then compacts its history the way Claude Code does (one
// summary message in place of everything). For the page's timeline and its screenshots.

import type { LogStore } from '../../src/store/log-store.js';
import { answerJson } from '../proxy/proxy-answers.js';
import { startProxyHarness } from '../proxy/proxy-harness.js';

export const PROXIED_SESSION = 'proxied-1';

/** Records the session and hands its store to `use` before the proxy stops. */
export async function withProxiedSession<T>(use: (store: LogStore, storePath: string) => Promise<T>): Promise<T> {
  const harness = await startProxyHarness();
  try {
    const metadata = { user_id: 'user_abc_account_1_session_view' };
    const post = async (model: string, messages: object[]) => {
      const response = await fetch(`${harness.proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model, max_tokens: 100, system: 'You are Claude Code.', messages, metadata }),
      });
      const body = (await response.json()) as { content: object[] };
      if (response.status !== 200) throw new Error(`proxy answered ${response.status}: ${JSON.stringify(body)}`);
      return { role: 'assistant', content: body.content };
    };
    harness.upstream.enqueue(...[1, 2, 3, 4, 5].map((index) => answerJson('anthropic', { text: `answer ${index}` }, index)));
    const history: object[] = [{ role: 'user', content: 'Explain x.ts' }];
    history.push(await post('claude-opus-4-6', history));
    history.push({ role: 'user', content: 'And y.ts?' });
    history.push(await post('claude-opus-4-6', history));
    // The same question asked again on a cheaper model, the answer regenerated.
    history.pop();
    history.push(await post('claude-sonnet-4-5', history));
    history.push({ role: 'user', content: 'Now z.ts' });
    history.push(await post('claude-sonnet-4-5', history));
    const summary =
      'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nAnalysis: x.ts, y.ts and z.ts explained.';
    await post('claude-sonnet-4-5', [{ role: 'user', content: summary }]);
    await harness.proxy.settled();
    return await use(harness.store, harness.storePath);
  } finally {
    await harness.close();
  }
}
