// An imported model/request records the surface it saw as the change since the previous one, and
// building it costs what changed, not the surface: importing a long session must stay linear in
// its length. The work is counted (surface nodes walked, by the builder or the fold's check), not
// timed; every request's encoding must be what encodeRequestSurface makes of the whole list.

import { describe, expect, it, vi } from 'vitest';
import { SessionBuilder } from '../../src/importers/session-builder.js';
import { dataOf } from '../../src/log/event-data.js';
import { encodeGrownSurface, encodeRequestSurface, type RequestSurfaceList } from '../../src/log/surface-change.js';
import type { SurfaceNode } from '../../src/log/surface-fold.js';

function builder(): SessionBuilder {
  return new SessionBuilder({ sessionId: 'work', sourcePath: 'session.jsonl', source: 'pi', time: '2025-11-21T00:00:00.000Z' });
}

/** Counts the surface nodes walked through the fold's nodes() and toArray(). */
function countWalks(target: SessionBuilder): { walked: number } {
  const count = { walked: 0 };
  const fold = target.fold;
  const nodes = fold.nodes.bind(fold);
  vi.spyOn(fold, 'nodes').mockImplementation(function* (): Generator<SurfaceNode> {
    for (const node of nodes()) {
      count.walked++;
      yield node;
    }
  });
  const toArray = fold.toArray.bind(fold);
  vi.spyOn(fold, 'toArray').mockImplementation(() => {
    const out = toArray();
    count.walked += out.length;
    return out;
  });
  return count;
}

function answer(text: string, line: number) {
  return {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text' as const, text }],
    toolCalls: [],
    sourceLines: [{ line }],
  };
}

describe('imported model/requests', () => {
  it('walk no surface node while the surface only grows, however long it is', () => {
    const session = builder();
    const turn = (index: number) => {
      session.message('user/message', { content: [{ type: 'text', text: `q${index}` }] }, { startsTurn: true });
      session.call(answer(`a${index}`, index + 1));
    };
    // While the surface is short, its plain list can be the shorter encoding, made from the whole surface.
    for (let index = 0; index < 20; index++) turn(index);
    const count = countWalks(session);
    for (let index = 20; index < 400; index++) turn(index);
    expect(session.fold.size).toBe(800);
    expect(count.walked).toBe(0);
  });

  it('record only the seqs appended since the previous request, as encodeRequestSurface would', () => {
    const session = builder();
    for (let index = 0; index < 50; index++) {
      session.message('user/message', { content: [{ type: 'text', text: `q${index}` }] }, { startsTurn: true });
      session.call(answer(`a${index}`, index + 1));
    }
    let previous: RequestSurfaceList | undefined;
    let surface: number[] = [];
    for (const event of session.events) {
      if (event.type === 'model/request') {
        const data = dataOf(event, 'model/request');
        const whole = encodeRequestSurface(previous, surface);
        expect(data).toMatchObject(whole);
        if (previous !== undefined && previous.seqs.length > 30) {
          expect(data.surfaceSeqs).toBeUndefined();
          expect(data.surfaceChange?.splices).toEqual([[previous.seqs.length, 0, ...surface.slice(previous.seqs.length)]]);
        }
        previous = { seq: event.seq, seqs: [...surface] };
      } else if (event.surfaceOp === 'append') {
        surface = [...surface, event.seq];
      }
    }
    expect(previous?.seqs.length).toBe(99);
    expect('surfaceChange' in (session.events.at(-2)?.data ?? {})).toBe(true);
  });
});

describe('encodeGrownSurface', () => {
  it('is the change encodeRequestSurface makes of a grown list, or nothing when the plain list may be shorter', () => {
    const cases: Array<[RequestSurfaceList, number[]]> = [
      [{ seq: 5, seqs: [1, 2, 3, 4] }, []],
      [{ seq: 5, seqs: [1, 2, 3, 4] }, [6]],
      [{ seq: 5, seqs: Array.from({ length: 200 }, (_, i) => i) }, [300, 301, 302]],
      [{ seq: 2, seqs: [1] }, Array.from({ length: 50 }, (_, i) => 1000 + i)],
    ];
    for (const [previous, appended] of cases) {
      const grown = encodeGrownSurface(previous, appended);
      const whole = encodeRequestSurface(previous, [...previous.seqs, ...appended]);
      if (grown === undefined)
        expect('surfaceSeqs' in whole || JSON.stringify(whole).length >= 2 * (previous.seqs.length + appended.length)).toBe(true);
      else expect(grown).toEqual(whole);
    }
    expect(
      encodeGrownSurface(
        { seq: 2, seqs: [1] },
        Array.from({ length: 50 }, (_, i) => 1000 + i),
      ),
    ).toBeUndefined();
  });
});
