import type { TestApp } from '@qhatu/core/testing';
import checkout from '@qhatu/plugin-checkout';
import discounts from '@qhatu/plugin-discounts';
import stripe from '@qhatu/plugin-gateway-stripe';
import { StripeDouble } from '@qhatu/plugin-gateway-stripe/testing';
import payments from '@qhatu/plugin-payments';
import { configureGateway, until } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, caller, CARTS, CHECKOUTS, MARKET, marketApp, offer, ok, outbox, PORTAL, product, refused, signIn, store, stripeAccount, vendor, type Store } from './helpers.js';

// The whole path: carts naming vendors' offers, the checkout's order, a card payment (Stripe's
// double on 127.0.0.1), partial refunds, and the ledger and payouts that follow the money.
const account = stripeAccount();
let double: StripeDouble;
let t: TestApp;
let s: Store;
let warehouse: string;

beforeAll(async () => {
  double = await new StripeDouble(new Set([account.secret_key])).start();
  t = await marketApp({ extra: [discounts, checkout, payments, stripe], workers: true, env: { QHATU_GATEWAY_STRIPE_BASE_URL: double.url } });
  s = await store(t);
  await configureGateway(s.admin, 'stripe', account);
  warehouse = (await ok(await s.admin('POST', '/api/v1/inventory/warehouses', { name: 'Lima', code: 'WH-LIMA' }), 201)).id;
});
afterAll(async () => {
  await t?.close();
  await double?.close();
});

type Line = { variant_id: string; quantity: number; offer_id?: string };

