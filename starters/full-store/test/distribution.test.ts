import { randomBytes } from 'node:crypto';
import { adminUrl, createTestApp, urlFor, type TestApp } from '@qhatu/core/testing';
import { StripeDouble } from '@qhatu/plugin-gateway-stripe/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDistribution, citusSql, type DistributionReport } from '../../../scripts/check-distribution.js';
import project from '../qhatu.config.js';

/**
 * The schema of the full store can be distributed by `tenant_id` (Citus), and the statements a
 * store's day sends name `tenant_id` wherever they touch a store-owned table, so that each one is
 * routed to the one node that holds the store (decision 0072).
 */
const stripeKey = 'sk_test_distribution';
let stripe: StripeDouble;
let t: TestApp;
let db: pg.Client;
let report: DistributionReport;

beforeAll(async () => {
  stripe = await new StripeDouble(new Set([stripeKey])).start();
  t = await createTestApp({ plugins: project.plugins, workers: true, env: { QHATU_GATEWAY_STRIPE_BASE_URL: stripe.url } });
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  report = await checkDistribution(db);
});

afterAll(async () => {
  await db?.end();
  await t?.close();
  await stripe?.close();
});

describe('a schema Citus can distribute', () => {
  it('holds tenant_id in every key of every store-owned table; platform tables can be reference tables', () => {
    expect(report.violations).toEqual([]);
    expect(report.platformTables).toEqual(['core_tenant', 'qhatu_migrations', 'themes_catalog']);
    for (const table of ['core_idempotency_key', 'core_outbox', 'catalog_product', 'orders_order', 'payments_payment']) {
      expect(report.storeTables).toContain(table);
    }
  });

  it('prints the statements that distribute it: reference tables, then every store-owned table colocated on tenant_id', async () => {
    const sql = await citusSql(db, report);
    const lines = sql.split('\n').filter((l) => l.startsWith('SELECT'));
    expect(lines.slice(0, 3)).toEqual(report.platformTables.map((table) => `SELECT create_reference_table('${table}');`));
    const distributed = lines.slice(3).map((l) => /create_distributed_table\('(\w+)'/.exec(l)![1]);
    expect([...distributed].sort()).toEqual([...report.storeTables].sort());
    // A table comes after the tables its foreign keys refer to.
    const { rows } = await db.query<{ child: string; parent: string }>(`
      select c.relname as child, p.relname as parent from pg_constraint con
        join pg_class c on c.oid = con.conrelid join pg_class p on p.oid = con.confrelid
       where con.contype = 'f' and c.relname <> p.relname and p.relname <> 'core_tenant' and c.relnamespace = 'public'::regnamespace`);
    for (const { child, parent } of rows) expect(distributed.indexOf(parent), `${parent} before ${child}`).toBeLessThan(distributed.indexOf(child));
    expect(lines[3]).toBe(`SELECT create_distributed_table('${distributed[0]}', 'tenant_id');`);
    expect(lines[4]).toBe(`SELECT create_distributed_table('${distributed[1]}', 'tenant_id', colocate_with => '${distributed[0]}');`);
  });

  it('names each violation of a schema that cannot be distributed', async () => {
    const name = `qhatu_test_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const bad = new pg.Client({ connectionString: urlFor(name) });
    await bad.connect();
    try {
      await bad.query(`
        create table shop (id uuid primary key);
        create table item (tenant_id uuid not null, id uuid not null, sku text, primary key (tenant_id, id));
        create unique index item_sku on item (sku);
        create table tag (tenant_id uuid, id uuid primary key, item_id uuid,
          foreign key (tenant_id, item_id) references item (tenant_id, id) on delete set null);
        create table note (tenant_id uuid not null, id uuid not null, item_id uuid, other_tenant uuid,
          unique (id), foreign key (other_tenant, item_id) references item (tenant_id, id));
        create table log (tenant_id uuid not null, line text);
        create table pick (id uuid primary key, tenant_id_of_item uuid, item_id uuid,
          foreign key (tenant_id_of_item, item_id) references item (tenant_id, id));
        create table code (tenant_id text not null, id uuid, primary key (tenant_id, id));`);
      const found = await checkDistribution(bad);
      expect(found.platformTables).toEqual(['pick', 'shop']);
      expect(found.violations).toEqual([
        'tenant_id has several types (text, uuid): colocated tables need one',
        'item: unique index item_sku does not hold tenant_id',
        'log: no primary key (it must exist and hold tenant_id)',
        'note: no primary key (it must exist and hold tenant_id)',
        'note: unique constraint note_id_key does not hold tenant_id',
        'tag: tenant_id may be null (a distribution column may not)',
        'tag: primary key tag_pkey does not hold tenant_id',
        'note: foreign key note_other_tenant_item_id_fkey to item does not join tenant_id to tenant_id',
        'pick: foreign key pick_tenant_id_of_item_item_id_fkey of a platform table refers to the store-owned item (a reference table cannot)',
        'tag: foreign key tag_tenant_id_item_id_fkey to item sets tenant_id on delete (name the other columns: ON DELETE SET NULL (column))',
      ]);
    } finally {
      await bad.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});

describe('statements routed to one store', () => {
  /** The statements of one round trip one at a time (split on `;` outside quoted text). */
  function split(text: string): string[] {
    const out: string[] = [];
    let current = '';
    let quoted = false;
    for (const ch of text) {
      if (ch === "'") quoted = !quoted;
      if (ch === ';' && !quoted) {
        out.push(current.trim());
        current = '';
      } else current += ch;
    }
    out.push(current.trim());
    return out.filter(Boolean);
  }

  /** The store-owned tables a statement reads or writes (after FROM, JOIN, UPDATE or INTO). */
  function storeTablesOf(statement: string): string[] {
    const store = new Set(report.storeTables);
    const names = [...statement.matchAll(/\b(?:from|join|update|into)\s+(?:only\s+)?(?:"?public"?\.)?"?([a-z_][a-z0-9_]*)"?/gi)].map((m) => m[1].toLowerCase());
    return [...new Set(names.filter((n) => store.has(n)))];
  }

  it("names tenant_id in every statement a store's day sends to a store-owned table: catalog, stock, cart, checkout, order, payment, refund", async () => {
    const tenant = await t.createTenant({ name: 'Distributed Knits', currency: 'PEN' });
    const admin = tenant.headers();
    const shopper = tenant.headers(tenant.storefrontToken);
    const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, headers: Record<string, string>, payload?: unknown) => {
      const res = await t.request({ method, url: `/api/v1${url}`, headers, payload: payload as never });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
      return res.json().data;
    };

    const { statements } = await t.countQueries(async () => {
      await call('PUT', '/payments/gateways/stripe', admin, { enabled: true, credentials: { secret_key: stripeKey, webhook_secret: 'whsec_distribution' } });
      const warehouse = await call('POST', '/inventory/warehouses', admin, { name: 'Cusco', code: 'CUS' });
      const product = await call('POST', '/catalog/products', admin, { title: 'Llama beanie', variants: [{ title: 'One size', sku: 'BEANIE-1', price: 4000 }] });
      const variant = product.variants[0].id;
      await call('PATCH', `/catalog/products/${product.id}/variants/${variant}`, admin, { price: 4200 });
      await call('POST', `/inventory/warehouses/${warehouse.id}/stock/adjust`, admin, { variant_id: variant, delta: 5, reason: 'received' });
      await call('GET', '/catalog/products', shopper);
      await call('GET', `/catalog/products/${product.id}`, shopper);
      await t.request({ method: 'POST', url: '/graphql', headers: shopper, payload: { query: '{ products(limit: 5) { edges { node { title variants { price } } } } }' } });

      const cart = await call('POST', '/checkout/carts', shopper, {});
      await call('POST', `/checkout/carts/${cart.id}/items`, shopper, { variant_id: variant, quantity: 2 });
      const started = await call('POST', '/checkout/checkouts', shopper, { cart_id: cart.id, email: 'rosa@example.com' });
      const address = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };
      const checkout = await call('PUT', `/checkout/checkouts/${started.id}/shipping`, shopper, {
        shipping_address: address, billing_address: address, shipping_rate: { carrier: 'Olva', service: 'Express', price: 1500 },
      });
      const payment = await call('POST', '/payments', { ...shopper, 'idempotency-key': 'pay-1' }, { order_id: checkout.order_id, gateway: 'stripe', amount: 9900, currency: 'PEN', payment_method_id: 'pm_card_visa' });
      expect(payment.status).toBe('paid');
      await t.settle();
      expect((await call('GET', `/orders/${checkout.order_id}`, admin)).status).toBe('paid');
      await call('GET', '/orders', admin);
      await call('POST', `/payments/${payment.id}/refund`, admin, { amount: 0, reason: 'requested_by_customer' });
      await t.settle();
    });

    // settle()'s own look at what is left to relay, every store's at once: the test's, not the store's.
    const settling = 'select count(*)::int as n from core_outbox where published_at is null';
    const offenders = statements
      .flatMap(split)
      .filter((statement) => statement !== settling)
      // Sweeps of every store at once (the outbox's leftovers, housekeeping) say so; they run on a timer.
      .filter((statement) => !statement.startsWith('/* every store */'))
      .map((statement) => ({ statement, tables: storeTablesOf(statement) }))
      .filter(({ statement, tables }) => tables.length > 0 && !/\btenant_id\b/i.test(statement));
    expect(statements.length).toBeGreaterThan(100);
    expect(offenders.map(({ tables, statement }) => `${tables.join(', ')}: ${statement.slice(0, 300)}`)).toEqual([]);
  });
});
