import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'starters/*/test/**/*.test.ts'],
    // What the packed test lays over a project outside the repository; it runs there.
    exclude: [...configDefaults.exclude, 'packages/cli/test/outside/**'],
    globalSetup: ['./packages/core/src/testing/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files mostly wait on PostgreSQL, child processes and Chromium: three at a time keep two cores busy.
    maxWorkers: 3,
    minWorkers: 1,
    reporters: ['default'],
  },
});
