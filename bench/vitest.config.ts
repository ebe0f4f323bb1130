import { defineConfig } from 'vitest/config';

// Benchmarks that need the TypeScript test fixtures (the scripted model server) run here, one
// file at a time so they do not compete for the two cores.
export default defineConfig({
  test: {
    include: ['bench/**/*.bench.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
