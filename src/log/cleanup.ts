// Keeping the first error when cleaning up after it fails too. On a full disk, releasing a
// session after a failed append fails as well; the failure the caller must see is the first
// one, with the cleanup's attached to it, never replaced by it and never swallowed.

import { messageOf } from './errors.js';

const CLEANUP_FAILURES = Symbol.for('shadowlog.cleanupFailures');

type WithCleanupFailures = { [CLEANUP_FAILURES]?: unknown[] };

/**
 * Runs `work`, then `cleanup` whether `work` succeeded or not, and keeps the first error: when
 * `work` failed, a failing cleanup is attached to that error (see attachCleanupFailure) and the
 * error is rethrown as it was; when only the cleanup failed, its error is thrown.
 */
export async function withCleanup<T>(work: () => Promise<T>, cleanup: () => Promise<void> | void): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await runCleanupAfter(error, cleanup);
    throw error;
  }
  await cleanup();
  return result;
}

/**
 * Runs `cleanup` after `error` (the first failure), which the caller goes on to throw: a
 * failing cleanup is attached to `error` instead of replacing it. Never throws, except when
 * `error` is not an object, so that a cleanup failure can be attached to nothing: then an
 * AggregateError of both is thrown.
 */
export async function runCleanupAfter(error: unknown, cleanup: () => Promise<void> | void): Promise<void> {
  try {
    await cleanup();
  } catch (cleanupError) {
    const kept = attachCleanupFailure(error, cleanupError);
    if (kept !== error) throw kept;
  }
}

/**
 * Attaches `cleanupError` to `error` and returns `error`, unchanged in class, code, message and
 * cause. The cleanup failure becomes `error.cause` when the error had none (so that Node's
 * printing and generic tools show it), and is always listed by cleanupFailuresOf. An `error`
 * that is not an object cannot carry it: an AggregateError of both is returned instead.
 */
export function attachCleanupFailure(error: unknown, cleanupError: unknown): unknown {
  if ((typeof error !== 'object' && typeof error !== 'function') || error === null || !Object.isExtensible(error)) {
    return new AggregateError([error, cleanupError], `${messageOf(error)}; cleaning up after it failed too: ${messageOf(cleanupError)}`);
  }
  const target = error as WithCleanupFailures & { cause?: unknown };
  const failures = target[CLEANUP_FAILURES] ?? [];
  if (target[CLEANUP_FAILURES] === undefined) {
    Object.defineProperty(target, CLEANUP_FAILURES, { value: failures, enumerable: false });
  }
  failures.push(cleanupError);
  if (!('cause' in target)) {
    Object.defineProperty(target, 'cause', { value: cleanupError, enumerable: false, writable: true, configurable: true });
  }
  return error;
}

/** The cleanup failures attached to `error`, first first; empty when there are none. */
export function cleanupFailuresOf(error: unknown): readonly unknown[] {
  if ((typeof error !== 'object' && typeof error !== 'function') || error === null) return [];
  return (error as WithCleanupFailures)[CLEANUP_FAILURES] ?? [];
}
