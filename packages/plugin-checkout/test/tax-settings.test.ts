import type { TestApp, TestTenant } from '@qhatu/core/testing';
import taxes from '@qhatu/plugin-taxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, CARTS, checkoutApp } from './helpers.js';

// Whether a cart's prices include the tax is the store's tax settings' say (the taxes plugin: its
// prices_include_tax, by default true for a PEN store): a new empty cart answers what its reads do.
let t: TestApp;
beforeAll(async () => {
  t = await checkoutApp({ plugins: [taxes] });
});
afterAll(async () => t?.close());

const GQL = `query($id: ID!) { cart(id: $id) { pricesIncludeTax total } }`;

async function agree(tenant: TestTenant, expected: boolean) {
  const store = caller(t, tenant, tenant.storefrontToken);
  const made = await store('POST', CARTS, {});
  expect(made.statusCode, made.body).toBe(201);
  const cart = made.json().data;
  expect(cart.prices_include_tax).toBe(expected);
  expect((await store('GET', `${CARTS}/${cart.id}`)).json().data.prices_include_tax).toBe(expected);
  const gql = await t.request({ method: 'POST', url: '/graphql', headers: tenant.headers(tenant.storefrontToken), payload: { query: GQL, variables: { id: cart.id } } });
  expect(gql.json().data.cart).toEqual({ pricesIncludeTax: expected, total: 0 });
  // The stored row says the same (the abandoned-carts sweep and reports read it).
  const [row] = await t.app.orm.em.getConnection().execute<Array<{ prices_include_tax: boolean }>>('select prices_include_tax from checkout_cart where id = ?', [cart.id]);
  expect(row.prices_include_tax).toBe(expected);
}

describe('a new empty cart', () => {
  it('says prices include the tax in a PEN store (the default), as its GET does', async () => {
    await agree(await t.createTenant({ currency: 'PEN' }), true);
  });

  it('says they do not in a USD store (the default), as its GET does', async () => {
    await agree(await t.createTenant({ currency: 'USD' }), false);
  });

  it("follows the store's own setting, either way", async () => {
    const pen = await t.createTenant({ currency: 'PEN' });
    expect((await caller(t, pen)('PATCH', '/api/v1/taxes/settings', { prices_include_tax: false })).statusCode).toBe(200);
    await agree(pen, false);
    const usd = await t.createTenant({ currency: 'USD' });
    expect((await caller(t, usd)('PATCH', '/api/v1/taxes/settings', { prices_include_tax: true })).statusCode).toBe(200);
    await agree(usd, true);
  });

  it('costs no statement more to make (the tax settings are read with the store currency)', async () => {
    const shop = await t.createTenant({ currency: 'PEN' });
    const store = caller(t, shop, shop.storefrontToken);
    await store('GET', `${CARTS}/00000000-0000-4000-8000-000000000001`); // the key's lookup, cached from then on
    const { result, count, statements } = await t.countQueries(() => store('POST', CARTS, {}));
    expect(result.json().data.prices_include_tax).toBe(true);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(5);
  });
});
