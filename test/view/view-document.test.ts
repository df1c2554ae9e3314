// The audit page's data, worked out in one pass: every call of the demo's session rebuilt and
// digest-checked (the same digests replay proves), both compactions and the prune with their
// replacements and origins; a changed log, a digest that no longer matches, and orphan locks
// shown as what they are.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { isSurfaceType, type LogEvent } from '../../src/log/event.js';
import { computeEventHash, GENESIS_HASH } from '../../src/log/hash.js';
import { origins } from '../../src/log/origins.js';
import { RequestSurfaceDecoder } from '../../src/log/request-surface.js';
import { applySurfaceChange } from '../../src/log/surface-change.js';
import { replay } from '../../src/spine/replay.js';
import type { LogStore } from '../../src/store/log-store.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { SessionModel } from '../../src/view/client/session-model.js';
import { buildViewDocument, type CallView, ViewBuilder, type ViewDelta } from '../../src/view/index.js';
import { pageDeltaOf } from '../../src/view/page-delta.js';
import { drafts, sealLog } from '../support/events.js';
import { readAll, writeDemoSession } from './view-sessions.js';

const options = { resolveRenderer: rendererFor, registry: createCliRegistry() };

/** Every call's surface list, decoded as the page does: plain, or changed from the call before. */
function decodedSurfaces(calls: readonly CallView[]): number[][] {
  const lists: number[][] = [];
  for (const call of calls) {
    const previous = lists.at(-1);
    lists.push(
      'surfaceSeqs' in call.surface
        ? [...call.surface.surfaceSeqs]
        : applySurfaceChange(
            previous === undefined ? undefined : { seq: calls[lists.length - 1]?.seq as number, seqs: previous },
            call.surface.surfaceChange,
            call.seq,
          ),
    );
  }
  return lists;
}

async function viewOf(events: readonly LogEvent[]): Promise<ViewDelta> {
  const builder = new ViewBuilder({ sessionId: 's1', ...options });
  for (const event of events) builder.apply(event);
  return builder.take();
}

/** The events with event `seq` changed by `change` and every hash from there on computed again (an intact chain). */
function resealedWith(events: readonly LogEvent[], seq: number, change: (event: LogEvent) => LogEvent): LogEvent[] {
  const out: LogEvent[] = [];
  let prevHash = GENESIS_HASH;
  for (const original of events) {
    const copy = JSON.parse(canonicalJson(original)) as LogEvent;
    const event = original.seq === seq ? change(copy) : copy;
    const { hash: _old, ...unsealed } = event;
    const hash = computeEventHash(prevHash, unsealed);
    out.push({ ...unsealed, hash } as LogEvent);
    prevHash = hash;
  }
  return out;
}

