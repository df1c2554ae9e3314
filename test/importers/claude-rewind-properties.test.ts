// Property: any sequence of prompts and rewinds a Claude Code user makes imports as one session
// per path that holds a prompt of its own, each a branch of the path it left, whose prefix is
// that path's events (hash for hash), whose chain verifies, and whose surface holds exactly the
// prompts and answers of its path, in order.

import fc from 'fast-check';
import { MemoryLogStore } from 'shadowlog';
import { COMPACTION_EVENT_TYPES } from 'shadowlog/compaction';
import { importFiles } from 'shadowlog/importers';
import { EventTypeRegistry, verifyLog } from 'shadowlog/log';
import { describe, expect, it } from 'vitest';
import { claudeExchange, jsonl } from './support/branch-fixtures.js';
import { eventsOf, surfaceTexts } from './support/branch-logs.js';

const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
const SESSION = '7e570000-0000-4000-8000-000000000000';

/** A step: ask a new prompt where the conversation stands, or rewind to before an earlier prompt of the current path. */
const steps = fc.array(fc.oneof(fc.constant({ kind: 'ask' as const }), fc.record({ kind: fc.constant('rewind' as const), to: fc.nat() })), {
  minLength: 1,
  maxLength: 12,
});

interface Exchange {
  readonly prompt: string;
  readonly records: Array<Record<string, unknown>>;
  readonly before: Exchange | undefined;
}

function transcript(plan: ReadonlyArray<{ kind: 'ask' } | { kind: 'rewind'; to: number }>) {
  const records: Array<Record<string, unknown>> = [];
  const exchanges: Exchange[] = [];
  let at: Exchange | undefined;
  let pendingRewind = false;
  plan.forEach((step, index) => {
    if (step.kind === 'rewind') {
      const path: Exchange[] = [];
      for (let each = at; each !== undefined; each = each.before) path.unshift(each);
      if (path.length === 0) return;
      at = (path[step.to % path.length] as Exchange).before;
      pendingRewind = true;
      return;
    }
    const parent = at === undefined ? null : String(at.records[1]?.uuid);
    const time = new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString();
    const made = claudeExchange(SESSION, parent ?? '', `prompt ${index}`, `answer ${index}`, time, `step${index}`);
    if (parent === null) (made[0] as Record<string, unknown>).parentUuid = null;
    const exchange: Exchange = { prompt: `prompt ${index}`, records: made, before: at };
    records.push(...made);
    exchanges.push(exchange);
    at = exchange;
    pendingRewind = false;
  });
  return { records, exchanges, leaf: at, pendingRewind };
}

/** The prompts and answers on the path ending at `leaf`. */
function pathTexts(leaf: Exchange | undefined): string[] {
  const texts: string[] = [];
  for (let each = leaf; each !== undefined; each = each.before) texts.unshift(each.prompt, each.prompt.replace('prompt', 'answer'));
  return texts;
}

describe('prompts and rewinds in any order', () => {
  it('import as one session per path, each a verified branch of the path it left, showing only its path', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (plan) => {
        const { records, exchanges } = transcript(plan);
        if (records.length === 0) return;
        const store = new MemoryLogStore();
        const text = jsonl(records);
        const summary = await importFiles(store, [{ path: `${SESSION}.jsonl`, bytes: Buffer.from(text) }], { format: 'auto', registry });
        const sessions = summary.files[0]?.sessions ?? [];
        // The leaves of the exchange tree: each is the end of one session's path.
        const leaves = exchanges.filter((exchange) => !exchanges.some((other) => other.before === exchange));
        expect(sessions).toHaveLength(leaves.length);
        const surfaces = new Map<string, string[]>();
        for (const session of sessions) {
          const events = await eventsOf(store, session.sessionId);
          expect((await verifyLog([events], { registry })).ok).toBe(true);
          if (session.fork !== undefined) {
            expect(session.fork.stored).toBe('linked');
            const parent = await eventsOf(store, session.fork.parentSessionId);
            expect(events.slice(0, session.fork.forkSeq + 1)).toEqual(parent.slice(0, session.fork.forkSeq + 1));
          }
          surfaces.set(session.sessionId, surfaceTexts(events));
        }
        // The main session ends at the last prompt asked; every leaf's path is some session's surface.
        const last = exchanges[exchanges.length - 1];
        expect(surfaces.get(`claude-code-${SESSION}`)).toEqual(pathTexts(last));
        const shown = [...surfaces.values()].map((texts) => texts.join('|')).sort();
        expect(shown).toEqual(leaves.map((leaf) => pathTexts(leaf).join('|')).sort());
      }),
      { numRuns: 60 },
    );
  });
});
