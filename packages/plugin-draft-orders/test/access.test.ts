import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, caller, customer, draftApp, DRAFTS, expectError, MISSING, ok, product, staffWith, taxedStore, tokenOf, type Caller, type Draft } from './helpers.js';

// Who may build drafts and set prices, and what another store's ids get: the same 404 as ids that
// do not exist, and references refused as unknown.
class TestClock {
  private at = Date.now();
  now = () => new Date(this.at);
  advance(ms: number) {
    this.at += ms;
  }
}

let t: TestApp;
let clock: TestClock;
let shop: TestTenant;
let admin: Caller;
let stranger: Caller;
beforeAll(async () => {
  clock = new TestClock();
  t = await draftApp({ clock, env: { QHATU_DRAFT_ORDERS_LINK_TTL_DAYS: '2' } });
  ({ tenant: shop, admin } = await taxedStore(t, { includeTax: true }));
  ({ admin: stranger } = await taxedStore(t, { includeTax: true }));
});
afterAll(async () => t?.close());

const draftOf = async (api: Caller, body: Record<string, unknown> = {}): Promise<Draft> => ok(await api('POST', DRAFTS, { email: 'rosa@example.com', shipping_address: ADDRESS, ...body }), 201);

describe('permissions', () => {
  it('lets a clerk build drafts at the customer’s prices, and only draft-orders.override-price set others', async () => {
    const p = await product(admin, 2500);
    const clerk = caller(t, shop, (await staffWith(t, shop, ['draft-orders.read', 'draft-orders.write'])).token);
    const d = await draftOf(clerk, { line_items: [{ variant_id: p.variantId, quantity: 1 }, { title: 'Engraving', unit_price: 500, quantity: 1 }] });
    const override = { price_override: { amount: 1000, reason: 'Matched a competitor' } };
    const refusals = [
      await clerk('PATCH', `${DRAFTS}/${d.id}/line-items/${d.line_items[0].id}`, override),
      await clerk('POST', `${DRAFTS}/${d.id}/line-items`, { variant_id: p.variantId, quantity: 1, ...override }),
      await clerk('PATCH', `${DRAFTS}/${d.id}`, { shipping: { carrier: 'olva', service: 'standard', price: 0, reason: 'Free shipping' } }),
      await clerk('PATCH', `${DRAFTS}/${d.id}`, { discount: { amount: 500, reason: 'Goodwill' } }),
      await clerk('POST', DRAFTS, { line_items: [{ variant_id: p.variantId, quantity: 1, ...override }] }),
    ];
    for (const res of refusals) expect(expectError(res, 403, 'FORBIDDEN').details[0]).toMatchObject({ permission: 'draft-orders.override-price' });
    expect(await ok(await admin('GET', `${DRAFTS}/${d.id}`), 200)).toMatchObject({ total: 3000, discount: null, shipping: null, line_items: [{ price_override: null }, { unit_price: 500 }] });

    const manager = await staffWith(t, shop, ['draft-orders.write', 'draft-orders.override-price']);
    const changed = await ok(await caller(t, shop, manager.token)('PATCH', `${DRAFTS}/${d.id}/line-items/${d.line_items[0].id}`, override), 200);
    expect(changed.line_items[0]).toMatchObject({ unit_price: 1000, price_override: { amount: 1000, reason: 'Matched a competitor', set_by: manager.id } });
    expect(changed.total).toBe(1500);

    const reader = caller(t, shop, (await staffWith(t, shop, ['draft-orders.read'])).token);
    expect((await reader('GET', `${DRAFTS}/${d.id}`)).statusCode).toBe(200);
    expectError(await reader('PATCH', `${DRAFTS}/${d.id}`, { note: 'x' }), 403, 'FORBIDDEN');
    expectError(await caller(t, shop, shop.storefrontToken)('GET', DRAFTS), 403, 'FORBIDDEN');
    expectError(await t.request({ method: 'GET', url: DRAFTS, headers: { 'x-tenant-id': shop.id } }), 401, 'UNAUTHENTICATED');
  });

  it('needs a reason with every price staff set (400)', async () => {
    const p = await product(admin, 2500);
    const d = await draftOf(admin, { line_items: [{ variant_id: p.variantId, quantity: 1 }] });
    expectError(await admin('PATCH', `${DRAFTS}/${d.id}/line-items/${d.line_items[0].id}`, { price_override: { amount: 1000 } }), 400, 'VALIDATION_ERROR');
    expectError(await admin('PATCH', `${DRAFTS}/${d.id}`, { discount: { amount: 500 } }), 400, 'VALIDATION_ERROR');
    expectError(await admin('PATCH', `${DRAFTS}/${d.id}`, { shipping: { carrier: 'x', service: 'y', price: 1 } }), 400, 'VALIDATION_ERROR');
  });
});

