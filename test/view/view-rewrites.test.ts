// Client rewrites and model switches on the page's timeline: a proxied session whose client
// regenerated an answer, switched model and compacted its history shows each as what it is (a
// regenerated answer is not a compaction), and the header counts them.

import { describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import { SessionModel } from '../../src/view/client/session-model.js';
import { buildViewDocument } from '../../src/view/index.js';
import { pageDeltaOf } from '../../src/view/page-delta.js';
import { PROXIED_SESSION, withProxiedSession } from './proxied-session.js';

describe('client rewrites and model switches', () => {
  it('are on the timeline, each named for what the client did', async () => {
    const model = await withProxiedSession(async (store) => {
      const document = await buildViewDocument(store, PROXIED_SESSION, { resolveRenderer: rendererFor, registry: createCliRegistry() });
      const session = new SessionModel();
      session.merge(pageDeltaOf(document.session));
      return session;
    });
    const rewrites = [...model.rewrites.values()].map((rewrite) => rewrite.kind);
    expect(rewrites).toEqual(['regenerated', 'client-compaction']);
    expect(model.compactions.size).toBe(0);
    expect(model.switches.map((change) => [change.from, change.to])).toEqual([
      ['anthropic/claude-opus-4-6', 'anthropic/claude-sonnet-4-5'],
    ]);
    const kinds = model.timeline.map((item) => item.kind);
    expect(kinds.filter((kind) => kind === 'rewrite')).toHaveLength(2);
    // The switch stands just before the call that made it.
    const at = kinds.indexOf('switch');
    expect(kinds[at + 1]).toBe('call');
    const regenerated = [...model.rewrites.values()][0];
    expect(regenerated?.label).toBe('regenerated answer: the last answer dropped');
  });
});
