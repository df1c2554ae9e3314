// The peer policies: each resolves to the trigger and tail its source states, for windows
// where it can work, and refuses one where it cannot; drop-oldest's projection keeps the
// newest whole turns that fit and always the current one.

import { describe, expect, it } from 'vitest';
import { newestWholeTurns, PEER_POLICIES, type PeerPlan, peerPolicy } from '../../src/compaction/peer-policies.js';
import { ConfigError } from '../../src/log/errors.js';
import type { SurfaceNode } from '../../src/log/surface-fold.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow } from '../support/events.js';

function resolved(name: string, contextWindow: number, reserve: number) {
  const plan = peerPolicy(name)?.plan({ contextWindow, reserve }) as PeerPlan;
  if (plan.kind !== 'compaction') expect.unreachable(`${name} is not a compaction plan`);
  return { threshold: plan.resolved.threshold, retain: plan.resolved.retain };
}

describe('the peer policies', () => {
  it('are named once each and say what they do and where that comes from', () => {
    const names = PEER_POLICIES.map((policy) => policy.name);
    expect(names).toEqual(['pi', 'claude-code', 'codex', 'opencode', 'drop-oldest', 'none']);
    for (const policy of PEER_POLICIES) {
      expect(policy.description.length).toBeGreaterThan(40);
      expect(policy.source.length).toBeGreaterThan(10);
    }
    expect(peerPolicy('aider')).toBeUndefined();
  });

  it('pi compacts past W − 16,384 and keeps 20,000 tokens', () => {
    expect(resolved('pi', 200_000, 16_384)).toEqual({ threshold: 183_616, retain: 20_000 });
    expect(resolved('pi', 64_000, 4_096)).toEqual({ threshold: 47_616, retain: 20_000 });
    // A reserve above pi's 16,384 is kept whole: shadowlog never lets input and reserve exceed W.
    expect(resolved('pi', 200_000, 32_000)).toEqual({ threshold: 168_000, retain: 20_000 });
  });

  it('Claude Code compacts at 84 % of W and keeps nothing verbatim; Codex at 90 % of 95 % of W', () => {
    expect(resolved('claude-code', 200_000, 0)).toEqual({ threshold: 168_000, retain: 0 });
    expect(resolved('claude-code', 64_000, 4_096)).toEqual({ threshold: 53_760, retain: 0 });
    expect(resolved('codex', 272_000, 0)).toEqual({ threshold: 232_560, retain: 0 });
  });

  it('OpenCode compacts at W − output − min(20,000, output) and keeps min(15,000, max(2,000, a quarter of that))', () => {
    expect(resolved('opencode', 200_000, 32_000)).toEqual({ threshold: 148_000, retain: 15_000 });
    expect(resolved('opencode', 64_000, 4_096)).toEqual({ threshold: 55_808, retain: 13_952 });
    expect(resolved('opencode', 12_000, 1_000)).toEqual({ threshold: 10_000, retain: 2_500 });
  });

  it('refuses a window the policy cannot work in, with the configuration error shadowlog’s own policy gets', () => {
    // pi keeps 20,000 tokens: in a 30,000-token window its threshold (13,616) is below that.
    expect(() => peerPolicy('pi')?.plan({ contextWindow: 30_000, reserve: 0 })).toThrow(ConfigError);
    expect(() => peerPolicy('pi')?.plan({ contextWindow: 30_000, reserve: 0 })).toThrow(/retainTokens/);
  });

  it('drop-oldest and none run no transaction', () => {
    expect(peerPolicy('drop-oldest')?.plan({ contextWindow: 64_000, reserve: 4_096 })).toEqual({ kind: 'drop-oldest' });
    expect(peerPolicy('none')?.plan({ contextWindow: 64_000, reserve: 4_096 })).toEqual({ kind: 'none' });
  });
});

describe('the drop-oldest projection', () => {
  /** A surface: system, then three turns (user, assistant with a call, its result, an answer). */
  async function surface(): Promise<{ log: SessionLog; nodes: SurfaceNode[] }> {
    const log = await SessionLog.create(new MemoryLogStore(), 's', { now: fixedNow });
    await log.append([drafts.system()]);
    for (const turn of [1, 2, 3]) {
      await log.append([
        drafts.user(`turn ${turn}`),
        drafts.assistant('Reading', [`c${turn}`]),
        drafts.toolResult(`c${turn}`, 'output'),
        drafts.assistant(`answer ${turn}`),
      ]);
    }
    return { log, nodes: log.fold.toArray() };
  }
  // System 10; each turn's four nodes 5 + 5 + 20 + 10 = 40.
  const prices = [10, ...Array.from({ length: 3 }, () => [5, 5, 20, 10]).flat()];

  it('sends everything when it fits', async () => {
    const { nodes } = await surface();
    expect(newestWholeTurns(nodes, prices, 130, 3)).toBeUndefined();
  });

  it('keeps the newest whole turns that fit with the system message and the marker', async () => {
    const { nodes } = await surface();
    // 10 + 3 + 40 + 40 = 93: turns 2 and 3 fit, turn 1 does not.
    expect(newestWholeTurns(nodes, prices, 93, 3)).toBe(5);
    expect(newestWholeTurns(nodes, prices, 92, 3)).toBe(9);
    expect(nodes[5]?.type).toBe('user/message');
  });

  it('keeps the current turn even when it alone does not fit', async () => {
    const { nodes } = await surface();
    expect(newestWholeTurns(nodes, prices, 20, 3)).toBe(9);
  });

  it('drops a marker of an earlier drop with the turns after it, and leaves it when no whole turn can go', async () => {
    const { log, nodes } = await surface();
    // Turn 1 shadowed by a marker: system, marker, turn 2, turn 3.
    await log.append([
      {
        ...drafts.user('[4 earlier messages were left out]'),
        surfaceOp: { op: 'replace', startSeq: 2, endSeq: 5 } as never,
        sourceEventSeqs: [2, 3, 4, 5],
      } as never,
    ]);
    const after = log.fold.toArray();
    expect(after).toHaveLength(nodes.length - 3);
    const marked = [10, 3, 5, 5, 20, 10, 5, 5, 20, 10];
    // 10 + 3 + 40 + 40 = 93 > 92: the marker goes with turn 2 (a new marker stands for both).
    expect(newestWholeTurns(after, marked, 92, 3)).toBe(6);
    // An old marker dearer than a new one: every turn fits with the new one, so no whole turn can go.
    const dearMarker = [10, 50, ...marked.slice(2)];
    expect(newestWholeTurns(after, dearMarker, 100, 3)).toBeUndefined();
  });
});