describe("the view of the demo's session", () => {
  let store: LogStore;
  let cleanup: () => void;
  let events: LogEvent[];
  let delta: ViewDelta;
  /** The page's model of the session (its client code, run here). */
  const pageModel = () => {
    const model = new SessionModel();
    model.merge(pageDeltaOf(delta));
    return model;
  };
  beforeAll(async () => {
    const demo = await writeDemoSession('demo-view');
    cleanup = () => demo.workspace.cleanup();
    store = await openSqliteStore(demo.storePath);
    events = await readAll(store, 'demo-view');
    delta = (await buildViewDocument(store, 'demo-view', options)).session;
  });
  afterAll(async () => {
    await store.close();
    cleanup();
  });

  it('holds every event and every call, each verified with the digest replay proves', async () => {
    expect([delta.fromSeq, delta.toSeq, delta.structure.types.length]).toEqual([0, events.length, events.length]);
    expect(delta.structure.types.map((type) => delta.structure.typeNames[type])).toEqual(events.map((event) => event.type));
    expect(delta.headHash).toBe(events.at(-1)?.hash);
    const requests = events.filter((event) => event.type === 'model/request');
    expect(delta.calls.map((call) => call.seq)).toEqual(requests.map((event) => event.seq));
    expect(delta.calls.length).toBe(20);
    for (const call of delta.calls) {
      expect(call.check.status, `call ${call.turn}.${call.step}`).toBe('verified');
      const replayed = await replay(store, 'demo-view', { turn: call.turn, step: call.step }, options);
      expect(call.check.digest).toBe(replayed.requestDigest);
      expect(call.recordedDigest).toBe(replayed.requestDigest);
      expect(call.usage?.inputTokens).toBeGreaterThan(0);
      expect(events[call.answerSeq as number]?.type).toBe('assistant/message');
    }
    expect(delta.chain).toEqual({ checked: true, intact: true, firstBrokenSeq: null });
    expect(delta.problems).toEqual([]);
  });

  it("gives each call's surface as the call recorded it", () => {
    const decoder = new RequestSurfaceDecoder();
    const recorded = events.filter((event) => event.type === 'model/request').map((event) => [...decoder.decode(event)]);
    expect(decodedSurfaces(delta.calls)).toEqual(recorded);
    expect(delta.calls.some((call) => 'surfaceChange' in call.surface)).toBe(true);
  });

  it('tells both compactions and the prune, with their replacements, policy and origins', async () => {
    expect(delta.compactions).toHaveLength(2);
    for (const compaction of delta.compactions) {
      expect(compaction.outcome).toBe('compacted');
      expect(compaction.trigger).toBe('pressure');
      expect(compaction.policySeq).toBe(delta.policies[0]?.seq);
      expect(compaction.summary?.summarizer).toBe('extractive');
      expect(compaction.summary?.check.status).toBe('none');
      const replacement = compaction.replacementSeq as number;
      expect(events[replacement]?.sourceEventSeqs).toContain(compaction.summarySeq);
      const expected = await origins(replacement as never, (seq) => events[seq] as LogEvent);
      expect(expected.length).toBeGreaterThan(5);
      expect(pageModel().originsOf(replacement)).toEqual(expected);
    }
    expect(delta.prunes).toHaveLength(1);
    const prune = delta.prunes[0];
    expect(events[prune?.replacementSeq as number]?.type).toBe('tool/result');
    expect(pageModel().originsOf(prune?.replacementSeq as number)).toEqual([prune?.shadowedSeq]);
    expect(delta.policies[0]).toMatchObject({ threshold: 2560, retain: 1200, contextWindow: 3200 });
  });

  it("expands every surface event to the origins the library's origins() gives, in the page's own code", async () => {
    const model = pageModel();
    for (const event of events) {
      if (!isSurfaceType(event.type)) continue;
      const expected = await origins(event.seq as never, (seq) => events[seq] as LogEvent);
      expect(model.originsOf(event.seq), `#${event.seq}`).toEqual(expected);
    }
  });

  it('follows: events applied after a take() come in the next, with the call their answer completes', async () => {
    const builder = new ViewBuilder({ sessionId: 'demo-view', ...options });
    const cut = (delta.calls[5]?.seq as number) + 1;
    for (const event of events.slice(0, cut)) builder.apply(event);
    const first = await builder.take();
    expect(first.calls.at(-1)?.usage).toBeUndefined();
    for (const event of events.slice(cut)) builder.apply(event);
    const second = await builder.take();
    expect(second.fromSeq).toBe(cut);
    expect(second.toSeq - second.fromSeq).toBe(events.length - cut);
    expect(second.structure.types).toHaveLength(events.length - cut);
    expect(second.calls[0]?.seq).toBe(first.calls.at(-1)?.seq);
    expect(second.calls[0]?.usage?.inputTokens).toBeGreaterThan(0);
    expect([...first.calls, ...second.calls.slice(1)].map((call) => call.check.status)).toEqual(delta.calls.map(() => 'verified'));
  });

  it('shows a changed event as a broken chain, and no call after it as verified', async () => {
    const target = events.find((event) => event.type === 'tool/result') as LogEvent;
    const tampered = events.map((event) =>
      event.seq === target.seq ? ({ ...event, data: { ...event.data, content: [{ type: 'text', text: 'changed' }] } } as LogEvent) : event,
    );
    const view = await viewOf(tampered);
    expect(view.chain).toEqual({ checked: true, intact: false, firstBrokenSeq: target.seq });
    for (const call of view.calls) {
      if (call.seq < target.seq) expect(call.check.status).toBe('verified');
      else expect(call.check).toMatchObject({ status: 'failed', code: 'CORRUPT_LOG' });
    }
  });

  it('shows a digest that does not match its rebuilt request as a failed check, the rest verified', async () => {
    const call = delta.calls[3] as CallView;
    const changed = resealedWith(events, call.seq, (event) => ({ ...event, data: { ...event.data, requestDigest: 'f'.repeat(64) } }));
    const view = await viewOf(changed);
    expect(view.chain.intact).toBe(true);
    const failed = view.calls.filter((candidate) => candidate.check.status === 'failed');
    expect(failed.map((candidate) => candidate.seq)).toEqual([call.seq]);
    expect(failed[0]?.check).toMatchObject({ code: 'REPLAY_MISMATCH' });
    expect(failed[0]?.check.status === 'failed' && failed[0].check.message).toContain('does not match the rebuilt request');
  });
  // Each call's check goes on from what the call before it rendered and hashed (spine/replay-renders.ts):
  // these hold it to the bytes of each call, wherever the change stands.
  it('fails a call whose rendered bytes changed though its messages are those of the call before, and verifies the next', async () => {
    const call = delta.calls[6] as CallView;
    const changed = resealedWith(events, call.seq, (event) => {
      const data = event.data as { params: Record<string, unknown> };
      return { ...event, data: { ...event.data, params: { ...data.params, temperature: 0.125 } } } as LogEvent;
    });
    const view = await viewOf(changed);
    expect(view.chain.intact).toBe(true);
    expect(view.calls.map((candidate) => (candidate.seq === call.seq ? 'failed' : 'verified'))).toEqual(
      view.calls.map((candidate) => candidate.check.status),
    );
    const failed = view.calls.find((candidate) => candidate.seq === call.seq);
    expect(failed?.check).toMatchObject({ status: 'failed', code: 'REPLAY_MISMATCH' });
  });

  it('fails every call that sent a message changed after it was sent (the chain sealed again), and verifies the others', async () => {
    const onSurface = (candidate: CallView, seq: number) =>
      decodedSurfaces(delta.calls)[delta.calls.indexOf(candidate)]?.includes(seq) === true;
    // A user message that some calls sent and a compaction later took off the surface.
    const target = events.find(
      (event) =>
        event.type === 'user/message' &&
        delta.calls.some((candidate) => onSurface(candidate, event.seq)) &&
        delta.calls.some((candidate) => candidate.seq > event.seq && !onSurface(candidate, event.seq)),
    ) as LogEvent;
    expect(target).toBeDefined();
    const changed = resealedWith(
      events,
      target.seq,
      (event) => ({ ...event, data: { ...event.data, content: [{ type: 'text', text: 'changed' }] } }) as LogEvent,
    );
    const view = await viewOf(changed);
    expect(view.chain.intact).toBe(true);
    const expected = delta.calls.map((candidate) => (onSurface(candidate, target.seq) ? 'failed' : 'verified'));
    expect(expected).toContain('failed');
    expect(view.calls.map((candidate) => candidate.check.status)).toEqual(expected);
  });
});

