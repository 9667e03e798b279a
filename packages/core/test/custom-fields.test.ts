import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, migrateAll } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { CustomFieldDeclarations } from '../src/custom-fields/declarations.js';
import { CustomFields } from '../src/custom-fields/registry.js';
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
  const columns = async () =>
    (
      await client.query<{ column_name: string; generation_expression: string }>(
        `select column_name, generation_expression from information_schema.columns where table_name = 'cfw_widget' and column_name like 'cf\\_%' order by 1`,
      )
    ).rows;
  const on = (index: { indexdef: string }) => index.indexdef.replace(/.*USING btree /, '');

  it('are made by the migration on stored columns, follow a changed default, and go with the declaration', async () => {
    const lines: string[] = [];
    const migrate = (fields: CustomFieldDeclarations['widget']) => migrateAll(database.url, [widgets, declaring('sizes', { widget: fields })], (line) => lines.push(line));
    const declared: CustomFieldDeclarations['widget'] = { size: { type: 'enum', values: ['s', 'm', 'l'], default: 'm', indexed: true }, note: { type: 'string', indexed: true }, plain: { type: 'boolean' } };
    // What an app started on this database knows: no column yet, so a filter reads the jsonb.
    const fields = new CustomFields([widgets, declaring('sizes', { widget: declared })]);
    const db = { query: async <R,>(sql: string, params: unknown[] = []) => (await client.query(sql.replace('?', '$1'), params)).rows as R[] };
    expect(await fields.readStored(db)).toEqual([expect.stringMatching(/^cfw_widget\.cf_size_/), expect.stringMatching(/^cfw_widget\.cf_note_/)]);
    const small = { entity: 'widget', name: 'size', value: 's' };
    const before = fields.condition(small, 'w');
    expect(before).toEqual({ sql: `coalesce((w.custom_fields -> 'size'), '"m"'::jsonb) = ?::jsonb`, params: ['"s"'] });

    await migrate(declared);
    const first = await indexes();
    const made = await columns();
    expect(first.map((i) => i.indexname)).toEqual([expect.stringMatching(/^cfw_widget_cf_note_[0-9a-f]{8}$/), expect.stringMatching(/^cfw_widget_cf_size_[0-9a-f]{8}$/)]);
    expect(made.map((c) => c.column_name)).toEqual([expect.stringMatching(/^cf_note_[0-9a-f]{8}$/), expect.stringMatching(/^cf_size_[0-9a-f]{8}$/)]);
    expect(made[0].generation_expression).toBe(`((custom_fields -> 'note'::text))::text`);
    expect(made[1].generation_expression).toBe(`(COALESCE((custom_fields -> 'size'::text), '"m"'::jsonb))::text`);
    expect(first.map(on)).toEqual(made.map((c) => `(tenant_id, ${c.column_name})`));
    expect(lines.filter((l) => l.includes('custom field column'))).toHaveLength(2);
    expect(lines.filter((l) => l.includes('custom field index'))).toHaveLength(2);

    // The column holds each row's value as jsonb's text, the default for a row that has none.
    const tenant = randomUUID();
    await client.query(`insert into core_tenant (id, name, slug, status, currency, default_locale, created_at, updated_at) values ($1, 'Widgets', $2, 'active', 'PEN', 'es-PE', now(), now())`, [tenant, `widgets-${tenant}`]);
    const note = 'it\'s "big"';
    await client.query(`insert into cfw_widget (tenant_id, id, custom_fields) values ($1, $2, $4), ($1, $3, '{}')`, [tenant, randomUUID(), randomUUID(), { size: 's', note }]);
    const values = await client.query(`select ${made[0].column_name} as note, ${made[1].column_name} as size from cfw_widget where tenant_id = $1 order by 2 desc`, [tenant]);
    expect(values.rows).toEqual([
      { note: JSON.stringify(note), size: '"s"' },
      { note: null, size: '"m"' },
    ]);

    // Read again, a filter compares the stored column; both give the same rows.
    expect(await fields.readStored(db)).toEqual([]);
    const after = fields.condition(small, 'w');
    expect(after).toEqual({ sql: `w.${made[1].column_name} = (?::jsonb)::text`, params: ['"s"'] });
    for (const [value, count] of [['s', 1], ['m', 1], ['l', 0]] as const) {
      const counted = async (condition: { sql: string }) =>
        (await client.query(`select count(*)::int as n from cfw_widget w where tenant_id = $1 and ${condition.sql.replace('?', '$2')}`, [tenant, JSON.stringify(value)])).rows[0].n;
      expect([await counted(before), await counted(after)], value).toEqual([count, count]);
    }

    // Again with the same declarations: nothing to do.
    lines.length = 0;
    await migrate({ size: { type: 'enum', values: ['s', 'm', 'l'], default: 'm', indexed: true }, note: { type: 'string', indexed: true } });
    expect(lines).toEqual([]);
    expect(await indexes()).toEqual(first);
    expect(await columns()).toEqual(made);

    // Another default is another expression: its column and index replace the old ones; a field no longer indexed loses both.
    await migrate({ size: { type: 'enum', values: ['s', 'm', 'l'], default: 'l', indexed: true }, note: { type: 'string' } });
    const second = await indexes();
    const moved = await columns();
    expect(moved).toEqual([{ column_name: expect.stringMatching(/^cf_size_[0-9a-f]{8}$/), generation_expression: `(COALESCE((custom_fields -> 'size'::text), '"l"'::jsonb))::text` }]);
    expect(moved[0].column_name).not.toBe(made[1].column_name);
    expect(second).toHaveLength(1);
    expect(second[0].indexname).toMatch(/^cfw_widget_cf_size_/);
    expect(second[0].indexname).not.toBe(first[1].indexname);
    expect(on(second[0])).toBe(`(tenant_id, ${moved[0].column_name})`);
    expect(lines).toEqual(expect.arrayContaining([`dropped custom field column cfw_widget.${made[0].column_name}`, `dropped custom field column cfw_widget.${made[1].column_name}`]));

    await migrateAll(database.url, [widgets]);
    expect(await indexes()).toEqual([]);
    expect(await columns()).toEqual([]);
  });
});
