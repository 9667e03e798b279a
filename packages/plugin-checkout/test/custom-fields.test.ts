import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { answersMatch, APP_ROLE, CustomFields, definePlugin, defineProject, migrateAll, type QhatuPlugin } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CartOut } from '../src/index.js';
import { addItem, ADDRESS, caller, CARTS, CHECKOUTS, checkoutApp, createCart, createProduct, customerToken, RATE, type Caller } from './helpers.js';

// A plugin adds fields to the five entities that take them, and the project one more: stored in
// each table's custom_fields, checked, answered (storefront callers see the public ones), in
// GraphQL and OpenAPI, filtered on the indexed ones, and a cart's carried to its order.
const giftWrap = definePlugin({
  name: 'gift-wrap',
  customFields: {
    order: {
      gift_wrap: { type: 'boolean', nullable: false, default: false, public: true, indexed: true, description: 'Wrap the parcel as a gift' },
      gift_note: { type: 'string', maxLength: 200, public: true },
      priority: { type: 'enum', values: ['normal', 'rush'], default: 'normal', nullable: false, indexed: true },
      packed_at: { type: 'datetime' },
    },
    cart: {
      gift_wrap: { type: 'boolean', default: false, public: true },
      gift_note: { type: 'string', maxLength: 200, public: true },
      sales_agent: { type: 'string' },
    },
    product: {
      material: { type: 'enum', values: ['wool', 'cotton', 'alpaca'], public: true, indexed: true },
      supplier_code: { type: 'string', indexed: true },
      care: { type: 'string', public: true },
    },
    variant: {
      color_hex: { type: 'string', maxLength: 7, public: true, indexed: true },
      weight_kg: { type: 'decimal', public: true },
    },
    customer: {
      loyalty_tier: { type: 'enum', values: ['bronze', 'silver', 'gold'], default: 'bronze', indexed: true },
      newsletter_topic: { type: 'string', public: true },
      visits: { type: 'integer', nullable: false, default: 0 },
    },
  },
});
const project = defineProject({ plugins: [giftWrap], customFields: { product: { season: { type: 'string', public: true } } } });

const PRODUCTS = '/api/v1/catalog/products';
const ORDERS = '/api/v1/orders';
const CUSTOMERS = '/api/v1/customers';

let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let plugins: QhatuPlugin[];
beforeAll(async () => {
  t = await checkoutApp({ plugins: project.plugins });
  plugins = t.app.plugins;
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
});
afterAll(async () => t?.close());

const graphql = (tenant: TestTenant, query: string, token?: string) =>
  t.request({ method: 'POST', url: '/graphql', headers: tenant.headers(token), payload: { query } });

