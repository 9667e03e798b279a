import { randomInt, randomUUID } from 'node:crypto';
import type { TestApp } from '@qhatu/core/testing';
import b2b, { rucCheckDigit } from '@qhatu/plugin-b2b';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import returns from '../src/index.js';
import { ADDRESS, expectError, fulfilledOrder, ok, outbox, pay, product, requestReturn, returnsApp, shop, STORE, type Order, type Shop } from './helpers.js';

// An order placed on a company's account (a B2B quote converted) is refunded to that account: what
// its returned goods are worth comes off what the company owes for it, so its available credit
// grows back by exactly that, once, however many refunds are asked at once; what the company had
// paid already goes back through the order's payments.
const B2B = '/api/v1/b2b';
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await returnsApp({ plugins: [...STORE.filter((p) => p !== returns), b2b, returns] });
  s = await shop(t, false);
});
afterAll(async () => t?.close());

const ruc = () => {
  const ten = `20${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
  return ten + rucCheckDigit(ten);
};

/** A company with a credit limit of 1,000.00 and an order on account of `quantity` units at 100.00 (plus 18 % tax), not fulfilled yet. */
async function orderOnAccount(quantity: number): Promise<{ company: string; order: Order; variantId: string }> {
  const company = (await ok(await s.admin('POST', `${B2B}/customers`, { company_name: 'Andes Distribuciones S.A.C.', ruc: ruc(), email: `compras-${randomUUID().slice(0, 6)}@andes.pe`, credit_limit: 100_000 }), 201)).id as string;
  const { variantId } = await product(s, 10_000, 10);
  const q = await ok(await s.admin('POST', `${B2B}/quotes`, { b2b_customer_id: company, items: [{ variant_id: variantId, quantity }] }), 201);
  await ok(await s.admin('POST', `${B2B}/quotes/${q.id}/send`), 200);
  await ok(await s.admin('POST', `${B2B}/quotes/${q.id}/accept`), 200);
  const converted = await ok(await s.admin('POST', `${B2B}/quotes/${q.id}/convert`, { shipping_address: ADDRESS }), 200);
  const order = await ok(await s.admin('GET', `/api/v1/orders/${converted.order_id}`), 200);
  return { company, order, variantId };
}

const creditOf = async (company: string) => ok(await s.admin('GET', `${B2B}/customers/${company}/credit`), 200);
const fulfil = async (orderId: string) => ok(await s.admin('POST', `/api/v1/orders/${orderId}/fulfillments`, {}), 201);

describe('a return of an order on account', () => {
  it('gives its worth back to the company’s credit, once, with receipts and refunds asked at once', async () => {
    const { company, order } = await orderOnAccount(4);
    expect(order).toMatchObject({ customer_id: null, total: 47_200, amount_paid: 0 });
    expect(await creditOf(company)).toMatchObject({ credit_limit: 100_000, open_balance: 47_200, available: 52_800 });
    await fulfil(order.id);
    const line = order.line_items[0].id;

    // Staff ask; an order on account is refunded to the account unless asked otherwise.
    const r = await requestReturn(s.admin, { order_id: order.id, lines: [{ line_item_id: line, quantity: 1 }] });
    expect(r.refund_method).toBe('account');
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
    const receipts = await Promise.all(Array.from({ length: 6 }, () => s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 1 }] })));
    expect(receipts.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const refunds = await Promise.all(Array.from({ length: 6 }, () => s.admin('POST', `/api/v1/returns/${r.id}/refund`, {})));
    expect(refunds.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const refunded = refunds.find((a) => a.statusCode === 200)!.json().data;
    expect(refunded).toMatchObject({ status: 'refunded', refund_method: 'account', refund_amount: 11_800, account_amount: 11_800, refunds: [] });
    await t.settle();

    // The company owes 118.00 less for the order; nothing went through a payment, the order's money is untouched.
    const after = await creditOf(company);
    expect(after).toMatchObject({ open_balance: 35_400, available: 64_600 });
    expect(after.open_orders).toEqual([expect.objectContaining({ order_id: order.id, total: 47_200, credited: 11_800, due: 35_400 })]);
    expect(await ok(await s.admin('GET', `/api/v1/orders/${order.id}`), 200)).toMatchObject({ amount_paid: 0, amount_refunded: 0 });
    const events = await outbox(t, 'b2b.account.credited', order.id);
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ b2b_customer_id: company, amount: 11_800, applied: 11_800, order_due: 35_400, available: 64_600, source: { type: 'return', id: r.id } })]);
    const read = await t.request({ method: 'POST', url: '/graphql', headers: s.tenant.headers(), payload: { query: 'query($id: ID!) { return(id: $id) { refundMethod refundAmount accountAmount } }', variables: { id: r.id } } });
    expect(read.json()).toEqual({ data: { return: { refundMethod: 'account', refundAmount: 11_800, accountAmount: 11_800 } } });

    // The rest comes back: the company owes nothing for the order, its whole limit is available again.
    const rest = await requestReturn(s.admin, { order_id: order.id, lines: [{ line_item_id: line, quantity: 3 }] });
    await ok(await s.admin('POST', `/api/v1/returns/${rest.id}/approve`), 200);
    await ok(await s.admin('POST', `/api/v1/returns/${rest.id}/receive`, { lines: [{ line_id: rest.lines[0].id, quantity: 3 }] }), 200);
    expect(await ok(await s.admin('POST', `/api/v1/returns/${rest.id}/refund`, {}), 200)).toMatchObject({ refund_amount: 35_400, account_amount: 35_400 });
    expect(await creditOf(company)).toMatchObject({ open_balance: 0, available: 100_000, open_orders: [] });
  });

  it('takes off what is still owed, and sends what the company paid already back through the order’s payments', async () => {
    const { company, order } = await orderOnAccount(2);
    expect(order.total).toBe(23_600);
    // The company paid 50.00 of it by transfer before it shipped.
    await pay(s, order.id, 5_000);
    await t.settle();
    await fulfil(order.id);
    expect(await creditOf(company)).toMatchObject({ open_balance: 18_600 });

    const r = await requestReturn(s.admin, { order_id: order.id, lines: [{ line_item_id: order.line_items[0].id, quantity: 2 }] });
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 2 }] }), 200);
    const refunded = await ok(await s.admin('POST', `/api/v1/returns/${r.id}/refund`, {}), 200);
    expect(refunded).toMatchObject({ refund_method: 'account', refund_amount: 23_600, account_amount: 18_600, refunds: [expect.objectContaining({ amount: 5_000 })] });
    await t.settle();
    expect(await ok(await s.admin('GET', `/api/v1/orders/${order.id}`), 200)).toMatchObject({ amount_paid: 5_000, amount_refunded: 5_000 });
    expect(await creditOf(company)).toMatchObject({ open_balance: 0, available: 100_000, open_orders: [] });
  });

  it('waives the returned goods on the order itself: its amount due and what a payment may take agree with the company’s balance', async () => {
    const { company, order } = await orderOnAccount(2);
    await fulfil(order.id);
    const before = await ok(await s.admin('GET', `/api/v1/orders/${order.id}`), 200);
    expect(before).toMatchObject({ total: 23_600, amount_waived: 0, amount_due: 23_600 });

    const r = await requestReturn(s.admin, { order_id: order.id, lines: [{ line_item_id: order.line_items[0].id, quantity: 1 }] });
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 1 }] }), 200);
    expect(await ok(await s.admin('POST', `/api/v1/returns/${r.id}/refund`, {}), 200)).toMatchObject({ account_amount: 11_800 });
    const credited = await ok(await s.admin('GET', `/api/v1/orders/${order.id}`), 200);
    expect(credited).toMatchObject({ total: 23_600, amount_waived: 11_800, amount_due: 11_800, amount_paid: 0 });
    expect(credited.history).toContainEqual(expect.objectContaining({ action: 'note', note: `Waived for goods given back to the company's account (return ${r.id})` }));
    expect(await creditOf(company)).toMatchObject({ open_balance: 11_800 });

    // The company pays what it still owes, no more: the whole total is refused, the rest settles the order.
    expectError(await s.admin('POST', '/api/v1/payments', { order_id: order.id, gateway: 'offline', amount: 23_600, currency: 'PEN', method_id: s.method }), 422, 'PAYMENT_EXCEEDS_BALANCE');
    await pay(s, order.id, 11_800);
    await t.settle();
    // Shipped before it was paid, it is paid where it stands.
    const paid = await ok(await s.admin('GET', `/api/v1/orders/${order.id}`), 200);
    expect(paid).toMatchObject({ status: 'fulfilled', amount_paid: 11_800, amount_due: 0, paid_at: expect.any(String) });
    expect(await creditOf(company)).toMatchObject({ open_balance: 0, available: 100_000, open_orders: [] });
  });

  it('is 422 ORDER_NOT_ON_ACCOUNT for an order not placed on account, and another store’s return is 404', async () => {
    const a = await product(s, 2000, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 1 }] });
    const body = { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] };
    expectError(await s.admin('POST', '/api/v1/returns', { ...body, refund_method: 'account' }), 422, 'ORDER_NOT_ON_ACCOUNT');
    // Asked the usual way it goes back through the payments; at the refund, to an account it cannot.
    const r = await requestReturn(s.admin, body);
    expect(r.refund_method).toBe('original_payments');
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 1 }] }), 200);
    expectError(await s.admin('POST', `/api/v1/returns/${r.id}/refund`, { method: 'account' }), 422, 'ORDER_NOT_ON_ACCOUNT');

    const { order } = await orderOnAccount(1);
    await fulfil(order.id);
    const theirs = await requestReturn(s.admin, { order_id: order.id, lines: [{ line_item_id: order.line_items[0].id, quantity: 1 }] });
    const other = await shop(t, false);
    expectError(await other.admin('POST', `/api/v1/returns/${theirs.id}/refund`, {}), 404, 'RETURN_NOT_FOUND');
    expectError(await other.admin('POST', '/api/v1/returns', { order_id: order.id, reason_code: 'wrong_size', lines: [{ line_item_id: order.line_items[0].id, quantity: 1 }] }), 404, 'ORDER_NOT_FOUND');
  });
});
