// Rules on what a writer may hand the log, beyond the SurfaceOp rules.

import { describe, expect, it } from 'vitest';
import { InvalidEventError, SurfaceOpError } from '../../src/log/errors.js';
import type { EventDraft } from '../../src/log/event.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { drafts, fixedNow, sampleDrafts } from '../support/events.js';

function foldOf(list: EventDraft[]): SurfaceFold {
  const fold = new SurfaceFold();
  prepareAppend(fold, list, fixedNow);
  return fold;
}

describe('drafts', () => {
  it('refuses a key a draft does not have (a typo, or a seq or hash the log assigns), naming it', () => {
    const fold = foldOf(sampleDrafts());
    for (const key of ['seq', 'hash', 'sourceEventSeq']) {
      const draft = { ...drafts.user('hi'), [key]: 1 } as EventDraft;
      const error = (() => {
        try {
          prepareAppend(fold, [draft], fixedNow);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error, key).toBeInstanceOf(InvalidEventError);
      expect(error, key).toMatchObject({ field: key });
    }
    expect(fold.nextSeq).toBe(7);
  });

  it('lets a replacement list only its own log-only events besides what it shadows, not older ones', () => {
    // 0 start, 1 system, 2 turn/start, 3 user, 4 assistant(call-1), 5 tool result, 6 assistant
    const fold = foldOf([...sampleDrafts(), drafts.turnStart(2)]);
    expect(() => prepareAppend(fold, [drafts.summary('s', 3, 6, [3, 4, 5, 6, 2])], fixedNow)).toThrow(SurfaceOpError);
    expect(() => prepareAppend(fold, [drafts.summary('s', 3, 6, [3, 4, 5, 6, 0])], fixedNow)).toThrow(/older than the shadowed node 6/);
    expect(fold.nextSeq).toBe(8);
    prepareAppend(fold, [drafts.summary('s', 3, 6, [3, 4, 5, 6, 7])], fixedNow);
    expect(fold.toArray().map((node) => node.seq)).toEqual([1, 8]);
  });

  it('refuses data nested deeper than any event needs, with a typed error instead of a stack overflow', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    const fold = foldOf(sampleDrafts());
    expect(() => prepareAppend(fold, [{ ...drafts.user('hi'), data: { content: [], extra: deep } }], fixedNow)).toThrow(InvalidEventError);
  });
});
