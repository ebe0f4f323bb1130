import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts', 'web/src/**/*.test.ts'],
    // Integration tests start real processes; two workers suit the 2-core CI machine. A third
    // could take the time they spend waiting: one CI run with `--maxWorkers=3` decides (decision 357).
    pool: 'forks',
    maxWorkers: 2,
    // A dispatch that names no agent runs the scripted one in tests, in-process servers included
    // (decision 185); test/support/baton.ts sets the same for the supervisors it starts.
    env: { BATON_AGENT: 'scripted' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Fails the run naming any process it left behind (test/support/leftovers.ts).
    globalSetup: ['./test/support/leftovers.ts'],
  },
});
