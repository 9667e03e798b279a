import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createApp, Database, loadConfig, Tenants, type QhatuApp, type QhatuPlugin } from '@qhatu/core';
import { adminUrl, urlFor } from '@qhatu/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkPluginDependencies, runCli, stopLeftovers, tempProject, type TempProject } from './helpers.js';

// A store whose one plugin is made by `qhatu plugin new`, on a database of its own.
const PROJECT = `import { defineProject } from '@qhatu/core';
import giftWrap from './packages/plugin-gift-wrap/src/index.js';

export default defineProject({ plugins: [giftWrap] });
`;
// What a developer adds: a column on the item, and a second entity with unique constraints, indexes, an enum and a reference to the item.
const NEW_ENTITY = `
export const GiftWrapOption = defineEntity({
  name: 'GiftWrapOption',
  tableName: 'gift_wrap_option',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    code: p.string().unique(),
    style: p.enum(['paper', 'cloth']),
    price: p.integer(),
    position: p.integer().default(0).index(),
    note: p.text().nullable(),
    item: p.manyToOne(GiftWrapItem).nullable().deleteRule('set null'),
    createdAt: p.datetime(),
  },
  indexes: [{ properties: ['style', 'createdAt'] }],
  uniques: [{ properties: ['style', 'price'] }],
});
`;

let project: TempProject;
let pluginDir: string;
let database: { url: string; drop(): Promise<void> };

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
const query = <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => admin(database.url, async (c) => (await c.query<R>(sql, params)).rows);

/** Named like the test databases (creation time first), so that only a later run drops one left behind. */
async function emptyDatabase() {
  const name = `qhatu_test_${Math.floor(Date.now() / 1000)}_${randomBytes(6).toString('hex')}`;
  await admin(adminUrl(), (c) => c.query(`create database ${name}`));
  return { url: urlFor(name), drop: () => admin(adminUrl(), async (c) => void (await c.query(`drop database if exists ${name} with (force)`))) };
}

const run = (args: string[]) => runCli(args, { cwd: project.dir, env: { DATABASE_URL: database.url } });

beforeAll(async () => {
  [project, database] = await Promise.all([tempProject(PROJECT), emptyDatabase()]);
  const made = await runCli(['plugin', 'new', 'gift-wrap'], { cwd: project.dir });
  expect(made.code, made.stderr).toBe(0);
  pluginDir = path.join(project.dir, 'packages/plugin-gift-wrap');
  await linkPluginDependencies(pluginDir);
});
afterAll(async () => {
  stopLeftovers();
  await Promise.all([project?.remove(), database?.drop()]);
});

/** What the database says of a table: row-level security, its policy and grants, and the columns of its keys and indexes. */
async function isolationOf(table: string) {
  const [security] = await query<{ enabled: boolean }>('select relrowsecurity as enabled from pg_class where oid = $1::regclass', [table]);
  const policies = await query<{ name: string; using: string; check: string }>(
    'select polname as name, pg_get_expr(polqual, polrelid) as using, pg_get_expr(polwithcheck, polrelid) as check from pg_policy where polrelid = $1::regclass',
    [table],
  );
  const grants = await query<{ privilege: string }>(
    "select privilege_type as privilege from information_schema.role_table_grants where table_name = $1 and grantee = 'qhatu_app' order by 1",
    [table],
  );
  const indexes = await query<{ name: string; unique: boolean; primary: boolean; columns: string[] }>(
    `select c.relname as name, i.indisunique as unique, i.indisprimary as primary,
            array(select a.attname::text from unnest(i.indkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n order by k.o) as columns
       from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = $1::regclass order by c.relname`,
    [table],
  );
  const references = await query<{ definition: string }>("select pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = $1::regclass and contype = 'f'", [table]);
  return { enabled: security.enabled, policies, grants: grants.map((g) => g.privilege), indexes, references: references.map((r) => r.definition) };
}