async function product(api: Caller, body: Record<string, unknown>) {
  const res = await api('POST', PRODUCTS, { title: 'Scarf', variants: [{ title: 'Grey', price: 1000 }], ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('products and variants', () => {
  it('take their fields on create and change, answer every declared one (defaults, null) to admins and the public ones to storefronts', async () => {
    const made = await product(admin, {
      custom_fields: { material: 'alpaca', supplier_code: 'SUP-1', season: 'winter' },
      variants: [{ title: 'Grey', price: 1000, custom_fields: { color_hex: '#808080', weight_kg: 0.25 } }],
    });
    expect(made.custom_fields).toEqual({ material: 'alpaca', supplier_code: 'SUP-1', care: null, season: 'winter' });
    expect(made.variants[0].custom_fields).toEqual({ color_hex: '#808080', weight_kg: 0.25 });

    // Only the fields sent change.
    const changed = await admin('PATCH', `${PRODUCTS}/${made.id}`, { custom_fields: { care: 'Hand wash', season: null } });
    expect(changed.json().data.custom_fields).toEqual({ material: 'alpaca', supplier_code: 'SUP-1', care: 'Hand wash', season: null });
    const variant = await admin('PATCH', `${PRODUCTS}/${made.id}/variants/${made.variants[0].id}`, { custom_fields: { weight_kg: 0.3 } });
    expect(variant.json().data.custom_fields).toEqual({ color_hex: '#808080', weight_kg: 0.3 });
    const added = await admin('POST', `${PRODUCTS}/${made.id}/variants`, { title: 'Red', price: 1200 });
    expect(added.json().data.custom_fields).toEqual({ color_hex: null, weight_kg: null });

    expect((await admin('GET', `${PRODUCTS}/${made.id}`)).json().data.custom_fields.supplier_code).toBe('SUP-1');
    const seen = (await store('GET', `${PRODUCTS}/${made.id}`)).json().data;
    expect(seen.custom_fields).toEqual({ material: 'alpaca', care: 'Hand wash', season: null });
    expect(seen.variants.map((v: { custom_fields: unknown }) => v.custom_fields)).toEqual([{ color_hex: '#808080', weight_kg: 0.3 }, { color_hex: null, weight_kg: null }]);
  });

  it('refuses unknown fields and wrong values with 400 VALIDATION_ERROR naming the field, and writes nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ custom_fields: { colour: 'red' } }, 'body.custom_fields.colour'],
      [{ custom_fields: { material: 'silk' } }, 'body.custom_fields.material'],
      [{ custom_fields: { supplier_code: 42 } }, 'body.custom_fields.supplier_code'],
      [{ variants: [{ title: 'A', price: 1 }, { title: 'B', price: 1, custom_fields: { color_hex: '#1234567890' } }] }, 'body.variants.1.custom_fields.color_hex'],
    ];
    for (const [body, path] of cases) {
      const res = await admin('POST', PRODUCTS, { title: `Bad ${path}`, variants: [{ title: 'A', price: 1 }], ...body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path })] });
    }
    const listed = (await admin('GET', `${PRODUCTS}?q=Bad`)).json().data;
    expect(listed).toEqual([]);
  });

  it('filter lists on indexed fields (the product’s and a variant’s), storefronts on the public ones; others are refused precisely', async () => {
    const wool = await product(admin, { title: 'Wool hat', custom_fields: { material: 'wool', supplier_code: 'W-9' } });
    const cotton = await product(admin, { title: 'Cotton hat', custom_fields: { material: 'cotton' }, variants: [{ title: 'Teal', price: 900, custom_fields: { color_hex: '#008080' } }] });
    const ids = (res: { json(): { data: Array<{ id: string }> } }) => res.json().data.map((p) => p.id);

    expect(ids(await admin('GET', `${PRODUCTS}?filter[custom_fields.material]=wool`))).toEqual([wool.id]);
    expect(ids(await store('GET', `${PRODUCTS}?filter[custom_fields.material]=cotton`))).toEqual([cotton.id]);
    expect(ids(await admin('GET', `${PRODUCTS}?filter[custom_fields.supplier_code]=W-9`))).toEqual([wool.id]);
    expect(ids(await store('GET', `${PRODUCTS}?filter[variants.custom_fields.color_hex]=%23008080`))).toEqual([cotton.id]);

    const notIndexed = await admin('GET', `${PRODUCTS}?filter[custom_fields.care]=x`);
    expect(notIndexed.statusCode).toBe(422);
    expect(notIndexed.json().error).toMatchObject({ code: 'CUSTOM_FIELD_NOT_INDEXED', details: [{ path: 'querystring.filter[custom_fields.care]', field: 'care' }] });
    // An admin-only field is no filter of a storefront's; an unknown field or a value outside the enum is bad input.
    for (const query of ['filter[custom_fields.supplier_code]=W-9', 'filter[custom_fields.nope]=1', 'filter[custom_fields.material]=silk']) {
      const res = await store('GET', `${PRODUCTS}?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    // Another store's products are never found by their values.
    expect((await caller(t, other)('GET', `${PRODUCTS}?filter[custom_fields.material]=wool`)).json().data).toEqual([]);
  });

  it('are in GraphQL: customFields with camelCase names, null for what a storefront may not see', async () => {
    const made = await product(admin, { custom_fields: { material: 'wool', supplier_code: 'S-2' }, variants: [{ title: 'Blue', price: 500, custom_fields: { color_hex: '#0000ff' } }] });
    const query = `{ product(id: "${made.id}") { customFields { material supplierCode care season } variants { customFields { colorHex weightKg } } } }`;
    const asAdmin = (await graphql(shop, query)).json();
    expect(asAdmin.data.product).toEqual({
      customFields: { material: 'wool', supplierCode: 'S-2', care: null, season: null },
      variants: [{ customFields: { colorHex: '#0000ff', weightKg: null } }],
    });
    const asStore = (await graphql(shop, query, shop.storefrontToken)).json();
    expect(asStore.data.product.customFields).toEqual({ material: 'wool', supplierCode: null, care: null, season: null });
  });
});

describe('carts and their orders', () => {
  it('a cart takes its public fields from the storefront, is answered with them, and carries those orders declare to the order', async () => {
    const scarf = await createProduct(admin, { variants: [{ title: 'Grey', price: 2000 }] });
    const cart = await createCart(store, { custom_fields: { gift_wrap: true } });
    expect(cart).toMatchObject({ custom_fields: { gift_wrap: true, gift_note: null } });
    await addItem(store, cart.id, scarf.variants[0].id, 1);

    const patched = await store('PATCH', `${CARTS}/${cart.id}`, { custom_fields: { gift_note: 'Happy birthday, Rosa' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data).toMatchObject({ item_count: 1, total: 2000, custom_fields: { gift_wrap: true, gift_note: 'Happy birthday, Rosa' } });
    // Sent as built (a storefront's hot path): held to the schema here.
    expect(answersMatch(CartOut, patched.json().data)).toBe(true);
    expect((await caller(t, other, other.storefrontToken)('PATCH', `${CARTS}/${cart.id}`, { custom_fields: { gift_wrap: false } })).statusCode).toBe(404);
    // The store's own key sets (and sees) the admin-only field; a storefront is refused it in the checkout API's words.
    expect((await admin('PATCH', `${CARTS}/${cart.id}`, { custom_fields: { sales_agent: 'Ana' } })).json().data.custom_fields.sales_agent).toBe('Ana');
    const refused = await store('PATCH', `${CARTS}/${cart.id}`, { custom_fields: { sales_agent: 'Eve' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: 'body.custom_fields.sales_agent' }] });
    expect((await store('GET', `${CARTS}/${cart.id}`)).json().data.custom_fields).toEqual({ gift_wrap: true, gift_note: 'Happy birthday, Rosa' });

    const cartQuery = `{ cart(id: "${cart.id}") { customFields { giftWrap giftNote salesAgent } } }`;
    expect((await graphql(shop, cartQuery, shop.storefrontToken)).json().data.cart.customFields).toEqual({ giftWrap: true, giftNote: 'Happy birthday, Rosa', salesAgent: null });

    const checkout = (await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' })).json().data;
    const frozen = await store('PATCH', `${CARTS}/${cart.id}`, { custom_fields: { gift_wrap: false } });
    expect(frozen.statusCode).toBe(409);
    expect(frozen.json().error.code).toBe('CART_FROZEN');
    const placed = (await store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE })).json().data;
    const order = (await admin('GET', `${ORDERS}/${placed.order_id}`)).json().data;
    // Carried: the fields both declare; the order's others take their defaults (sales_agent is the cart's alone).
    expect(order.custom_fields).toEqual({ gift_wrap: true, gift_note: 'Happy birthday, Rosa', priority: 'normal', packed_at: null });
  });

  it('orders take fields on create and change, filter on indexed ones, and a customer sees the public ones of its own', async () => {
    const hat = await createProduct(admin, { variants: [{ title: 'Red', price: 1500 }] });
    const customer = (await admin('POST', CUSTOMERS, { email: `c-${randomUUID()}@example.com` })).json().data;
    const line = [{ variant_id: hat.variants[0].id, quantity: 1 }];
    const make = async (custom_fields?: Record<string, unknown>) => {
      const res = await admin('POST', ORDERS, { customer_email: customer.email, line_items: line, shipping_address: ADDRESS, ...(custom_fields && { custom_fields }) });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data;
    };
    const rush = await make({ priority: 'rush', packed_at: '2025-03-01T10:00:00-05:00' });
    expect(rush.custom_fields).toEqual({ gift_wrap: false, gift_note: null, priority: 'rush', packed_at: '2025-03-01T15:00:00.000Z' });
    const plain = await make();
    const bad = await admin('POST', ORDERS, { customer_email: customer.email, line_items: line, shipping_address: ADDRESS, custom_fields: { priority: 'urgent' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toEqual([expect.objectContaining({ path: 'body.custom_fields.priority' })]);

    const patched = await admin('PATCH', `${ORDERS}/${plain.id}`, { custom_fields: { gift_wrap: true, gift_note: 'For Ana' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.custom_fields).toEqual({ gift_wrap: true, gift_note: 'For Ana', priority: 'normal', packed_at: null });
    expect((await caller(t, other)('PATCH', `${ORDERS}/${plain.id}`, { custom_fields: { gift_wrap: false } })).statusCode).toBe(404);

    const ids = async (query: string, api = admin) => (await api('GET', `${ORDERS}?filter[customer_email]=${encodeURIComponent(customer.email)}&${query}`)).json().data.map((o: { id: string }) => o.id);
    expect(await ids('filter[custom_fields.priority]=rush')).toEqual([rush.id]);
    // The default counts as the value of an order that was given none.
    expect(await ids('filter[custom_fields.priority]=normal')).toEqual([plain.id]);
    expect(await ids('filter[custom_fields.gift_wrap]=true')).toEqual([plain.id]);
    expect((await admin('GET', `${ORDERS}?filter[custom_fields.gift_note]=x`)).json().error.code).toBe('CUSTOM_FIELD_NOT_INDEXED');
    expect((await admin('GET', `${ORDERS}?filter[custom_fields.gift_wrap]=yes`)).statusCode).toBe(400);

    const { token } = await customerToken(t, shop, customer.id);
    const mine = caller(t, shop, token);
    expect((await mine('GET', `${ORDERS}/${rush.id}`)).json().data.custom_fields).toEqual({ gift_wrap: false, gift_note: null });
    expect((await mine('GET', `${ORDERS}?filter[custom_fields.priority]=rush`)).statusCode).toBe(400);
    const orders = (await graphql(shop, '{ orders { edges { node { id customFields { giftWrap giftNote priority packedAt } } } } }', token)).json().data.orders.edges;
    expect(orders.find((e: { node: { id: string } }) => e.node.id === plain.id).node.customFields).toEqual({ giftWrap: true, giftNote: 'For Ana', priority: null, packedAt: null });
  });

  it('the filter is the stored column `qhatu migrate` made, with its index led by tenant_id; under row-level security the index finds the value in the store', async () => {
    await migrateAll(t.databaseUrl, plugins);
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    const fieldColumns = async () =>
      (
        await client.query<{ column_name: string; generation_expression: string }>(
          `select column_name, generation_expression from information_schema.columns where table_name = 'orders_order' and column_name like 'cf\\_%' order by column_name`,
        )
      ).rows;
    const fieldIndexes = async () =>
      (await client.query<{ indexname: string; indexdef: string }>(`select indexname, indexdef from pg_indexes where tablename = 'orders_order' and indexname like 'orders_order_cf_%' order by indexname`)).rows;
    try {
      const columns = await fieldColumns();
      expect(columns.map((c) => c.column_name)).toEqual([expect.stringMatching(/^cf_gift_wrap_[0-9a-f]{8}$/), expect.stringMatching(/^cf_priority_[0-9a-f]{8}$/)]);
      expect(columns[1].generation_expression).toMatch(/^\(COALESCE\(\(custom_fields -> 'priority'::text\), '"normal"'::jsonb\)\)::text$/);
      const indexes = await fieldIndexes();
      expect(indexes.map((r) => r.indexname)).toEqual([expect.stringMatching(/^orders_order_cf_gift_wrap_[0-9a-f]{8}$/), expect.stringMatching(/^orders_order_cf_priority_[0-9a-f]{8}$/)]);
      expect(indexes.map((r) => r.indexdef.replace(/.*USING btree /, ''))).toEqual(columns.map((c) => `(tenant_id, ${c.column_name})`));
      // Made again, nothing changes.
      const log: string[] = [];
      await migrateAll(t.databaseUrl, plugins, (line) => log.push(line));
      expect(log.filter((line) => line.includes('custom field'))).toEqual([]);
      expect(await fieldIndexes()).toEqual(indexes);
      // The stored columns are no part of an order's answer.
      const listed = (await admin('GET', `${ORDERS}?filter[custom_fields.priority]=rush`)).json().data;
      expect(listed.length).toBeGreaterThan(0);
      expect(Object.keys(listed[0]).filter((key) => key.startsWith('cf_'))).toEqual([]);
      expect(Object.keys(listed[0].custom_fields).sort()).toEqual(['gift_note', 'gift_wrap', 'packed_at', 'priority']);

      const condition = t.app.container.resolve(CustomFields).condition({ entity: 'order', name: 'priority', value: 'rush' });
      const explain = async () =>
        JSON.stringify((await client.query(`explain (format json) select id from orders_order where tenant_id = $1 and ${condition.sql.replace('?', '$2')}`, [shop.id, ...condition.params])).rows);
      await client.query('begin');
      // On a table this small any index that starts with tenant_id costs the same (the primary key, the
      // other field's): every index but this field's is set aside, inside this transaction only (the key
      // with the foreign keys that need it).
      const others = (await client.query<{ indexname: string }>(`select indexname from pg_indexes where tablename = 'orders_order' and indexname not like 'orders_order_cf_priority_%' and indexname not like '%pkey'`)).rows;
      for (const { indexname } of others) await client.query(`drop index "${indexname}"`);
      await client.query('alter table orders_order drop constraint orders_order_pkey cascade');
      await client.query(`select set_config('enable_seqscan', 'off', true)`);
      const indexCondition = new RegExp(
        `"Index Name":"orders_order_cf_priority_[0-9a-f]{8}","Relation Name":"orders_order","Alias":"orders_order",.*"Index Cond":"\\(\\(tenant_id = '[0-9a-f-]{36}'::uuid\\) AND \\(${columns[1].column_name} = '[^']*rush[^']*'::text\\)\\)"`,
      );
      expect(await explain()).toMatch(indexCondition);
      // Under row-level security too: text's = is leakproof, so the value is looked up in the index, not checked on each of the store's rows.
      await client.query(`select set_config('role', '${APP_ROLE}', true), set_config('app.tenant_id', $1, true)`, [shop.id]);
      expect(await explain()).toMatch(indexCondition);
      expect((await client.query(`select count(*)::int as n from orders_order where ${condition.sql.replace('?', '$1')}`, condition.params)).rows[0].n).toBeGreaterThan(0);
      await client.query('rollback');
    } finally {
      await client.end();
    }
  });
});

describe('customers', () => {
  it('take fields from staff; a customer sees and sets its public ones only; lists filter on indexed ones', async () => {
    const gold = (await admin('POST', CUSTOMERS, { email: `gold-${randomUUID()}@example.com`, custom_fields: { loyalty_tier: 'gold', visits: 3 } })).json().data;
    expect(gold.custom_fields).toEqual({ loyalty_tier: 'gold', newsletter_topic: null, visits: 3 });
    const nulled = await admin('PATCH', `${CUSTOMERS}/${gold.id}`, { custom_fields: { visits: null } });
    expect(nulled.statusCode).toBe(400);
    expect(nulled.json().error.details).toEqual([expect.objectContaining({ path: 'body.custom_fields.visits' })]);

    const { token } = await customerToken(t, shop, gold.id);
    const me = caller(t, shop, token);
    expect((await me('GET', `${CUSTOMERS}/me`)).json().data.custom_fields).toEqual({ newsletter_topic: null });
    const own = await me('PATCH', `${CUSTOMERS}/me`, { custom_fields: { newsletter_topic: 'alpaca' } });
    expect(own.json().data.custom_fields).toEqual({ newsletter_topic: 'alpaca' });
    const sneaky = await me('PATCH', `${CUSTOMERS}/me`, { custom_fields: { loyalty_tier: 'gold' } });
    expect(sneaky.statusCode).toBe(400);
    expect(sneaky.json().error.details).toEqual([expect.objectContaining({ path: 'body.custom_fields.loyalty_tier' })]);
    const profile = (await graphql(shop, 'mutation { updateProfile(input: { firstName: "Ana" }) { customFields { newsletterTopic loyaltyTier visits } } }', token)).json();
    expect(profile.data.updateProfile.customFields).toEqual({ newsletterTopic: 'alpaca', loyaltyTier: null, visits: null });

    const listed = (await admin('GET', `${CUSTOMERS}?filter[custom_fields.loyalty_tier]=gold`)).json().data;
    expect(listed.map((c: { id: string }) => c.id)).toEqual([gold.id]);
    expect(listed[0].custom_fields).toEqual({ loyalty_tier: 'gold', newsletter_topic: 'alpaca', visits: 3 });
    expect((await caller(t, other)('GET', `${CUSTOMERS}?filter[custom_fields.loyalty_tier]=gold`)).json().data).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('documents the declared fields of each entity, in answers, inputs and list filters', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const schemas = doc.components.schemas;
    expect(schemas.Order.properties.custom_fields).toEqual({ $ref: '#/components/schemas/OrderCustomFields' });
    expect(schemas.OrderCustomFields.properties.gift_wrap).toMatchObject({ type: 'boolean', description: expect.stringContaining('Wrap the parcel as a gift') });
    expect(schemas.OrderCustomFields.properties.priority).toMatchObject({ enum: ['normal', 'rush'] });
    expect(schemas.OrderCustomFields.required).toEqual(['gift_wrap', 'gift_note']);
    expect(Object.keys(schemas.VariantCustomFields.properties)).toEqual(['color_hex', 'weight_kg']);
    expect(Object.keys(schemas.ProductCustomFields.properties)).toEqual(['material', 'supplier_code', 'care', 'season']);
    expect(schemas.CartCustomFieldValues.additionalProperties).toBe(false);
    const list = doc.paths['/api/v1/orders'].get.parameters.map((p: { name: string }) => p.name);
    expect(list).toEqual(expect.arrayContaining(['filter[custom_fields.gift_wrap]', 'filter[custom_fields.priority]']));
    expect(list).not.toContain('filter[custom_fields.gift_note]');
    expect(doc.paths['/api/v1/checkout/carts/{id}'].patch).toBeDefined();
  });
});
