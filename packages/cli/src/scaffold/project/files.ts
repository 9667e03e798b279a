import type { CataloguePlugin } from './catalogue.js';
import { PLUGIN_FOLDERS, PROJECT_SCRIPTS, TEST_INCLUDE, TS_INCLUDE, workspaceYaml } from './workspace.js';

export interface ProjectSpec {
  /** The package name of the project (from its folder). */
  name: string;
  plugins: CataloguePlugin[];
  /** `@qhatu/...` package → what package.json asks for (`^0.1.0`, `link:/path`). */
  sources: Record<string, string>;
  /** Every `@qhatu/...` package pinned for the whole tree (packed tarballs: `file:/path/x.tgz`). */
  overrides?: Record<string, string>;
  packageManager: 'pnpm' | 'npm';
  /** vitest, typescript and @types/node, at the versions this repository is tested with. */
  devDependencies: Record<string, string>;
}

/** The files of a new store project, by path inside its folder. */
export function projectFiles(spec: ProjectSpec): Record<string, string> {
  return {
    'package.json': packageJson(spec),
    // The store's own plugins (`qhatu plugin new`) are packages of its workspace.
    ...(spec.packageManager === 'pnpm' ? { 'pnpm-workspace.yaml': workspaceYaml() } : {}),
    'qhatu.config.ts': config(spec),
    'test/store.test.ts': storeTest(spec),
    'vitest.config.ts': vitestConfig(),
    'tsconfig.json': tsconfig(),
    '.env.example': envExample(),
    '.gitignore': 'node_modules\n.qhatu\n.env\n',
    'README.md': readme(spec),
  };
}

