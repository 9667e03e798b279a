import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { caller, cartWith, CARTS, CHECKOUTS, ok, product, TAXES, taxesApp, type Caller } from './helpers.js';

// With taxes installed, the storefront's hot reads cost one statement more than without (the
// checkout plugin's own budgets: cart read 8, GraphQL cart 8, checkout read 9, add item 12).
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;

beforeAll(async () => {
  t = await taxesApp();
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  await ok(await admin('PATCH', `${TAXES}/settings`, { origin_country: 'PE' }));
  await ok(await admin('POST', `${TAXES}/regions`, { country_code: 'PE', rates: { standard: 1800, reduced: 1000 } }), 201);
  await ok(await admin('POST', `${TAXES}/regions`, { country_code: 'PE', province: 'LORETO', rates: { standard: 0 } }), 201);
});
afterAll(async () => t.close());

const taxStatements = (statements: string[]) => statements.filter((s) => /taxes_/.test(s));

describe('statement budgets with taxes installed', () => {
  it('reads a taxed cart in 2 round trips, the tax tables from memory (this process just priced it)', async () => {
    const a = await product(admin, [11800, 5900]);
    await ok(await admin('PUT', `${TAXES}/classes/reduced/products`, { variant_ids: [a.variants[1]] }));
    const cart = await cartWith(store, [[a.variants[0], 1], [a.variants[1], 2]]);
    const { result, count, statements } = await t.countQueries(() => store('GET', `${CARTS}/${cart.id}`));
    expect(result.json().data).toMatchObject({ tax_total: 1800 + 1073, total: 23600 });
    // Kept at the store's tax version its lock statement read (decision 0049): no tax table is read.
    expect(taxStatements(statements)).toHaveLength(0);
    expect(statements.filter((s) => /^\s*(insert|update|delete)/i.test(s))).toEqual([]);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(2);
  });

  it('reads a taxed cart through GraphQL in 2 round trips, with its tax', async () => {
    const a = await product(admin, [11800]);
    const cart = await cartWith(store, [[a.variants[0], 2]]);
    const query = `query($id: ID!) { cart(id: $id) { id subtotal discountTotal taxTotal pricesIncludeTax total } }`;
    const { result, count, statements } = await t.countQueries(() =>
      t.request({ method: 'POST', url: '/graphql', headers: shop.headers(shop.storefrontToken), payload: { query, variables: { id: cart.id } } }),
    );
    expect(result.json().data.cart).toEqual({ id: cart.id, subtotal: 23600, discountTotal: 0, taxTotal: 3600, pricesIncludeTax: true, total: 23600 });
    expect(taxStatements(statements)).toHaveLength(0);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(2);
  });

  it('adds an item in 2 round trips, the tax tables read in the one that locks the cart (a variant this process has not priced)', async () => {
    const a = await product(admin, [11800]);
    const b = await product(admin, [1000]);
    const cart = await cartWith(store, [[a.variants[0], 1]]);
    const { result, count, statements } = await t.countQueries(() => store('POST', `${CARTS}/${cart.id}/items`, { variant_id: b.variants[0], quantity: 1 }));
    expect(result.statusCode).toBe(201);
    expect(taxStatements(statements)).toHaveLength(1);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(2);
  });

  it('reads a checkout awaiting its shipping step in at most 6 statements, taxed where it ships', async () => {
    const a = await product(admin, [11800]);
    const cart = await cartWith(store, [[a.variants[0], 1]]);
    const made = await ok(await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' }), 201);
    const loreto = { first_name: 'Rosa', last_name: 'Q', address1: 'Jr. Próspero 1', city: 'Iquitos', province: 'Loreto', country_code: 'PE', zip: '16001', phone: '+51965000000' };
    await ok(await store('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: loreto }));
    const { result, count, statements } = await t.countQueries(() => store('GET', `${CHECKOUTS}/${made.id}`));
    // Loreto's own region (no IGV there) wins over the country's.
    expect(result.json().data).toMatchObject({ status: 'shipping_set', tax_total: 0, total: 11800 });
    expect(taxStatements(statements)).toHaveLength(1);
    expect(statements.filter((s) => /^\s*(insert|update|delete)/i.test(s))).toEqual([]);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(6);
  });
});
