// Prints the closing line `N passed, N failed[, N skipped]` that CI reads after every run.
// A test that never ran because a hook of its suite or file failed (a beforeAll that threw or
// timed out) is counted as failed, not skipped: CI must never read "0 failed" off a broken run.

import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** True when a suite or file around `test` has errors of its own (its hooks failed). */
function stoppedByAFailedHook(test: TestCase): boolean {
  let parent: TestCase['parent'] | undefined = test.parent;
  while (parent !== undefined) {
    if (parent.errors().length > 0) return true;
    parent = parent.type === 'module' ? undefined : parent.parent;
  }
  return false;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      // A file that failed to load has no tests to count, but it is a failure.
      if (testModule.state() === 'failed' && [...testModule.children.allTests()].length === 0) failed++;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed' || stoppedByAFailedHook(test)) failed++;
        else skipped++;
      }
    }
    failed += unhandledErrors.length;
    const summary = `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
    // After vitest's own summary, so that it is the last line of the run.
    process.stdout.write(`\n${summary}\n`);
  }
}