function packageJson(spec: ProjectSpec): string {
  const packages = ['@qhatu/cli', '@qhatu/core', ...spec.plugins.map((p) => p.package)].sort();
  const pkg: Record<string, unknown> = {
    name: spec.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20.19' },
    scripts: PROJECT_SCRIPTS,
    dependencies: Object.fromEntries(packages.map((p) => [p, spec.sources[p]])),
    devDependencies: spec.devDependencies,
    ...(spec.packageManager === 'npm' ? { workspaces: [PLUGIN_FOLDERS] } : {}),
  };
  // pnpm 10 runs no dependency's install script unless it is listed (vitest's esbuild checks its binary).
  if (spec.packageManager === 'pnpm') pkg.pnpm = { onlyBuiltDependencies: ['esbuild', 'sharp'], ...(spec.overrides ? { overrides: spec.overrides } : {}) };
  else if (spec.overrides) pkg.overrides = spec.overrides;
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function config(spec: ProjectSpec): string {
  const imports = [`import { defineProject } from '@qhatu/core';`, ...spec.plugins.map((p) => `import ${p.binding} from '${p.package}';`)];
  const list = spec.plugins.map((p) => `    ${p.expression},`).join('\n');
  return `${imports.join('\n')}

/** The store: the plugins it is made of (core orders them by their dependencies). */
export default defineProject({
  plugins: [
${list}
  ],
});
`;
}

function storeTest(spec: ProjectSpec): string {
  const catalog = spec.plugins.some((p) => p.name === 'catalog');
  const productTest = `

  it('sells a product: created with the admin key, read by the storefront', async () => {
    const shop = await t.createTenant({ name: 'Andean Crafts', currency: 'PEN' });
    const created = await t.request({
      method: 'POST',
      url: '/api/v1/catalog/products',
      headers: shop.headers(),
      payload: { title: 'Alpaca scarf', status: 'active', variants: [{ title: 'Grey', sku: 'SCARF-GREY', price: 8900 }] },
    });
    expect(created.statusCode).toBe(201);
    const list = await t.request({ method: 'GET', url: '/api/v1/catalog/products', headers: shop.headers(shop.storefrontToken) });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((p: { title: string }) => p.title)).toEqual(['Alpaca scarf']);
  });`;
  return `import { createTestApp, type TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../qhatu.config.js';

// The store on a database of its own, copied from a migrated template on PostgreSQL
// (127.0.0.1:5432 as user postgres, or TEST_DATABASE_URL).
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins });
});
afterAll(async () => t?.close());

describe('the store', () => {
  it('creates a store (tenant) and answers its errors with the contract\\'s body', async () => {
    const shop = await t.createTenant({ name: 'Corner Shop' });
    expect(shop.id).toMatch(/^[0-9a-f-]{36}$/);
    const anonymous = await t.request({ method: 'GET', url: '/api/v1/staff/me', headers: { 'x-tenant-id': shop.id } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('UNAUTHENTICATED');
  });

  it('documents its API at /openapi.json', async () => {
    const doc = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().openapi).toBe('3.1.0');
  });${catalog ? productTest : ''}
});
`;
}

function vitestConfig(): string {
  return `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The store's tests and those of its own plugins (packages/plugin-*).
    include: ${JSON.stringify(TEST_INCLUDE).replaceAll('"', "'").replaceAll(',', ', ')},
    testTimeout: 30_000,
    // The first run migrates a template database for this set of plugins.
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
`;
}

/** For editors and for the tools that run the project's TypeScript (tsx, vitest): plugins are written with decorators. */
function tsconfig(): string {
  const config = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      experimentalDecorators: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
    include: TS_INCLUDE,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

function envExample(): string {
  return `# The store's settings; none is needed to try it (\`qhatu start\` runs on an embedded database in ./.qhatu).
# qhatu reads the environment, not this file: export them (e.g. \`set -a; . ./.env; set +a\`) or set them in your host.

# Where the API listens, and the base of the links it hands out.
PORT=3000
HOST=127.0.0.1
# QHATU_PUBLIC_URL=https://shop.example.com

# Development on a PostgreSQL of your own: DATABASE_URL with QHATU_ENV=development generates the platform
# token (kept in ./.qhatu/platform-token) and runs the job workers in \`start\`; \`migrate\` applies migrations.
# Production: PostgreSQL 15+, the platform credential (24+ characters) and the key that seals secrets (32 bytes, base64).
# DATABASE_URL=postgres://qhatu:secret@db.internal:5432/qhatu
# QHATU_PLATFORM_TOKEN=
# QHATU_SECRET_KEY=
# QHATU_ENV=production

# Optional: jobs on Redis instead of PostgreSQL; outgoing mail.
# REDIS_URL=redis://127.0.0.1:6379
# SMTP_URL=smtp://user:pass@smtp.example.com:587
# QHATU_MAIL_FROM=Andean Crafts <shop@example.com>

# Optional: Prometheus scrapes /metrics with this token (24+ characters), or on a port of its own
# (set it on workers); traces go to an OpenTelemetry collector.
# QHATU_METRICS_TOKEN=
# QHATU_METRICS_PORT=9464
# OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318
# OTEL_SERVICE_NAME=my-store

# The tests' PostgreSQL (each test file gets a database of its own).
# TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres

LOG_LEVEL=info
`;
}

function readme(spec: ProjectSpec): string {
  const run = spec.packageManager === 'pnpm' ? 'pnpm' : 'npm run';
  const plugins = spec.plugins.map((p) => `- \`${p.name}\` (${p.package})`).join('\n');
  return `# ${spec.name}

A store made with [Qhatu](https://github.com/qhatu/qhatu), a plugin-based, multi-tenant, headless
commerce framework. \`qhatu.config.ts\` lists the plugins it is made of.

## Run it

\`\`\`sh
${run} start     # the REST API, GraphQL and the API docs on http://127.0.0.1:3000 (or HOST:PORT)
\`\`\`

Without \`DATABASE_URL\` it runs on an embedded PostgreSQL (data in \`./.qhatu\`), migrates it, runs
the job workers in the same process and prints the platform token and the \`curl\` that creates
your first store (tenant). The API reference is at \`/docs\`, the OpenAPI document at
\`/openapi.json\`.

The Qhatu packages are compiled JavaScript; \`qhatu\` runs \`qhatu.config.ts\` and any plugin of
your own it imports through tsx, which comes with \`@qhatu/cli\`. A \`qhatu.config.js\` (found when
there is no \`qhatu.config.ts\`) runs without it.

## Test it

\`\`\`sh
${run} test
\`\`\`

\`test/store.test.ts\` boots the store on a database of its own, copied from a migrated template on
PostgreSQL 15+ at \`127.0.0.1:5432\` (user \`postgres\`, trust auth; another server with
\`TEST_DATABASE_URL\`), and drives it over HTTP. Add your own scenarios beside it. \`${run} test\` runs
the tests of your own plugins too, and \`${run} typecheck\` type-checks the store and its plugins.

On PostgreSQL of your own, \`DATABASE_URL=… QHATU_ENV=development ${run} start\` is development as the
embedded database is: a platform token is generated into \`./.qhatu/platform-token\` and printed, and
the job workers run in the same process; migrations are applied by \`${run} migrate\`.

## Plugins

${plugins}

Add or remove one in \`qhatu.config.ts\` (and \`package.json\`); a plugin's dependencies must be listed
too (\`${run} start\` names a missing one).

A plugin of your own:

\`\`\`sh
${run} qhatu ${spec.packageManager === 'npm' ? '-- ' : ''}plugin new gift-wrap     # packages/plugin-gift-wrap, added to package.json and the workspace
${spec.packageManager} install
\`\`\`

then list it in \`qhatu.config.ts\`. After changing its entities,
\`${run} qhatu ${spec.packageManager === 'npm' ? '-- ' : ''}migration generate gift-wrap\` writes its next migration from the difference with
the database, and \`${run} migrate\` applies it. See \`docs/plugins.md\` in the Qhatu repository.

## Production

See \`.env.example\`: set \`DATABASE_URL\` (PostgreSQL 15+), \`QHATU_PLATFORM_TOKEN\` and \`QHATU_SECRET_KEY\`,
run \`${run} migrate\` once per release, then \`${run} start\` for the API processes (stateless, as many
as you like behind a load balancer) and \`${run} worker\` for the job workers.
`;
}