describe("another store's ids", () => {
  it('are 404 like missing ones, on every route; its variants and customers are unknown references (422)', async () => {
    const p = await product(stranger, 2500);
    const theirs = await draftOf(stranger, { line_items: [{ variant_id: p.variantId, quantity: 1 }] });
    const line = theirs.line_items[0].id;
    for (const id of [theirs.id, MISSING]) {
      expectError(await admin('GET', `${DRAFTS}/${id}`), 404, 'DRAFT_ORDER_NOT_FOUND');
      expectError(await admin('PATCH', `${DRAFTS}/${id}`, { note: 'mine now' }), 404, 'DRAFT_ORDER_NOT_FOUND');
      expectError(await admin('POST', `${DRAFTS}/${id}/line-items`, { title: 'x', unit_price: 1, quantity: 1 }), 404, 'DRAFT_ORDER_NOT_FOUND');
      expectError(await admin('PATCH', `${DRAFTS}/${id}/line-items/${line}`, { quantity: 2 }), 404, 'DRAFT_ORDER_NOT_FOUND');
      expectError(await admin('DELETE', `${DRAFTS}/${id}/line-items/${line}`), 404, 'DRAFT_ORDER_NOT_FOUND');
      for (const action of ['send-invoice', 'complete', 'reopen', 'cancel']) expectError(await admin('POST', `${DRAFTS}/${id}/${action}`, {}), 404, 'DRAFT_ORDER_NOT_FOUND');
    }
    expect((await ok(await admin('GET', `${DRAFTS}?limit=100`), 200)).map((d: Draft) => d.id)).not.toContain(theirs.id);
    expect(await ok(await stranger('GET', `${DRAFTS}/${theirs.id}`), 200)).toMatchObject({ note: null, status: 'open' });

    const mine = await draftOf(admin);
    const unknown = expectError(await admin('POST', `${DRAFTS}/${mine.id}/line-items`, { variant_id: p.variantId, quantity: 1 }), 422, 'VARIANT_NOT_FOUND');
    expect(unknown.details[0]).toMatchObject({ variant_id: p.variantId });
    const theirBuyer = await customer(stranger);
    expectError(await admin('PATCH', `${DRAFTS}/${mine.id}`, { customer_id: theirBuyer.id }), 422, 'CUSTOMER_NOT_FOUND');
    expectError(await admin('POST', DRAFTS, { customer_id: theirBuyer.id }), 422, 'CUSTOMER_NOT_FOUND');
  });

  it('cannot be reached through GraphQL either; the fields need draft-orders.read', async () => {
    const theirs = await draftOf(stranger);
    const mine = await draftOf(admin, { line_items: [{ title: 'Engraving', unit_price: 700, quantity: 2 }] });
    const query = 'query($id: ID!) { draftOrder(id: $id) { id name status total lineItems { title total } } draftOrders(limit: 100) { edges { node { id } } } }';
    const gql = (tenant: TestTenant, id: string, token?: string) => t.request({ method: 'POST', url: '/graphql', headers: tenant.headers(token), payload: { query, variables: { id } } });
    const found = (await gql(shop, mine.id)).json();
    expect(found.data.draftOrder).toMatchObject({ id: mine.id, status: 'open', total: 1400, lineItems: [{ title: 'Engraving', total: 1400 }] });
    const theirsThroughMine = (await gql(shop, theirs.id)).json();
    expect(theirsThroughMine.data.draftOrder).toBeNull();
    expect(theirsThroughMine.data.draftOrders.edges.map((e: { node: { id: string } }) => e.node.id)).not.toContain(theirs.id);
    const storefront = (await gql(shop, mine.id, shop.storefrontToken)).json();
    expect(storefront.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('invoice links', () => {
  it('work for the link time the platform sets, then 410', async () => {
    const d = await draftOf(admin, { line_items: [{ title: 'Engraving', unit_price: 700, quantity: 1, requires_shipping: false }] });
    const sent = await ok(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, { notify: false }), 200);
    const open = () => t.request({ method: 'GET', url: `/api/v1/draft-orders/invoice?token=${encodeURIComponent(tokenOf(sent.invoice_url))}` });
    clock.advance(47 * 3_600_000);
    expect((await open()).statusCode).toBe(200);
    clock.advance(2 * 3_600_000);
    expectError(await open(), 410, 'INVOICE_EXPIRED');
    // Sent again: a new link, for the same order.
    const again = await ok(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, { notify: false }), 200);
    expect(again.order_id).toBe(sent.order_id);
    expect((await t.request({ method: 'GET', url: `/api/v1/draft-orders/invoice?token=${encodeURIComponent(tokenOf(again.invoice_url))}` })).statusCode).toBe(200);
  });
});