/** A cart with `lines` checked out with shipping: the checkout (its order placed). */
async function checkedOut(lines: Line[], shipping = 1500) {
  const cart = await ok(await s.storefront('POST', CARTS, {}), 201);
  for (const line of lines) await ok(await s.storefront('POST', `${CARTS}/${cart.id}/items`, line), 201);
  const made = await ok(await s.storefront('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' }), 201);
  return ok(await s.storefront('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'Olva', service: 'Express', price: shipping } }));
}

async function pay(orderId: string, amount: number): Promise<string> {
  const payment = await ok(await s.admin('POST', '/api/v1/payments', { order_id: orderId, gateway: 'stripe', amount, currency: 'PEN', payment_method_id: 'pm_card_visa' }), 201);
  expect(payment.status).toBe('paid');
  await until(async () => (await ok(await s.admin('GET', `/api/v1/orders/${orderId}`))).status === 'paid');
  return payment.id;
}

const settlement = async (orderId: string) => ok(await s.admin('GET', `${MARKET}/orders/${orderId}/settlement`));
const offerOf = async (vendorId: string, offerId: string) => (await ok(await s.admin('GET', `${MARKET}/vendors/${vendorId}/products`))).find((o: { id: string }) => o.id === offerId);
const pendingPayout = async (vendorId: string) => (await ok(await s.admin('GET', `${MARKET}/vendors/${vendorId}/payouts?status=pending`)))[0];

/** The invariant: the store's revenue, the commissions and the payouts add up to what was paid, net of refunds. */
async function expectBalanced(orderId: string) {
  const order = await ok(await s.admin('GET', `/api/v1/orders/${orderId}`));
  const split = await settlement(orderId);
  expect(split.paid).toBe(order.amount_paid - order.amount_refunded);
  expect(split.store_revenue + split.commissions + split.payouts).toBe(split.paid);
  return split;
}

describe("an order with two vendors' offers and a store product", () => {
  it('is priced at the offers, holds and sells their stock, splits the money exactly and keeps it exact through partial refunds', async () => {
    const awana = await vendor(s, { default_commission_pct: 12.5 });
    const inti = await vendor(s, { default_commission_pct: 10 });
    const chompa = await product(s, [1500]);
    const poncho = await product(s, [2500]);
    const own = await product(s, [5000]);
    await ok(await s.admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: own.variants[0], delta: 5, reason: 'received' }));
    const a = await offer(s, awana.id, chompa.id, { price_override: 999, stock: 4 });
    const b = await offer(s, inti.id, poncho.id, { price_override: 1999, stock: 5, commission_pct: 7.25 });

    const placed = await checkedOut([
      { variant_id: chompa.variants[0], quantity: 1, offer_id: a.id },
      { variant_id: poncho.variants[0], quantity: 2, offer_id: b.id },
      { variant_id: own.variants[0], quantity: 1 },
    ]);
    // 999 + 2 × 1999 + 5000 + 1500 shipping
    expect(placed).toMatchObject({ status: 'payment_pending', subtotal: 9997, total: 11497 });
    expect(placed.line_items.map((l: { offer_id: string | null; unit_price: number }) => [l.offer_id, l.unit_price])).toEqual([[a.id, 999], [b.id, 1999], [null, 5000]]);
    const order = await ok(await s.admin('GET', `/api/v1/orders/${placed.order_id}`));
    expect(order.line_items.map((l: { offer_id: string | null; unit_price_amount: number }) => [l.offer_id, l.unit_price_amount])).toEqual([[a.id, 999], [b.id, 1999], [null, 5000]]);
    expect(await offerOf(awana.id, a.id)).toMatchObject({ stock: 4, reserved: 1, available: 3 });
    expect(await offerOf(inti.id, b.id)).toMatchObject({ stock: 5, reserved: 2, available: 3 });
    expect((await s.admin('GET', `${MARKET}/orders/${placed.order_id}/settlement`)).json().error.code).toBe('SETTLEMENT_NOT_FOUND');

    const payment = await pay(placed.order_id, 11497);
    // Sold: off the stock, no longer held.
    expect(await offerOf(awana.id, a.id)).toMatchObject({ stock: 3, reserved: 0, available: 3 });
    expect(await offerOf(inti.id, b.id)).toMatchObject({ stock: 3, reserved: 0, available: 3 });
    const split = await expectBalanced(placed.order_id);
    // 12.5 % of 999 is 124.875: 125, half up. 7.25 % of 3998 is 289.855: 290.
    expect(split).toMatchObject({ paid: 11497, store_revenue: 6500, commissions: 415, payouts: 4582 });
    expect(split.vendors).toEqual(expect.arrayContaining([{ vendor_id: awana.id, commission: 125, payout: 874 }, { vendor_id: inti.id, commission: 290, payout: 3708 }]));
    expect(split.entries.filter((e: { vendor_id: string }) => e.vendor_id === inti.id)[0]).toMatchObject({ kind: 'sale', commission_pct: 7.25, offer_id: b.id });
    expect(await pendingPayout(awana.id)).toMatchObject({ status: 'pending', amount: 874, currency: 'PEN' });
    expect(await pendingPayout(inti.id)).toMatchObject({ status: 'pending', amount: 3708 });
    expect((await outbox(t, 'marketplace.commission.recorded', 'order_id', placed.order_id))[0].data).toMatchObject({ order_id: placed.order_id, store_amount: 6500 });

    // Partial refunds in odd amounts: every step adds up, payouts follow.
    let refunded = 0;
    for (const amount of [1000, 3333, 1, 2]) {
      await ok(await s.admin('POST', `/api/v1/payments/${payment}/refund`, { amount, reason: 'requested_by_customer' }), 201);
      refunded += amount;
      await until(async () => (await settlement(placed.order_id)).paid === 11497 - refunded);
      const now = await expectBalanced(placed.order_id);
      expect(now.paid).toBe(11497 - refunded);
      for (const v of [awana, inti]) expect((await pendingPayout(v.id)).amount).toBe(now.vendors.find((x: { vendor_id: string }) => x.vendor_id === v.id).payout);
    }
    const part = await settlement(placed.order_id);
    // Each part gave back in proportion: within a cent of its share of 4336 out of 11497.
    expect(Math.abs(6500 - part.store_revenue - (6500 * 4336) / 11497)).toBeLessThan(2);
    expect((await outbox(t, 'marketplace.commission.reversed', 'order_id', placed.order_id)).length).toBe(4);

    // The rest: everything is given back; units not shipped go back to the offers.
    await ok(await s.admin('POST', `/api/v1/payments/${payment}/refund`, { amount: 0 }), 201);
    await until(async () => (await ok(await s.admin('GET', `/api/v1/orders/${placed.order_id}`))).status === 'refunded');
    const none = await expectBalanced(placed.order_id);
    expect(none).toMatchObject({ paid: 0, store_revenue: 0, commissions: 0, payouts: 0 });
    expect(await pendingPayout(awana.id)).toMatchObject({ amount: 0 });
    expect(await offerOf(awana.id, a.id)).toMatchObject({ stock: 4, reserved: 0 });
    expect(await offerOf(inti.id, b.id)).toMatchObject({ stock: 5, reserved: 0 });
  });
});