describe('qhatu migration generate', { timeout: 180_000 }, () => {
  it("turns an entity change into the plugin's next migration, which applies and keeps each store's rows apart", async () => {
    const migrated = await run(['migrate']);
    expect(migrated.stderr).toBe('');
    expect(migrated.stdout).toContain('applied gift-wrap/0001_items');

    // The scaffold's own migration says what its entity says.
    const unchanged = await run(['migration', 'generate', 'gift-wrap']);
    expect(unchanged.stderr).toBe('');
    expect(unchanged.code).toBe(0);
    expect(unchanged.stdout).toBe('Nothing to generate: the database has every table, column and index the entities of gift-wrap declare.\n');

    const entityFile = path.join(pluginDir, 'src/entities/gift-wrap-item.ts');
    const entity = await readFile(entityFile, 'utf8');
    await writeFile(entityFile, entity.replace('    description: p.string().nullable(),', '    description: p.string().nullable(),\n    ribbon: p.string().nullable(),\n    wraps: p.integer().default(0),') + NEW_ENTITY);
    const index = path.join(pluginDir, 'src/index.ts');
    const source = await readFile(index, 'utf8');
    await writeFile(index, source.replace(/import \{ GiftWrapItem \} from/, 'import { GiftWrapItem, GiftWrapOption } from').replace('entities: [GiftWrapItem],', 'entities: [GiftWrapItem, GiftWrapOption],'));

    const generated = await run(['migration', 'generate', 'gift-wrap']);
    expect(generated.stderr).toBe('');
    expect(generated.code).toBe(0);
    expect(generated.stdout).toContain('Wrote packages/plugin-gift-wrap/src/migrations/0002_option.ts (gift-wrap/0002_option):');
    expect(generated.stdout).toContain('  new table gift_wrap_option\n  new column gift_wrap_item.ribbon\n  new column gift_wrap_item.wraps\n');
    expect(generated.stdout).toContain('Listed in packages/plugin-gift-wrap/src/migrations/index.ts. Read it, then apply it: qhatu migrate');
    const migration = readFileSync(path.join(pluginDir, 'src/migrations/0002_option.ts'), 'utf8');
    expect(migration).toContain(`CREATE TABLE gift_wrap_option (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       code text NOT NULL,
       style text NOT NULL CHECK (style IN ('paper', 'cloth')),
       price int NOT NULL,
       position int NOT NULL DEFAULT 0,
       note text,
       item_id uuid,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, item_id) REFERENCES gift_wrap_item (tenant_id, id) ON DELETE SET NULL (item_id))\`,
    \`CREATE UNIQUE INDEX gift_wrap_option_code ON gift_wrap_option (tenant_id, code)\`,
    \`CREATE INDEX gift_wrap_option_position ON gift_wrap_option (tenant_id, position)\`,
    \`CREATE INDEX gift_wrap_option_style_created_at ON gift_wrap_option (tenant_id, style, created_at)\`,
    \`CREATE UNIQUE INDEX gift_wrap_option_style_price ON gift_wrap_option (tenant_id, style, price)\`,
    \`CREATE INDEX gift_wrap_option_item_id ON gift_wrap_option (tenant_id, item_id)\`,
    tenantTable('gift_wrap_option'),
    \`ALTER TABLE gift_wrap_item ADD COLUMN ribbon text\`,
    \`ALTER TABLE gift_wrap_item ADD COLUMN wraps int NOT NULL DEFAULT 0\`,
  ],`);
    expect(readFileSync(path.join(pluginDir, 'src/migrations/index.ts'), 'utf8')).toMatch(
      /import \{ optionMigration \} from '\.\/0002_option\.js';[\s\S]*Migration\[\] = \[items, optionMigration\];/,
    );

    const applied = await run(['migrate']);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('applied gift-wrap/0002_option');
    const again = await run(['migration', 'generate', 'gift-wrap']);
    expect(again.stdout).toContain('Nothing to generate');

    // The isolation checks: row-level security as tenantTable writes it, tenant_id leading every key and index.
    const current = "(tenant_id = (NULLIF(current_setting('app.tenant_id'::text, true), ''::text))::uuid)";
    const option = await isolationOf('gift_wrap_option');
    expect(option.enabled).toBe(true);
    expect(option.policies).toEqual([{ name: 'gift_wrap_option_tenant_isolation', using: current, check: current }]);
    expect(option.grants).toEqual(['DELETE', 'INSERT', 'SELECT', 'UPDATE']);
    expect(option.references.sort()).toEqual([
      'FOREIGN KEY (tenant_id) REFERENCES core_tenant(id) ON DELETE CASCADE',
      'FOREIGN KEY (tenant_id, item_id) REFERENCES gift_wrap_item(tenant_id, id) ON DELETE SET NULL (item_id)',
    ]);
    expect(option.indexes).toEqual([
      { name: 'gift_wrap_option_code', unique: true, primary: false, columns: ['tenant_id', 'code'] },
      { name: 'gift_wrap_option_item_id', unique: false, primary: false, columns: ['tenant_id', 'item_id'] },
      { name: 'gift_wrap_option_pkey', unique: true, primary: true, columns: ['tenant_id', 'id'] },
      { name: 'gift_wrap_option_position', unique: false, primary: false, columns: ['tenant_id', 'position'] },
      { name: 'gift_wrap_option_style_created_at', unique: false, primary: false, columns: ['tenant_id', 'style', 'created_at'] },
      { name: 'gift_wrap_option_style_price', unique: true, primary: false, columns: ['tenant_id', 'style', 'price'] },
    ]);
    for (const table of ['gift_wrap_item', 'gift_wrap_option']) {
      for (const idx of (await isolationOf(table)).indexes) expect(idx.columns[0], `${table} ${idx.name}`).toBe('tenant_id');
    }

    // And through the app: each store sees its own rows only, cannot write into another's, and a code is unique per store.
    const { default: plugin } = (await import(path.join(pluginDir, 'src/index.ts'))) as { default: QhatuPlugin };
    const app: QhatuApp = await createApp({
      plugins: [plugin],
      config: loadConfig({ DATABASE_URL: database.url, QHATU_PLATFORM_TOKEN: `qhp_${randomBytes(24).toString('base64url')}`, QHATU_ENV: 'development', LOG_LEVEL: 'silent' }),
    });
    try {
      const tenants = app.container.resolve(Tenants);
      const [a, b] = [await tenants.create({ name: 'Store A' }), await tenants.create({ name: 'Store B' })];
      const db = app.container.resolve(Database);
      const add = (tenantId: string, code: string, owner = tenantId) =>
        db.tenant(
          (tx) => tx.query("insert into gift_wrap_option (tenant_id, id, code, style, price, created_at) values (?, ?, ?, 'paper', 300, now())", [owner, randomUUID(), code]),
          tenantId,
        );
      await add(a.id, 'RED');
      await add(b.id, 'RED');
      await expect(add(a.id, 'RED')).rejects.toThrow(/gift_wrap_option_code/);
      await expect(add(b.id, 'BLUE', a.id)).rejects.toThrow(/row-level security/);
      // A reference points inside its own store only.
      const box = randomUUID();
      await db.tenant((tx) => tx.query("insert into gift_wrap_item (tenant_id, id, title, created_at, updated_at) values (?, ?, 'Box', now(), now())", [a.id, box]), a.id);
      const refer = (tenantId: string, code: string) =>
        db.tenant(
          (tx) => tx.query("insert into gift_wrap_option (tenant_id, id, code, style, price, item_id, created_at) values (?, ?, ?, 'cloth', 500, ?, now())", [tenantId, randomUUID(), code, box]),
          tenantId,
        );
      await refer(a.id, 'BOXED');
      await expect(refer(b.id, 'BOXED')).rejects.toThrow(/foreign key/);
      const seen = (tenantId: string) => db.tenant((tx) => tx.query<{ tenant_id: string; position: number }>('select tenant_id, position from gift_wrap_option'), tenantId);
      expect(await seen(a.id)).toEqual([{ tenant_id: a.id, position: 0 }, { tenant_id: a.id, position: 0 }]);
      expect(await seen(b.id)).toEqual([{ tenant_id: b.id, position: 0 }]);
    } finally {
      await app.close();
    }
  });

  it('refuses a plugin the project does not list, naming those it does', async () => {
    const unknown = await run(['migration', 'generate', 'loyalty', '--dir', pluginDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error: the project has no plugin named "loyalty"');
    expect(unknown.stderr).toContain('it has: core, gift-wrap');
    const nowhere = await run(['migration', 'generate', 'loyalty']);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('error: cannot find the folder of the plugin "loyalty" (no ./packages/plugin-loyalty)');
  });
});
