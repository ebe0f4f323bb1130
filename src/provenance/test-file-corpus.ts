/**
 * Which changed paths red→green runs as tests (decision 292): paths that must count as test files
 * and paths that must not (sources, fixtures, snapshots, helpers beside tests). Scored by
 * red-green.test.ts and reported in `npm run bench` (false alarms, misses).
 */
export const TEST_FILES: readonly string[] = [
  'src/parse.test.ts',
  'web/src/App.spec.tsx',
  'lib/util.test.mjs',
  'test/cli/merge.ts',
  'tests/regression.sh',
  '__tests__/button.js',
  'spec/models/user_spec.rb',
  'app/models/user_spec.rb',
  'tests/test_api.py',
  'pkg/api/test_handlers.py',
  'pkg/server/server_test.go',
  'tools/cli_test.py',
  'src/test/java/com/acme/ParserTest.java',
  'Core.Tests/ParserTests.cs',
];

export const NOT_TEST_FILES: readonly string[] = [
  'src/parse.ts',
  'src/testing.ts',
  'docs/testing.md',
  'test/fixtures/input.js',
  'src/__snapshots__/App.test.tsx.snap',
  'test/support/harness.ts',
  '__tests__/__mocks__/fs.js',
  'tests/data/cases.json',
  'src/contest.py',
];