describe('payouts', () => {
  it('gather a vendor\'s sales until the store processes them; paid with a reference; later money opens a new one', async () => {
    const v = await vendor(s, { default_commission_pct: 20 });
    const p = await product(s, [3000]);
    const o = await offer(s, v.id, p.id, { price_override: 2500, stock: 10 });
    const first = await checkedOut([{ variant_id: p.variants[0], quantity: 2, offer_id: o.id }], 0);
    await pay(first.order_id, 5000);
    const second = await checkedOut([{ variant_id: p.variants[0], quantity: 1, offer_id: o.id }], 0);
    const secondPayment = await pay(second.order_id, 2500);
    const payout = await pendingPayout(v.id);
    expect(payout).toMatchObject({ amount: 4000 + 2000, entry_count: 2, reference: null });

    const at = (status: string, body: Record<string, unknown> = {}) => s.admin('PATCH', `${MARKET}/payouts/${payout.id}/status`, { status, ...body });
    expect(await refused(await at('paid'), 400)).toBe('VALIDATION_ERROR');
    expect(await refused(await at('failed', { failure_reason: 'x' }), 409)).toBe('INVALID_STATE_TRANSITION');
    expect(await ok(await at('processing'))).toMatchObject({ status: 'processing', processing_at: expect.any(String) });
    expect(await ok(await at('failed', { failure_reason: 'Cuenta bancaria cerrada' }))).toMatchObject({ status: 'failed', failure_reason: 'Cuenta bancaria cerrada' });
    expect(await ok(await at('processing'))).toMatchObject({ status: 'processing' });
    // Money after the payout left pending gathers in a new one.
    await ok(await s.admin('POST', `/api/v1/payments/${secondPayment}/refund`, { amount: 500 }), 201);
    await until(async () => (await pendingPayout(v.id))?.amount === -400);
    const paid = await ok(await at('paid', { reference: 'BCP-000123' }));
    expect(paid).toMatchObject({ status: 'paid', reference: 'BCP-000123', amount: 6000, paid_at: expect.any(String) });
    expect(await refused(await at('processing'), 409)).toBe('INVALID_STATE_TRANSITION');
    expect((await outbox(t, 'marketplace.payout.paid', 'id', payout.id))[0].data).toMatchObject({ id: payout.id, vendor_id: v.id, amount: 6000, reference: 'BCP-000123' });

    // A payout of nothing or less cannot be paid: it keeps gathering.
    const owed = await pendingPayout(v.id);
    expect(await refused(await s.admin('PATCH', `${MARKET}/payouts/${owed.id}/status`, { status: 'processing' }), 422)).toBe('PAYOUT_NOT_PAYABLE');
    expect(await ok(await s.admin('GET', `${MARKET}/vendors/${v.id}/payouts?status=paid`))).toHaveLength(1);
    expect((await ok(await s.admin('GET', `${MARKET}/vendors/${v.id}/payouts`))).map((x: { id: string }) => x.id)).toEqual([owed.id, payout.id]);
    await expectBalanced(second.order_id);
  });

  it('are shown in the vendor portal to their own vendor only', async () => {
    const a = await vendor(s);
    const b = await vendor(s);
    const p = await product(s, [1000]);
    const q = await product(s, [1000]);
    const oa = await offer(s, a.id, p.id, { price_override: 1000, stock: 5 });
    const ob = await offer(s, b.id, q.id, { price_override: 2000, stock: 5 });
    const placed = await checkedOut([{ variant_id: p.variants[0], quantity: 1, offer_id: oa.id }, { variant_id: q.variants[0], quantity: 1, offer_id: ob.id }], 0);
    await pay(placed.order_id, 3000);
    const own = async (v: { email: string }) => ok(await caller(t, s.tenant, await signIn(s, v.email))('GET', `${PORTAL}/payouts`));
    expect(await own(a)).toEqual([expect.objectContaining({ vendor_id: a.id, amount: 900, status: 'pending' })]);
    expect(await own(b)).toEqual([expect.objectContaining({ vendor_id: b.id, amount: 1800, status: 'pending' })]);
  });

  it('are listed store-wide by status, and read one by one (404 PAYOUT_NOT_FOUND)', async () => {
    const pending = await ok(await s.admin('GET', `${MARKET}/payouts?status=pending`));
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((p: { status: string }) => p.status === 'pending')).toBe(true);
    const paid = await ok(await s.admin('GET', `${MARKET}/payouts?filter[status]=paid`));
    expect(paid.every((p: { status: string }) => p.status === 'paid')).toBe(true);
    expect(await ok(await s.admin('GET', `${MARKET}/payouts/${pending[0].id}`))).toEqual(pending[0]);
    expect(await refused(await s.admin('GET', `${MARKET}/payouts/00000000-0000-4000-8000-000000000001`), 404)).toBe('PAYOUT_NOT_FOUND');
    const first = (await s.admin('GET', `${MARKET}/payouts?limit=1`)).json();
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 1 });
    expect(await refused(await s.admin('GET', `${MARKET}/payouts?status=done`), 400)).toBe('VALIDATION_ERROR');
  });
});

