/**
 * Prints the plain closing line CI reads: "N passed, N failed, N skipped".
 *
 * Vitest marks the tests of a file whose beforeAll threw as skipped, and an afterAll that threw
 * or an unhandled error leaves every test passed; counted as they are, a suite that never ran
 * read as a clean run. Here skipped means only a test that asked to be skipped, and anything
 * else that did not pass is a failure.
 */
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';

interface Summary {
  passed: number;
  failed: number;
  skipped: number;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    const { passed, failed, skipped } = summarize(testModules, unhandledErrors.length);
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function summarize(testModules: ReadonlyArray<TestModule>, unhandledErrors: number): Summary {
  const total: Summary = { passed: 0, failed: unhandledErrors, skipped: 0 };
  for (const module of testModules) {
    let failed = 0;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') total.passed++;
      else if (state === 'skipped' && !hookFailed(test)) total.skipped++;
      else failed++; // failed, never finished, or skipped because a beforeAll above it threw
    }
    // An afterAll that threw, an import that failed, or a file that never ran still fails the run.
    if (failed === 0 && !finishedCleanly(module)) failed = 1;
    total.failed += failed;
  }
  return total;
}

/** Whether a hook of a suite enclosing this test (or of its file) threw. */
function hookFailed(test: TestCase): boolean {
  for (let suite = test.parent; ; suite = suite.parent) {
    if (suite.errors().length > 0) return true;
    if (suite.type === 'module') return false;
  }
}

function finishedCleanly(module: TestModule): boolean {
  const state = module.state();
  if (state !== 'passed' && state !== 'skipped') return false;
  return (
    module.errors().length === 0 &&
    [...module.children.allSuites()].every((suite) => suite.errors().length === 0)
  );
}
