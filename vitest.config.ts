import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { configDefaults, defineConfig } from 'vitest/config';

// The packages export their TypeScript sources under the `qhatu-source` condition and their compiled
// dist/ otherwise: tests run the sources, and so do the processes they start (which inherit it).
const SOURCE = '--conditions=qhatu-source';
if (!(process.env.NODE_OPTIONS ?? '').includes(SOURCE)) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${SOURCE}`.trim();

// Tracing starts once per process and patches modules for good: its tests each get a thread of their own.
const TRACED = ['packages/core/test/tracing.test.ts', 'packages/core/test/tracing-otlp.test.ts'];

// Files that start processes or builds take the longest: begun first, they do not make the run's tail.
// The dashboard's browser tests are not among them: started together with the packed test's build,
// two Chromiums and tsc on two cores made a page miss its 15 s wait.
const SLOW_FIRST = ['packages/cli/test/packed.test.ts', 'starters/', 'packages/cli/test/'];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = SLOW_FIRST.findIndex((part) => file.moduleId.includes(part));
      return at === -1 ? SLOW_FIRST.length : at;
    };
    // A stable sort: within a rank, vitest's own order (longest last time, else largest).
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  ssr: { resolve: { conditions: ['qhatu-source', 'node', 'development|production'] } },
  test: {
    // What the packed test lays over a project outside the repository; it runs there.
    exclude: [...configDefaults.exclude, 'packages/cli/test/outside/**'],
    globalSetup: ['./packages/core/src/testing/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files mostly wait on PostgreSQL, child processes and Chromium: three at a time keep two cores busy.
    maxWorkers: 3,
    // As many as at most: a fork let go while idle could be ended with a file queued on it.
    minWorkers: 3,
    poolOptions: {
      // Each fork loads the platform's modules once and runs file after file: every file makes its own
      // app on its own database and closes it, so nothing a file needs is left in the modules.
      forks: { isolate: false },
      threads: { isolate: true },
    },
    sequence: { sequencer: SlowFirst },
    reporters: ['default'],
    projects: [
      // `exclude` adds to the one above (vitest merges a project's lists into what it extends).
      { extends: true, test: { name: 'qhatu', include: ['packages/*/test/**/*.test.ts', 'starters/*/test/**/*.test.ts'], exclude: TRACED, pool: 'forks' } },
      { extends: true, test: { name: 'traced', include: TRACED, pool: 'threads' } },
    ],
  },
});
