// A session named by the x-shadowlog-session header and continued by a later proxy: the new
// proxy opens it as a new lifecycle (session/end-seed), keys its surface from the log, so that
// the client's next call extends it with no replacement, and goes on counting turns.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataOf } from '../../src/log/event-data.js';
import { verifyLog } from '../../src/log/verify.js';
import { startProxy } from '../../src/proxy/index.js';
import { TurnObserver } from '../../src/proxy/proxy-session.js';
import { hasCheckpoints } from '../../src/store/log-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { answerJson } from './proxy-answers.js';
import { type ProxyHarness, startProxyHarness } from './proxy-harness.js';

let harness: ProxyHarness;
beforeEach(async () => {
  harness = await startProxyHarness();
});
afterEach(async () => {
  await harness.close();
});

async function chat(base: string, messages: object[]): Promise<{ role: string; content: string }> {
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x', 'x-shadowlog-session': 'resume-me' },
    body: JSON.stringify({ model: 'gpt-4o', messages }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { choices: [{ message: { role: string; content: string } }] }).choices[0].message;
}

/** Queues three answers, has the first proxy serve two turns of `resume-me`, closes it; gives the history so far. */
async function twoTurnsThenClose(): Promise<object[]> {
  harness.upstream.enqueue(...[1, 2, 3].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
  const history: object[] = [{ role: 'user', content: 'first' }];
  history.push(await chat(harness.proxy.url, history));
  history.push({ role: 'user', content: 'second' });
  history.push(await chat(harness.proxy.url, history));
  await harness.proxy.close();
  return history;
}

describe('a named session continued by another proxy', () => {
  it('extends the stored surface in a new lifecycle and goes on counting turns', async () => {
    const history = await twoTurnsThenClose();

    const second = await startProxy({ store: harness.store, upstreams: { openai: harness.upstream.baseUrl }, port: 0 });
    history.push({ role: 'user', content: 'third' });
    history.push(await chat(second.url, history));
    await second.close();

    const events = await harness.events('resume-me');
    expect(events.filter((event) => event.surfaceOp !== undefined && event.surfaceOp !== 'append')).toEqual([]);
    expect(events.filter((event) => event.type === 'session/end-seed')).toHaveLength(1);
    const calls = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
    expect(calls.map((call) => call.turn)).toEqual([1, 2, 3]);
    expect(await harness.surface('resume-me')).toEqual([
      '2 user/message: first',
      '4 assistant/message: answer 1',
      '7 user/message: second',
      '9 assistant/message: answer 2',
      '13 user/message: third',
      '15 assistant/message: answer 3',
    ]);
    expect((await verifyLog(harness.store.read('resume-me'))).ok).toBe(true);
  });

  it('continues from a fold checkpoint with the turn numbering in it, equal to the whole walk, and one without it is reported', async () => {
    const history = await twoTurnsThenClose();
    const store = harness.store;
    if (!hasCheckpoints(store)) throw new Error('the proxy test store keeps checkpoints');

    // A plain writer's checkpoint first (no proxy state), a seq back, then one with it, as the proxy's log writes them.
    const plain = await SessionLog.open(store, 'resume-me', { toSeq: ((await store.head('resume-me'))?.nextSeq ?? 1) - 1 });
    await plain.writeCheckpoint();
    const walked = new TurnObserver();
    await SessionLog.open(store, 'resume-me', { checkpoints: false, observe: (event) => walked.observe(event) });
    const restored = new TurnObserver();
    const log = await SessionLog.open(store, 'resume-me', { observer: restored });
    expect(log.checkpointReport.restoredFrom).toBeUndefined();
    expect(log.checkpointReport.ignored.map((finding) => finding.status)).toEqual(['incompatible']);
    await log.writeCheckpoint();
    const again = new TurnObserver();
    const fromCheckpoint = await SessionLog.open(store, 'resume-me', { observer: again });
    expect(fromCheckpoint.checkpointReport).toEqual({ restoredFrom: log.nextSeq, ignored: [] });
    expect(again.save()).toEqual(walked.save());
    expect(walked.save()).toEqual({ turn: 2, open: false });

    const second = await startProxy({ store, upstreams: { openai: harness.upstream.baseUrl }, port: 0 });
    history.push({ role: 'user', content: 'third' });
    history.push(await chat(second.url, history));
    await second.close();
    const events = await harness.events('resume-me');
    const calls = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
    expect(calls.map((call) => call.turn)).toEqual([1, 2, 3]);
  });
});
