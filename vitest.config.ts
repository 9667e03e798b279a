import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'starters/*/test/**/*.test.ts'],
    globalSetup: ['./packages/core/src/testing/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files mostly wait on PostgreSQL: two at a time keep both cores busy.
    maxWorkers: 2,
    minWorkers: 1,
    reporters: ['default'],
  },
});
