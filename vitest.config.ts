import { configDefaults, defineConfig } from 'vitest/config';

// The packages export their TypeScript sources under the `qhatu-source` condition and their compiled
// dist/ otherwise: tests run the sources, and so do the processes they start (which inherit it).
const SOURCE = '--conditions=qhatu-source';
if (!(process.env.NODE_OPTIONS ?? '').includes(SOURCE)) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${SOURCE}`.trim();

export default defineConfig({
  ssr: { resolve: { conditions: ['qhatu-source', 'node', 'development|production'] } },
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
