// The first error is the one reported: when cleaning up after it fails too (on a full disk,
// releasing the session or closing the turn fails like the append before it), the cleanup's
// failure is attached to the first error, never thrown instead of it, never swallowed.

import { describe, expect, it } from 'vitest';
import { attachCleanupFailure, cleanupFailuresOf, runCleanupAfter, withCleanup } from '../../src/log/cleanup.js';
import { ShadowlogError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import type { Capability } from '../../src/spine/capability.js';
import { createHarness } from '../../src/spine/harness.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { failingStore, failOnType, InjectedFailure } from '../support/failing-store.js';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

async function types(store: MemoryLogStore, sessionId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const page of store.read(sessionId)) out.push(...page.map((event: LogEvent) => event.type));
  return out;
}

describe('a failing cleanup in the harness', () => {
  it('createSession reports the failed append, with the failed release attached', async () => {
    const store = failingStore(new MemoryLogStore(), failOnType('session/start'), { failRelease: () => true });
    const harness = createHarness({ store, model: new ScriptedModel({ replies: [] }) });
    const error = await rejection(harness.createSession('full-disk'));
    expect(error).toBeInstanceOf(InjectedFailure);
    expect((error as Error).message).toBe('injected failure: append #0 of session/start');
    expect(cleanupFailuresOf(error)).toHaveLength(1);
    expect((cleanupFailuresOf(error)[0] as Error).message).toBe('injected failure: release of session full-disk');
    expect((error as Error).cause).toBe(cleanupFailuresOf(error)[0]);
  });

  it('openSession reports the failed append, with the failed release attached', async () => {
    const memory = new MemoryLogStore();
    const first = await createHarness({ store: memory, model: new ScriptedModel({ replies: [] }) }).createSession('full-disk');
    await first.close();
    const store = failingStore(memory, failOnType('session/end-seed'), { failRelease: () => true });
    const error = await rejection(createHarness({ store, model: new ScriptedModel({ replies: [] }) }).openSession('full-disk'));
    expect((error as Error).message).toBe('injected failure: append #0 of session/end-seed');
    expect((cleanupFailuresOf(error)[0] as Error).message).toBe('injected failure: release of session full-disk');
  });

  it('a turn that fails reports its error, with the failure to close the turn attached', async () => {
    const broken: Capability = {
      name: 'broken',
      beforeStep: async () => {
        throw new ShadowlogError('CAPABILITY_BROKE', 'the capability broke');
      },
    };
    const memory = new MemoryLogStore();
    const store = failingStore(memory, failOnType('turn/end'));
    const harness = createHarness({ store, model: new ScriptedModel({ replies: [] }), capabilities: [broken] });
    const session = await harness.createSession('turn');
    const error = await rejection(session.send('hi'));
    expect(error).toMatchObject({ code: 'CAPABILITY_BROKE' });
    expect(cleanupFailuresOf(error).map((failure) => (failure as Error).message)).toEqual(['injected failure: append #2 of turn/end']);
    expect(await types(memory, 'turn')).toEqual(['session/start', 'turn/start', 'user/message']);
  });

  it('a turn that fails still closes the turn when it can', async () => {
    const broken: Capability = {
      name: 'broken',
      beforeStep: async () => {
        throw new ShadowlogError('CAPABILITY_BROKE', 'the capability broke');
      },
    };
    const store = new MemoryLogStore();
    const session = await createHarness({ store, model: new ScriptedModel({ replies: [] }), capabilities: [broken] }).createSession('turn');
    const error = await rejection(session.send('hi'));
    expect(cleanupFailuresOf(error)).toEqual([]);
    expect(await types(store, 'turn')).toEqual(['session/start', 'turn/start', 'user/message', 'turn/end']);
  });
});

describe('withCleanup', () => {
  const failing = (message: string) => () => {
    throw new ShadowlogError('CLEANUP', message);
  };

  it('returns the result and runs the cleanup', async () => {
    const done: string[] = [];
    expect(
      await withCleanup(
        async () => 42,
        () => void done.push('cleaned'),
      ),
    ).toBe(42);
    expect(done).toEqual(['cleaned']);
  });

  it('keeps the first error, unchanged, with the cleanup failure attached', async () => {
    const first = new ShadowlogError('FIRST', 'the first failure');
    const error = await rejection(
      withCleanup(async () => {
        throw first;
      }, failing('the cleanup failed')),
    );
    expect(error).toBe(first);
    expect(first).toMatchObject({ code: 'FIRST', message: 'the first failure' });
    expect(first.cause).toMatchObject({ message: 'the cleanup failed' });
    expect(cleanupFailuresOf(first)).toEqual([first.cause]);
  });

  it("keeps the first error's own cause, and lists the cleanup failure beside it", async () => {
    const reason = new Error('ENOSPC');
    const first = new ShadowlogError('FIRST', 'the first failure', { cause: reason });
    const error = await rejection(
      withCleanup(async () => {
        throw first;
      }, failing('the cleanup failed')),
    );
    expect((error as Error).cause).toBe(reason);
    expect(cleanupFailuresOf(error).map((failure) => (failure as Error).message)).toEqual(['the cleanup failed']);
    attachCleanupFailure(error, new Error('a second cleanup failed'));
    expect(cleanupFailuresOf(error)).toHaveLength(2);
  });

  it('throws the cleanup failure when the work succeeded', async () => {
    const error = await rejection(withCleanup(async () => 1, failing('the cleanup failed')));
    expect(error).toMatchObject({ code: 'CLEANUP' });
  });

  it('wraps a first "error" that is not an object, which nothing can be attached to, with the cleanup failure', async () => {
    const error = await rejection(runCleanupAfter('a string was thrown', failing('the cleanup failed')));
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors).toEqual(['a string was thrown', expect.objectContaining({ message: 'the cleanup failed' })]);
    expect(cleanupFailuresOf('a string was thrown')).toEqual([]);
  });
});