describe('a cart line on an offer', () => {
  it('is limited by the offer: more than it has is 409, another product\'s or an unknown offer 422, a second seller for the same variant 409', async () => {
    const v = await vendor(s);
    const p = await product(s, [1000]);
    const q = await product(s, [1000]);
    const o = await offer(s, v.id, p.id, { price_override: 800, stock: 3 });
    const cart = await ok(await s.storefront('POST', CARTS, {}), 201);
    const add = (line: Line) => s.storefront('POST', `${CARTS}/${cart.id}/items`, line);
    expect(await refused(await add({ variant_id: p.variants[0], quantity: 4, offer_id: o.id }), 409)).toBe('OFFER_OUT_OF_STOCK');
    expect((await ok(await add({ variant_id: p.variants[0], quantity: 2, offer_id: o.id }), 201)).total).toBe(1600);
    expect(await refused(await add({ variant_id: p.variants[0], quantity: 2, offer_id: o.id }), 409)).toBe('OFFER_OUT_OF_STOCK');
    // The same variant without offer_id joins the offer's line: it keeps its seller and price.
    const joined = await ok(await add({ variant_id: p.variants[0], quantity: 1 }), 201);
    expect(joined.line_items).toEqual([expect.objectContaining({ offer_id: o.id, quantity: 3, unit_price: 800 })]);
    expect(await refused(await add({ variant_id: q.variants[0], quantity: 1, offer_id: o.id }), 422)).toBe('OFFER_NOT_AVAILABLE');
    expect(await refused(await add({ variant_id: q.variants[0], quantity: 1, offer_id: '00000000-0000-4000-8000-000000000001' }), 422)).toBe('OFFER_NOT_AVAILABLE');
    const second = await offer(s, (await vendor(s)).id, p.id, { price_override: 700, stock: 3 });
    expect(await refused(await add({ variant_id: p.variants[0], quantity: 1, offer_id: second.id }), 409)).toBe('OFFER_MISMATCH');
    const theirs = await store(t);
    const foreign = await offer(theirs, (await vendor(theirs)).id, (await product(theirs)).id);
    expect(await refused(await add({ variant_id: p.variants[0], quantity: 1, offer_id: foreign.id }), 409)).toBe('OFFER_MISMATCH');
    expect(await refused(await add({ variant_id: q.variants[0], quantity: 1, offer_id: foreign.id }), 422)).toBe('OFFER_NOT_AVAILABLE');
  });

  it("of a suspended vendor no longer sells; the vendor's paid orders are still paid out", async () => {
    const v = await vendor(s, { default_commission_pct: 10 });
    const p = await product(s, [2000]);
    const o = await offer(s, v.id, p.id, { price_override: 2000, stock: 5 });
    const sold = await checkedOut([{ variant_id: p.variants[0], quantity: 1, offer_id: o.id }], 0);
    await pay(sold.order_id, 2000);
    const cart = await ok(await s.storefront('POST', CARTS, {}), 201);
    await ok(await s.storefront('POST', `${CARTS}/${cart.id}/items`, { variant_id: p.variants[0], quantity: 1, offer_id: o.id }), 201);

    await ok(await s.admin('PATCH', `${MARKET}/vendors/${v.id}/status`, { status: 'suspended' }));
    expect((await ok(await s.storefront('GET', `${CARTS}/${cart.id}`))).line_items).toEqual([]);
    expect(await refused(await s.storefront('POST', `${CARTS}/${cart.id}/items`, { variant_id: p.variants[0], quantity: 1, offer_id: o.id }), 422)).toBe('OFFER_NOT_AVAILABLE');
    const payout = await pendingPayout(v.id);
    expect(payout.amount).toBe(1800);
    expect(await ok(await s.admin('PATCH', `${MARKET}/payouts/${payout.id}/status`, { status: 'paid', reference: 'IB-77' }))).toMatchObject({ status: 'paid' });
  });

  it('is given back when its checkout is abandoned (the order cancelled unpaid)', async () => {
    const v = await vendor(s);
    const p = await product(s, [1000]);
    const o = await offer(s, v.id, p.id, { stock: 2 });
    const placed = await checkedOut([{ variant_id: p.variants[0], quantity: 2, offer_id: o.id }], 0);
    expect(await offerOf(v.id, o.id)).toMatchObject({ reserved: 2, available: 0 });
    await ok(await s.storefront('POST', `${CHECKOUTS}/${placed.id}/abandon`));
    expect(await offerOf(v.id, o.id)).toMatchObject({ stock: 2, reserved: 0, available: 2 });
    expect((await ok(await s.admin('GET', `/api/v1/orders/${placed.order_id}`))).status).toBe('cancelled');
  });
});

