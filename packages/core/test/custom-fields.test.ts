import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, migrateAll } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { CustomFieldDeclarations } from '../src/custom-fields/declarations.js';
import { tenantTable } from '../src/db/migrations.js';
import { definePlugin, defineProject, PluginLoadError, type QhatuPlugin } from '../src/plugin.js';
import { createTestDatabase } from '../src/testing/index.js';

// Core's side of custom fields, on a plugin of its own that hosts them (`widget`): what a start
// refuses, and the indexes `qhatu migrate` keeps in step with the declarations.
const widgets = definePlugin({
  name: 'widgets',
  migrations: [
    {
      id: '0001_widgets',
      up: [
        `CREATE TABLE cfw_widget (
           tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
           id uuid NOT NULL,
           custom_fields jsonb NOT NULL DEFAULT '{}',
           PRIMARY KEY (tenant_id, id))`,
        tenantTable('cfw_widget'),
      ],
    },
  ],
  customFieldHosts: [{ entity: 'widget', table: 'cfw_widget', graphqlType: 'Widget' }, { entity: 'basket', table: 'cfw_widget', carriesTo: 'widget' }],
});
const declaring = (name: string, customFields: CustomFieldDeclarations) => definePlugin({ name, customFields });

/** A start with these plugins: what it throws (before anything connects: the database named does not exist). */
async function refusal(plugins: QhatuPlugin[]): Promise<Error> {
  const config = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/no_such_database', QHATU_PLATFORM_TOKEN: 'qhp_test_token_long_enough_0123456789', QHATU_ENV: 'production', LOG_LEVEL: 'silent' });
  return createApp({ plugins, config }).then(
    () => new Error('started'),
    (error: Error) => error,
  );
}

describe('a start with custom fields that do not hold', () => {
  it('stops, naming the plugin (or the project) and the way out', async () => {
    const size = { type: 'enum', values: ['s', 'm'] } as const;
    const cases: Array<[QhatuPlugin[], RegExp]> = [
      [[widgets, declaring('sizes', { widget: { size } }), declaring('more-sizes', { widget: { size } })], /Custom field widget\.size is declared by plugin "sizes" and by plugin "more-sizes": rename one/],
      [defineProject({ plugins: [widgets, declaring('sizes', { widget: { size } })], customFields: { widget: { size } } }).plugins, /declared by plugin "sizes" and by the project \(qhatu\.config\.ts\)/],
      [[widgets, declaring('bad', { widget: { 'Gift Wrap': { type: 'boolean' } } })], /plugin "bad" declares custom field widget\.Gift Wrap: a name is lower-case letters/],
      [[widgets, declaring('typo', { widgit: { size } })], /plugin "typo" declares custom fields on "widgit", which no installed plugin hosts \(hosts: basket, widget\)/],
      [[declaring('lonely', { order: { gift_wrap: { type: 'boolean' } } })], /no installed plugin hosts \(hosts: none\)/],
      [[widgets, declaring('strict', { widget: { count: { type: 'integer', nullable: false } } })], /widget\.count: a field that is not nullable needs a default/],
      [[widgets, declaring('off', { widget: { size: { ...size, default: 'xl' } } })], /widget\.size: its default "xl" is not a enum value it takes/],
      [[widgets, declaring('opts', { widget: { size: { ...size, index: true } as never } })], /unknown option index/],
      [[widgets, declaring('long', { widget: { note: { type: 'boolean', maxLength: 10 } } })], /maxLength is for string fields only/],
      [[widgets, declaring('twice', { widget: { gift__wrap: { type: 'boolean' } } })], /a name is lower-case letters, digits and single underscores/],
      [[widgets, declaring('carry', { basket: { note: { type: 'string' } }, widget: { note: { type: 'integer' } } })], /basket\.note \(plugin "carry"\) is carried to widget\.note \(plugin "carry"\), which does not take its values/],
    ];
    for (const [plugins, message] of cases) {
      const error = await refusal(plugins);
      expect(error, String(message)).toBeInstanceOf(PluginLoadError);
      expect(error.message).toMatch(message);
    }
  });
});

describe('the indexes of indexed fields', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase([widgets]);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });
  const indexes = async () =>
    (await client.query<{ indexname: string; indexdef: string }>(`select indexname, indexdef from pg_indexes where tablename = 'cfw_widget' and indexname like 'cfw_widget_cf_%' order by 1`)).rows;

  it('are made by the migration, follow a changed default, and go with the declaration', async () => {
    const lines: string[] = [];
    const migrate = (fields: CustomFieldDeclarations['widget']) => migrateAll(database.url, [widgets, declaring('sizes', { widget: fields })], (line) => lines.push(line));

    await migrate({ size: { type: 'enum', values: ['s', 'm', 'l'], default: 'm', indexed: true }, note: { type: 'string', indexed: true }, plain: { type: 'boolean' } });
    const first = await indexes();
    expect(first.map((i) => i.indexname)).toEqual([expect.stringMatching(/^cfw_widget_cf_note_[0-9a-f]{8}$/), expect.stringMatching(/^cfw_widget_cf_size_[0-9a-f]{8}$/)]);
    expect(first[0].indexdef).toContain(`(tenant_id, ((custom_fields -> 'note'::text)))`);
    expect(first[1].indexdef).toContain(`(tenant_id, COALESCE((custom_fields -> 'size'::text), '"m"'::jsonb))`);
    expect(lines.filter((l) => l.includes('custom field index'))).toHaveLength(2);

    // Again with the same declarations: nothing to do.
    lines.length = 0;
    await migrate({ size: { type: 'enum', values: ['s', 'm', 'l'], default: 'm', indexed: true }, note: { type: 'string', indexed: true } });
    expect(lines).toEqual([]);
    expect(await indexes()).toEqual(first);

    // Another default is another expression: its index replaces the old one; a field no longer indexed loses its index.
    await migrate({ size: { type: 'enum', values: ['s', 'm', 'l'], default: 'l', indexed: true }, note: { type: 'string' } });
    const second = await indexes();
    expect(second).toHaveLength(1);
    expect(second[0].indexname).toMatch(/^cfw_widget_cf_size_/);
    expect(second[0].indexname).not.toBe(first[1].indexname);
    expect(second[0].indexdef).toContain(`'"l"'::jsonb`);

    await migrateAll(database.url, [widgets]);
    expect(await indexes()).toEqual([]);
  });
});
