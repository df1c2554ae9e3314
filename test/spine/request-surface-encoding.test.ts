// The spine writes each model/request's surface as the change from the session's previous call
// (format 2), also across lifecycles, and every call still replays to its digest: a call costs
// log bytes in proportion to what changed, not to the length of the surface.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LogEvent } from '../../src/log/event.js';
import { dataOf } from '../../src/log/event-data.js';
import { canonicalEventJson } from '../../src/log/event-json.js';
import { requestSurfacesOf } from '../../src/log/request-surface.js';
import { verifyLog } from '../../src/log/verify.js';
import { type ScriptedCall, ScriptedModel } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
});
const replies = (call: ScriptedCall) =>
  call.messages.at(-1)?.role === 'user'
    ? { toolCalls: [{ name: 'read_file', arguments: { path: `f${call.index}.ts` } }] }
    : { text: 'Read it.' };

describe('the spine’s model/request surfaces', () => {
  it('are changes from the previous call once that is shorter, across a reopen, and every call replays', async () => {
    const store = new MemoryLogStore();
    const model = new ScriptedModel({ replies });
    const harness = createHarness({ store, model, tools: [readFile], systemPrompt: 'Be brief.' });
    const first = await harness.createSession('s');
    for (let turn = 1; turn <= 12; turn++) await first.send(`Read file ${turn}.`);
    await first.close();
    const reopened = await harness.openSession('s');
    for (let turn = 13; turn <= 16; turn++) await reopened.send(`Read file ${turn}.`);
    await reopened.close();

    const events: LogEvent[] = [];
    for await (const page of store.read('s')) events.push(...page);
    const requests = events.filter((event) => event.type === 'model/request');
    const seed = events.find((event) => event.type === 'session/end-seed') as LogEvent;
    const afterSeed = requests.find((event) => event.seq > seed.seq) as LogEvent;
    const beforeSeed = requests.filter((event) => event.seq < seed.seq).at(-1) as LogEvent;
    expect(dataOf(afterSeed, 'model/request').surfaceChange?.base).toBe(beforeSeed.seq);

    const withChange = requests.filter((event) => dataOf(event, 'model/request').surfaceChange !== undefined);
    expect(withChange.length).toBeGreaterThan(requests.length / 2);
    // The last call's event is no larger than the first call's with a changed surface, though its surface is longer.
    const surfaces = requestSurfacesOf(events);
    const [early, late] = [withChange[0] as LogEvent, withChange.at(-1) as LogEvent];
    expect(surfaces.get(late.seq)?.length).toBeGreaterThan((surfaces.get(early.seq)?.length ?? 0) + 40);
    expect(canonicalEventJson(late).length - canonicalEventJson(early).length).toBeLessThan(20);

    expect(await verifyLog(store.read('s'))).toMatchObject({ ok: true });
    for (const request of requests) {
      const data = dataOf(request, 'model/request');
      const result = await replay(store, 's', { turn: data.turn, step: data.step }, { resolveRenderer: () => model });
      expect(result).toMatchObject({ verified: true, requestDigest: data.requestDigest });
      expect(result.messages.length).toBe(surfaces.get(request.seq)?.length);
    }
  });
});
