import type { TestApp } from '@qhatu/core/testing';
import storeCredit from '@qhatu/plugin-store-credit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, fulfilledOrder, ok, product, requestReturn, returnsApp, shop, shopper, STORE } from './helpers.js';

// Refunds as store credit, with the store-credit plugin installed: its `STORE_CREDIT` grants the
// credit in the refund's transaction; the order's payments are left alone.
let t: TestApp;
beforeAll(async () => {
  t = await returnsApp({ plugins: [...STORE, storeCredit] });
});
afterAll(async () => t?.close());

describe('a refund as store credit', () => {
  it('adds what the return is worth to the customer’s balance, once, and sends nothing through the payments', async () => {
    const s = await shop(t, false);
    const customer = await shopper(t, s);
    const a = await product(s, 2000, 5);
    const o = await fulfilledOrder(t, s, { customer_id: customer.id, email: customer.email, line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    const r = await requestReturn(customer.api, { order_id: o.id, refund_method: 'store_credit', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
    expect(r.refund_method).toBe('store_credit');
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 1 }] }), 200);
    const answers = await Promise.all(Array.from({ length: 3 }, () => s.admin('POST', `/api/v1/returns/${r.id}/refund`, {})));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409]);
    const refunded = answers.find((a) => a.statusCode === 200)!.json().data;
    expect(refunded).toMatchObject({ status: 'refunded', refund_method: 'store_credit', refund_amount: 2360, refunds: [] });
    await t.settle();
    const balance = await ok(await customer.api('GET', '/api/v1/store-credit/me'), 200);
    expect(balance.balances).toEqual([expect.objectContaining({ currency: 'PEN', balance: 2360 })]);
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ status: 'fulfilled', amount_refunded: 0 });
  });

  it('is 422 CUSTOMER_REQUIRED for an order of no customer account', async () => {
    const s = await shop(t, false);
    const a = await product(s, 2000, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 1 }] });
    expectError(await s.admin('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', refund_method: 'store_credit', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }), 422, 'CUSTOMER_REQUIRED');
  });
});
