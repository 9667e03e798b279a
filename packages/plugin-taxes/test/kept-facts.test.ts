import { Database, factVersionSql } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, CARTS, ok, product, TAXES, taxesApp, type Caller } from './helpers.js';

/**
 * A cart's change keeps the store's tax facts in memory (decision 0049): every change of the
 * settings, a region's rates, a tax class or the store itself bumps their version in its own
 * transaction, so the next change of any cart taxes by what the database holds now.
 */
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let regionId: string;

beforeAll(async () => {
  t = await taxesApp();
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  await ok(await admin('PATCH', `${TAXES}/settings`, { origin_country: 'PE', prices_include_tax: false }));
  regionId = (await ok(await admin('POST', `${TAXES}/regions`, { name: 'Perú', country_code: 'PE', rates: { standard: 1800, reduced: 800 } }), 201)).id;
});
afterAll(async () => t?.close());

/** Adds `quantity` of `variant` and answers the cart, with the statements the change sent. */
async function add(cartId: string, variant: string, quantity = 1) {
  const { result, statements } = await t.countQueries(() => store('POST', `${CARTS}/${cartId}/items`, { variant_id: variant, quantity }));
  return { cart: await ok(result, 201), statements };
}

/** The store's version of its tax facts, as a cart's change reads it. */
const taxVersion = () =>
  t.app.container.resolve(Database).write(async (sql) => (await sql.query<{ v: string }>(`select ${factVersionSql('?', 'taxes')} as v`, [shop.id]))[0].v, shop.id);

const fromMemory = (statements: string[]) => statements.length === 1 && statements[0].includes('core_expect') && !statements.some((s) => s.includes('json_agg(i order by'));

describe('tax facts kept in memory', () => {
  it('a rate, a class, the settings and the store changed are taxed on the next change', async () => {
    const poncho = await product(admin, [10000]);
    const cart = await ok(await store('POST', CARTS, {}), 201);
    await add(cart.id, poncho.variants[0]);
    const warm = await add(cart.id, poncho.variants[0]);
    expect(warm.cart).toMatchObject({ subtotal: 20000, tax_total: 3600, total: 23600 });
    expect(fromMemory(warm.statements)).toBe(true);

    await ok(await admin('PUT', `${TAXES}/regions/${regionId}/rates/standard`, { rate: 1000 }));
    const rate = await add(cart.id, poncho.variants[0]);
    expect(rate.cart).toMatchObject({ subtotal: 30000, tax_total: 3000, total: 33000 });
    expect(fromMemory(rate.statements)).toBe(false);

    await ok(await admin('PUT', `${TAXES}/classes/reduced/products`, { product_ids: [poncho.id] }));
    expect((await add(cart.id, poncho.variants[0])).cart).toMatchObject({ subtotal: 40000, tax_total: 3200, total: 43200 });

    await ok(await admin('PATCH', `${TAXES}/settings`, { prices_include_tax: true }));
    const inclusive = (await add(cart.id, poncho.variants[0])).cart;
    // 50000 holds 8 % of tax: 50000 − 50000 / 1.08 = 3703.7, rounded half up.
    expect(inclusive).toMatchObject({ subtotal: 50000, tax_total: 3704, prices_include_tax: true, total: 50000 });

    // Back to the standard class (the assignment removed), at 10 %.
    const [assignment] = (await ok(await admin('GET', `${TAXES}/classes/assignments`)));
    expect((await admin('DELETE', `${TAXES}/classes/assignments/${assignment.id}`)).statusCode).toBe(204);
    expect((await add(cart.id, poncho.variants[0])).cart).toMatchObject({ subtotal: 60000, tax_total: 5455, total: 60000 });

    // The store's own row (its currency, which the settings fall back on) is a tax fact too.
    const before = await taxVersion();
    const renamed = await t.request({ method: 'PUT', url: `/api/v1/tenants/${shop.id}`, headers: { authorization: `Bearer ${t.platformToken}` }, payload: { name: 'Renamed store' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const after = await taxVersion();
    expect(Number(after)).toBe(Number(before) + 1);
  });
});
