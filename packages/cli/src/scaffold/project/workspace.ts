/**
 * How a store project holds plugins of its own: packages in `packages/*` of its workspace,
 * type-checked and tested with the store. `qhatu new` writes it so; `qhatu plugin new` brings an
 * older project up to it.
 */
export const PLUGIN_FOLDERS = 'packages/*';

/** tsconfig.json's `include`: the store's files and its plugins' sources and tests. */
export const TS_INCLUDE = ['qhatu.config.ts', 'vitest.config.ts', 'src', 'test', 'packages/*/src', 'packages/*/test'];

/** vitest's `include`: `pnpm test` runs the store's tests and its plugins'. */
export const TEST_INCLUDE = ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'];

export const PROJECT_SCRIPTS: Record<string, string> = {
  start: 'qhatu start',
  migrate: 'qhatu migrate',
  worker: 'qhatu worker',
  test: 'vitest run',
  typecheck: 'tsc -p tsconfig.json',
  qhatu: 'qhatu',
};

/** What tests and type-checks the store and its plugins, at the versions this repository uses (a test keeps them equal). */
export const PROJECT_DEV_DEPENDENCIES: Record<string, string> = {
  '@types/node': '^20.19.43',
  typescript: '5.9.3',
  vitest: '3.2.7',
};

export function workspaceYaml(): string {
  return `# The store is a pnpm workspace: its own plugins (qhatu plugin new) live in packages/.\npackages:\n  - ${PLUGIN_FOLDERS}\n`;
}
