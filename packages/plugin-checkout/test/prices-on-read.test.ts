import { TenantContext } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutCompletion } from '../src/index.js';
import { addItem, ADDRESS, caller, CARTS, CHECKOUTS, checkoutApp, createCart, createCoupon, createProduct, createVolumeTier, RATE, type Caller } from './helpers.js';

// A read answers what will be charged: the catalog's price now, the volume discounts now, the
// coupon judged now; the checkout then charges exactly that.
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
beforeAll(async () => {
  t = await checkoutApp();
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
});
afterAll(async () => t?.close());

const gql = (query: string, variables: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/graphql', headers: shop.headers(shop.storefrontToken), payload: { query, variables } });
const gqlCart = async (id: string) =>
  (await gql(`query($id: ID!) { cart(id: $id) { id subtotal total lines { quantity variant { id price } } } }`, { id })).json().data.cart;
const setPrice = async (productId: string, variantId: string, price: number) =>
  expect((await admin('PATCH', `/api/v1/catalog/products/${productId}/variants/${variantId}`, { price })).statusCode).toBe(200);
const rawRow = async (id: string) =>
  (await t.app.orm.em.getConnection().execute<Array<{ subtotal: string; total: string; updated_at: Date }>>(`select subtotal, total, updated_at from checkout_cart where id = ?`, [id]))[0];

describe('reading a cart', () => {
  it('shows the new catalog price and a volume discount created after the last change (REST and GraphQL), without writing', async () => {
    const scarf = await createProduct(admin, { title: 'Scarf', variants: [{ title: 'Grey', price: 1000 }] });
    const variantId = scarf.variants[0].id;
    const cart = await createCart(store);
    const added = await addItem(store, cart.id, variantId, 4);
    const before = await rawRow(cart.id);

    await setPrice(scarf.id, variantId, 1200);
    let read = (await store('GET', `${CARTS}/${cart.id}`)).json().data;
    expect(read).toMatchObject({ subtotal: 4800, discount_total: 0, total: 4800 });
    expect(read.line_items[0]).toMatchObject({ unit_price: 1200, subtotal: 4800, volume_discount: 0, total: 4800 });
    expect(await gqlCart(cart.id)).toEqual({ id: cart.id, subtotal: 4800, total: 4800, lines: [{ quantity: 4, variant: { id: variantId, price: 1200 } }] });

    await createVolumeTier(admin, scarf.id, 3, 1000); // 10% off from 3 units
    read = (await store('GET', `${CARTS}/${cart.id}`)).json().data;
    expect(read).toMatchObject({ subtotal: 4800, discount_total: 480, total: 4320 });
    expect(read.line_items[0]).toMatchObject({ unit_price: 1200, volume_discount: 480, total: 4320 });
    expect((await gqlCart(cart.id)).total).toBe(4320);

    // Computed on read: the stored row, its updated_at and its expiry stay as the last change left them.
    expect(await rawRow(cart.id)).toEqual(before);
    expect(read.updated_at).toBe(added.updated_at);
    expect(read.expires_at).toBe(added.expires_at);
  });

  it('shows a coupon that stopped applying with applies: false and no discount', async () => {
    const hat = await createProduct(admin, { title: 'Hat', variants: [{ title: 'Red', price: 2000 }] });
    const coupon = await createCoupon(admin, { type: 'fixed_amount', value: 500, currency: 'PEN' });
    const cart = await createCart(store);
    await addItem(store, cart.id, hat.variants[0].id, 1);
    expect((await store('POST', `${CARTS}/${cart.id}/coupon`, { code: coupon.code })).json().data).toMatchObject({ total: 1500, discount_total: 500 });
    expect((await admin('PATCH', `/api/v1/discounts/coupons/${coupon.id}`, { is_active: false })).statusCode).toBe(200);
    const read = (await store('GET', `${CARTS}/${cart.id}`)).json().data;
    expect(read).toMatchObject({ total: 2000, discount_total: 0, coupon: { code: coupon.code, applies: false, reason: expect.any(String), discount_amount: 0 } });
  });

  it('drops from the answer a line whose product is no longer for sale', async () => {
    const kept = await createProduct(admin, { title: 'Kept', variants: [{ title: 'A', price: 700 }] });
    const gone = await createProduct(admin, { title: 'Gone', variants: [{ title: 'B', price: 300 }] });
    const cart = await createCart(store);
    await addItem(store, cart.id, kept.variants[0].id, 1);
    await addItem(store, cart.id, gone.variants[0].id, 1);
    expect((await admin('PATCH', `/api/v1/catalog/products/${gone.id}`, { status: 'archived' })).statusCode).toBe(200);
    const read = (await store('GET', `${CARTS}/${cart.id}`)).json().data;
    expect(read).toMatchObject({ item_count: 1, subtotal: 700, total: 700 });
    expect(read.line_items.map((l: { variant_id: string }) => l.variant_id)).toEqual([kept.variants[0].id]);
  });
});

describe('the checkout charges what the read showed', () => {
  it('cart read → checkout → a later price change shown by the checkout read → the order and the payment at that total', async () => {
    const poncho = await createProduct(admin, { title: 'Poncho', variants: [{ title: 'M', price: 5000 }] });
    const variantId = poncho.variants[0].id;
    const cart = await createCart(store);
    await addItem(store, cart.id, variantId, 2);
    await setPrice(poncho.id, variantId, 5500);
    await createVolumeTier(admin, poncho.id, 2, 500); // 5% off from 2 units
    const shown = (await store('GET', `${CARTS}/${cart.id}`)).json().data;
    expect(shown).toMatchObject({ subtotal: 11000, discount_total: 550, total: 10450 });

    const made = await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' });
    expect(made.statusCode).toBe(201);
    expect(made.json().data).toMatchObject({ subtotal: shown.subtotal, discount_total: shown.discount_total, total: shown.total });
    // The checkout's lines are the cart's, with their share of the discounts and their tax (none without the taxes plugin).
    expect(made.json().data.line_items).toEqual(shown.line_items.map((l: { volume_discount: number }) => ({ ...l, discount_amount: l.volume_discount, tax_class: 'standard', tax_rate: 0, tax_amount: 0, backordered_quantity: 0 })));

    // Before its order is placed the checkout follows the catalog too.
    await setPrice(poncho.id, variantId, 6000);
    const checkoutRead = (await store('GET', `${CHECKOUTS}/${made.json().data.id}`)).json().data;
    expect(checkoutRead).toMatchObject({ status: 'pending', subtotal: 12000, discount_total: 600, total: 11400 });
    expect(checkoutRead.line_items[0]).toMatchObject({ unit_price: 6000, volume_discount: 600, total: 11400 });

    const shipped = await store('PUT', `${CHECKOUTS}/${checkoutRead.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE });
    expect(shipped.statusCode).toBe(200);
    const awaiting = shipped.json().data;
    expect(awaiting).toMatchObject({ status: 'payment_pending', subtotal: 12000, discount_total: 600, shipping_total: RATE.price, total: 11400 + RATE.price });
    const order = (await admin('GET', `/api/v1/orders/${awaiting.order_id}`)).json().data;
    expect(order).toMatchObject({ subtotal: 12000, discount_total: 600, shipping_total: RATE.price, total: 11400 + RATE.price, currency: 'PEN' });

    // From the order on, the checkout is the order's snapshot: later catalog changes do not move it.
    await setPrice(poncho.id, variantId, 9000);
    expect((await store('GET', `${CHECKOUTS}/${awaiting.id}`)).json().data).toEqual(awaiting);
    const completed = await TenantContext.run({ tenantId: shop.id }, () =>
      t.app.container.resolve(CheckoutCompletion).orderPaid({ id: awaiting.order_id, status: 'paid' }),
    );
    expect(completed?.status).toBe('completed');
  });
});

describe('SQL statements of a read', () => {
  it('reads a priced cart (two lines, a volume tier, a coupon) in at most 7 statements', async () => {
    const a = await createProduct(admin, { variants: [{ title: 'A', price: 1000 }] });
    const b = await createProduct(admin, { variants: [{ title: 'B', price: 300 }] });
    await createVolumeTier(admin, b.id, 2, 500);
    const coupon = await createCoupon(admin, { type: 'percentage', value: 1000 });
    const cart = await createCart(store);
    await addItem(store, cart.id, a.variants[0].id, 1);
    await addItem(store, cart.id, b.variants[0].id, 2);
    await store('POST', `${CARTS}/${cart.id}/coupon`, { code: coupon.code });
    const { result, count, statements } = await t.countQueries(() => store('GET', `${CARTS}/${cart.id}`));
    expect(result.statusCode).toBe(200);
    expect(result.json().data).toMatchObject({ subtotal: 1600, discount_total: 30 + 157, total: 1413 });
    expect(statements.filter((s) => /^\s*(insert|update|delete)/i.test(s))).toEqual([]);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(7);
  });

  it('reads a priced cart through GraphQL in at most 6 statements', async () => {
    const a = await createProduct(admin, { variants: [{ title: 'A', price: 1000 }] });
    const cart = await createCart(store);
    await addItem(store, cart.id, a.variants[0].id, 2);
    const { result, count, statements } = await t.countQueries(() => gql(`query($id: ID!) { cart(id: $id) { id total } }`, { id: cart.id }));
    expect(result.json().data.cart.total).toBe(2000);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(6);
  });

  it('reads a checkout awaiting its shipping step in at most 5 statements', async () => {
    const a = await createProduct(admin, { variants: [{ title: 'A', price: 1000 }] });
    const cart = await createCart(store);
    await addItem(store, cart.id, a.variants[0].id, 1);
    const made = (await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com' })).json().data;
    const { result, count, statements } = await t.countQueries(() => store('GET', `${CHECKOUTS}/${made.id}`));
    expect(result.statusCode).toBe(200);
    expect(statements.filter((s) => /^\s*(insert|update|delete)/i.test(s))).toEqual([]);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(5);
  });
});