describe('the last unit of an offer', () => {
  it('goes to exactly one of 20 concurrent checkouts; the others are 409 OFFER_OUT_OF_STOCK', async () => {
    const v = await vendor(s);
    const p = await product(s, [3000]);
    const o = await offer(s, v.id, p.id, { price_override: 2800, stock: 1 });
    const checkouts = [];
    for (let n = 0; n < 20; n++) {
      const cart = await ok(await s.storefront('POST', CARTS, {}), 201);
      await ok(await s.storefront('POST', `${CARTS}/${cart.id}/items`, { variant_id: p.variants[0], quantity: 1, offer_id: o.id }), 201);
      checkouts.push(await ok(await s.storefront('POST', CHECKOUTS, { cart_id: cart.id, email: `c${n}@example.com` }), 201));
    }
    const answers = await Promise.all(
      checkouts.map((c) => s.storefront('PUT', `${CHECKOUTS}/${c.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'Olva', service: 'Express', price: 0 } })),
    );
    const won = answers.filter((a) => a.statusCode === 200);
    expect(won).toHaveLength(1);
    const lost = answers.filter((a) => a.statusCode !== 200);
    expect(lost.map((a) => `${a.statusCode} ${a.json().error.code}`)).toEqual(Array(19).fill('409 OFFER_OUT_OF_STOCK'));
    expect(await offerOf(v.id, o.id)).toMatchObject({ stock: 1, reserved: 1, available: 0 });
    // The losers wrote nothing: their checkouts still await the shipping step, without an order.
    for (const [n, c] of checkouts.entries()) {
      if (answers[n].statusCode === 200) continue;
      expect(await ok(await s.storefront('GET', `${CHECKOUTS}/${c.id}`))).toMatchObject({ status: 'pending', order_id: null });
    }
    await pay(won[0].json().data.order_id, 2800);
    expect(await offerOf(v.id, o.id)).toMatchObject({ stock: 0, reserved: 0, available: 0 });
  });
});

describe('the invariant', () => {
  it('holds for discounted split orders through a (seeded) random sequence of partial refunds, to the cent', async () => {
    await ok(await s.admin('POST', '/api/v1/discounts/coupons', { code: 'INTI1537', type: 'percentage', value: 1537 }), 201);
    const a = await vendor(s, { default_commission_pct: 33.33 });
    const b = await vendor(s, { default_commission_pct: 0.01 });
    const pa = await product(s, [777]);
    const pb = await product(s, [1234]);
    const own = await product(s, [999]);
    await ok(await s.admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: own.variants[0], delta: 50, reason: 'received' }));
    const oa = await offer(s, a.id, pa.id, { price_override: 1013, stock: 50 });
    const ob = await offer(s, b.id, pb.id, { price_override: 3331, stock: 50, commission_pct: 99.99 });
    let seed = 20261125;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 3; round++) {
      const cart = await ok(await s.storefront('POST', CARTS, {}), 201);
      await ok(await s.storefront('POST', `${CARTS}/${cart.id}/items`, { variant_id: pa.variants[0], quantity: 1 + rand(3), offer_id: oa.id }), 201);
      await ok(await s.storefront('POST', `${CARTS}/${cart.id}/items`, { variant_id: pb.variants[0], quantity: 1 + rand(3), offer_id: ob.id }), 201);
      await ok(await s.storefront('POST', `${CARTS}/${cart.id}/items`, { variant_id: own.variants[0], quantity: 1 + rand(2) }), 201);
      const discounted = await ok(await s.storefront('POST', `${CARTS}/${cart.id}/coupon`, { code: 'INTI1537' }));
      expect(discounted.discount_total).toBeGreaterThan(0);
      const made = await ok(await s.storefront('POST', CHECKOUTS, { cart_id: cart.id, email: 'kusi@example.com' }), 201);
      const placed = await ok(await s.storefront('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'Olva', service: 'Express', price: 700 + rand(500) } }));
      const payment = await pay(placed.order_id, placed.total);
      const sold = await expectBalanced(placed.order_id);
      expect(sold.paid).toBe(placed.total);
      expect(sold.commissions).toBeGreaterThan(0);
      let left = placed.total;
      for (let step = 0; step < 5 && left > 0; step++) {
        const amount = Math.min(left, 1 + rand(Math.max(1, Math.floor(placed.total / 3))));
        await ok(await s.admin('POST', `/api/v1/payments/${payment}/refund`, { amount }), 201);
        left -= amount;
        await until(async () => (await settlement(placed.order_id)).paid === left);
        await expectBalanced(placed.order_id);
      }
      if (round < 2 && left > 0) {
        await ok(await s.admin('POST', `/api/v1/payments/${payment}/refund`, { amount: 0 }), 201);
        await until(async () => (await settlement(placed.order_id)).paid === 0);
        expect(await expectBalanced(placed.order_id)).toMatchObject({ store_revenue: 0, commissions: 0, payouts: 0 });
      }
    }
    // Each vendor's pending payout is exactly what its entries left it.
    for (const v of [a, b]) {
      const payout = await pendingPayout(v.id);
      const entries = await t.app.orm.em.getConnection().execute<Array<{ sum: string }>>(`select coalesce(sum(payout), 0) as sum from marketplace_ledger_entry where payout_id = ?`, [payout.id]);
      expect(payout.amount).toBe(Number(entries[0].sum));
    }
  }, 120_000); // a few dozen orders, payments and refunds in sequence
});
