import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, indexesOf, searchPlan, seqScans, type TestApp, type TestTenant } from '../src/testing/index.js';

/**
 * Core's own searches: stores (a platform list, 30,000 of them) and staff members (20,000 in one
 * store): the answers, accents and case folded, and the plans, which must read the trigram index.
 */

const STORES = 30_000;
const STAFF = 20_000;
let t: TestApp;
let store: TestTenant;
let other: TestTenant;
let client: pg.Client;

beforeAll(async () => {
  t = await createTestApp({ plugins: [] });
  store = await t.createTenant({ name: 'Bodega Ñañez' });
  other = await t.createTenant({ name: 'Otra tienda' });
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await client.query(
    `insert into core_tenant (id, name, slug, status, currency, default_locale, created_at, updated_at)
     select gen_random_uuid(), 'Tienda ' || i, 'tienda-' || i, 'active', 'PEN', 'es-PE',
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${STORES}) as i`,
  );
  const [role] = (await client.query(`select id from core_role where tenant_id = $1 limit 1`, [store.id])).rows;
  await client.query(
    `insert into core_staff (tenant_id, id, email, first_name, last_name, role_id, status, created_at, updated_at)
     select $1, gen_random_uuid(), 'persona' || i || '@tienda.pe', 'Nombre' || (i % 997), 'Apellido' || i, $2, 'active',
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${STAFF}) as i`,
    [store.id, role.id],
  );
  await client.query(
    `insert into core_staff (tenant_id, id, email, first_name, last_name, role_id, status, created_at, updated_at)
     select $1, gen_random_uuid(), 'jose@otra.pe', 'José', 'Ajeno', id, 'active', now(), now() from core_role where tenant_id = $1 limit 1`,
    [other.id],
  );
  // As autovacuum leaves them: the trigram indexes' pending lists merged, statistics fresh.
  for (const table of ['core_tenant', 'core_staff']) await client.query(`vacuum analyze ${table}`);
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

const platform = () => ({ authorization: `Bearer ${t.platformToken}` });
const storeNames = async (q: string) =>
  ((await t.request({ method: 'GET', url: `/api/v1/tenants?q=${encodeURIComponent(q)}&sort=name`, headers: platform() })).json().data as Array<{ name: string }>).map((s) => s.name);
const staffEmails = async (q: string) =>
  ((await t.request({ method: 'GET', url: `/api/v1/staff?q=${encodeURIComponent(q)}&sort=email`, headers: store.headers() })).json().data as Array<{ email: string }>).map((s) => s.email);

describe('search of stores and staff', () => {
  it('finds stores by name and slug, whatever the case and accents', async () => {
    expect(await storeNames('nanez')).toEqual(['Bodega Ñañez']);
    expect(await storeNames('BODEGA')).toEqual(['Bodega Ñañez']);
    expect(await storeNames('tienda-29999')).toEqual(['Tienda 29999']);
    expect(await storeNames('nadie-asi')).toEqual([]);
  });

  it('finds staff members by every word, only in the caller’s store', async () => {
    expect(await staffEmails('NOMBRE0 apellido19940')).toEqual(['persona19940@tienda.pe']);
    expect(await staffEmails('persona19999@')).toEqual(['persona19999@tienda.pe']);
    expect(await staffEmails('josé')).toEqual([]);
    expect(await staffEmails('nadie-asi')).toEqual([]);
  });

  it('reads the trigram indexes: the stores as the owner, staff under row-level security', async () => {
    for (const words of ['nadie-asi', 'bodega', 'ña']) {
      for (const sort of ['-created_at', 'name', 'slug']) {
        const plan = await searchPlan(t, { table: 'core_tenant', words, request: () => t.request({ method: 'GET', url: `/api/v1/tenants?q=${encodeURIComponent(words)}&sort=${sort}`, headers: platform() }) });
        expect(seqScans(plan.list), `${words} ${sort}`).toEqual([]);
        expect(indexesOf(plan.matches), `${words} ${sort}`).toContain('core_tenant_search');
      }
    }
    for (const words of ['nadie-asi', 'persona1999', 'zo']) {
      for (const sort of ['-created_at', 'email']) {
        const plan = await searchPlan(t, { table: 'core_staff', tenantId: store.id, words, request: () => t.request({ method: 'GET', url: `/api/v1/staff?q=${encodeURIComponent(words)}&sort=${sort}`, headers: store.headers() }) });
        expect(seqScans(plan.list), `${words} ${sort}`).toEqual([]);
        expect(seqScans(plan.matches), `${words} ${sort}`).toEqual([]);
        expect(indexesOf(plan.matches), `${words} ${sort}`).toContain('core_staff_search');
      }
    }
  }, 60_000);
});