describe('locks in the view', () => {
  const start = (compactionId: string) => ({
    type: 'compaction/start',
    data: { compactionId, trigger: 'manual', turn: null },
    ignorable: true as const,
  });

  it('shows a compaction/start with no end as an open lock, and an end-seed after it as making it stale', async () => {
    const open = sealLog([drafts.startV2(), drafts.system(), drafts.user('hello'), start('c-open')]);
    const openView = await viewOf(open);
    expect(openView.compactions).toEqual([expect.objectContaining({ compactionId: 'c-open', outcome: 'open' })]);
    const unlocked = sealLog([
      drafts.startV2(),
      drafts.system(),
      drafts.user('hello'),
      start('c-open'),
      { type: 'session/end-seed', data: { reason: 'unlock by ops: the process died' } },
    ]);
    const unlockedView = await viewOf(unlocked);
    expect(unlockedView.compactions[0]).toMatchObject({ outcome: 'stale', staleBy: { seq: 4, reason: 'unlock by ops: the process died' } });
  });

  it('shows a failed compaction with its reason', async () => {
    const failed = sealLog([
      drafts.startV2(),
      drafts.system(),
      drafts.user('hello'),
      start('c-fail'),
      {
        type: 'compaction/end',
        data: { compactionId: 'c-fail', error: { reason: 'summary', message: 'the summary was empty' } },
        ignorable: true,
      },
    ]);
    const view = await viewOf(failed);
    expect(view.compactions[0]).toMatchObject({ outcome: 'failed', error: { reason: 'summary', message: 'the summary was empty' } });
  });
});
