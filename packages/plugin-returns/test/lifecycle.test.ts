import { startMailbox, type Mailbox, type TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, expectError, fulfilledOrder, levelOf, MISSING, ok, outbox, product, requestReturn, returnsApp, shop, shopper, type Shop } from './helpers.js';

// A customer's return from the storefront to the money back: asked for their own order with a
// reason of the store's, approved, received line by line (restocked where staff say, or written
// off), refunded through the order's payment; an e-mail at each step through a real SMTP server.
let t: TestApp;
let mail: Mailbox;
let s: Shop;
beforeAll(async () => {
  mail = await startMailbox();
  t = await returnsApp({ env: { SMTP_URL: mail.url } });
  s = await shop(t, false);
});
afterAll(async () => {
  await t?.close();
  await mail?.close();
});

describe('a customer’s return', () => {
  it('goes from the request to the refund, the stock and the order following it, the customer told at each step', async () => {
    const customer = await shopper(t, s);
    const a = await product(s, 2000, 10);
    const b = await product(s, 4550, 10);
    const o = await fulfilledOrder(t, s, { customer_id: customer.id, email: customer.email, line_items: [{ variant_id: a.variantId, quantity: 3 }, { variant_id: b.variantId, quantity: 1 }] });
    const [lineA, lineB] = o.line_items;
    const second = (await ok(await s.admin('POST', '/api/v1/inventory/warehouses', { name: 'Lima', code: 'WH-LIMA' }), 201)).id;

    const asked = await requestReturn(customer.api, { order_id: o.id, lines: [{ line_item_id: lineA.id, quantity: 2 }, { line_item_id: lineB.id, quantity: 1, reason_code: 'changed_mind' }] });
    expect(asked).toMatchObject({ name: expect.stringMatching(/^R\d+$/), status: 'requested', kind: 'return', requested_by: 'customer', customer_id: customer.id, refund_method: 'original_payments' });
    expect(asked.lines.map((l: any) => [l.line_item_id, l.quantity, l.reason_code])).toEqual([[lineA.id, 2, 'wrong_size'], [lineB.id, 1, 'changed_mind']]);
    expect((await mail.next((m) => m.to.includes(customer.email) && m.subject.includes('We received your return request'))).text).toContain(`order #${o.number}`);

    // The customer cannot approve nor read another's; staff approve.
    expectError(await customer.api('POST', `/api/v1/returns/${asked.id}/approve`), 403, 'FORBIDDEN');
    const approved = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/approve`), 200);
    expect(approved).toMatchObject({ status: 'approved', approved_at: expect.any(String) });
    expect((await mail.next((m) => m.subject.includes('was approved'))).text).toContain('Send these items back');

    // One unit of A into the second warehouse, B written off as damaged: partly received.
    const [retA, retB] = approved.lines;
    const before = { a: await levelOf(s, a.variantId, second), b: await levelOf(s, b.variantId) };
    const partly = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/receive`, { lines: [{ line_id: retA.id, quantity: 1, warehouse_id: second }, { line_id: retB.id, quantity: 1, disposition: 'damaged' }] }), 200);
    expect(partly).toMatchObject({ status: 'partially_received' });
    expect(partly.lines.map((l: any) => [l.received_quantity, l.restocked_quantity, l.damaged_quantity])).toEqual([[1, 1, 0], [1, 0, 1]]);
    expect(await levelOf(s, a.variantId, second)).toEqual({ on_hand: before.a.on_hand + 1, reserved: 0, available: before.a.available + 1 });
    expect(await levelOf(s, b.variantId)).toEqual(before.b);
    // Refunding before everything came back is refused.
    expectError(await s.admin('POST', `/api/v1/returns/${asked.id}/refund`, {}), 409, 'INVALID_STATE_TRANSITION');
    // More than expected is refused whole.
    expectError(await s.admin('POST', `/api/v1/returns/${asked.id}/receive`, { lines: [{ line_id: retA.id, quantity: 2 }] }), 422, 'RECEIVE_QUANTITY_EXCEEDED');
    const received = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/receive`, { lines: [{ line_id: retA.id, quantity: 1 }] }), 200);
    expect(received).toMatchObject({ status: 'received', received_at: expect.any(String) });
    await mail.next((m) => m.subject.includes('We received the items'));

    // 2 of 3 units of A (40.00 + 18 % = 47.20) and B (45.50 + 8.19 = 53.69); shipping stays (the default policy).
    const refunded = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/refund`, {}), 200);
    expect(refunded).toMatchObject({ status: 'refunded', items_amount: 4720 + 5369, shipping_amount: 0, refund_amount: 10089, tax_amount: 720 + 819 });
    expect(refunded.lines.map((l: any) => [l.refund_amount, l.tax_amount])).toEqual([[4720, 720], [5369, 819]]);
    await t.settle();
    const after = await ok(await s.admin('GET', `/api/v1/returns/${asked.id}`), 200);
    expect(after.refunds).toEqual([expect.objectContaining({ amount: 10089, status: 'refunded' })]);
    const order = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(order).toMatchObject({ status: 'fulfilled', amount_refunded: 10089 });
    expect(order.history.at(-1).note).toMatch(/^Return R\d+ \(return\): 2 × .*; PEN 100\.89 refunded through the order’s payments$/);
    expect((await mail.next((m) => m.subject.includes('refunded for'))).subject).toContain('PEN 100.89');

    const closed = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/close`), 200);
    expect(closed).toMatchObject({ status: 'closed', closed_at: expect.any(String) });
    // Every step was an event, in order.
    for (const type of ['requested', 'approved', 'items_received', 'received', 'refunded', 'closed']) expect((await outbox(t, `returns.return.${type}`, asked.id)).length).toBeGreaterThan(0);
    // The customer reads their returns, and the order's.
    const mine = await ok(await customer.api('GET', '/api/v1/returns'), 200);
    expect(mine.map((r: any) => r.id)).toEqual([asked.id]);
    expect((await ok(await customer.api('GET', `/api/v1/orders/${o.id}/returns`), 200)).map((r: any) => r.status)).toEqual(['closed']);
  });

  it('is refused for another customer’s order, another store’s ids, more than was fulfilled, and unknown reasons', async () => {
    const customer = await shopper(t, s);
    const stranger = await shopper(t, s);
    const a = await product(s, 1000, 10);
    const o = await fulfilledOrder(t, s, { customer_id: customer.id, email: customer.email, line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    const line = o.line_items[0].id;
    expectError(await stranger.api('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: line, quantity: 1 }] }), 404, 'ORDER_NOT_FOUND');
    expectError(await customer.api('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: line, quantity: 3 }] }), 422, 'RETURN_QUANTITY_EXCEEDED');
    expectError(await customer.api('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'lost_interest', lines: [{ line_item_id: line, quantity: 1 }] }), 422, 'RETURN_REASON_NOT_FOUND');
    expectError(await customer.api('POST', '/api/v1/returns', { order_id: o.id, lines: [{ line_item_id: line, quantity: 1 }] }), 422, 'RETURN_REASON_REQUIRED');
    expectError(await customer.api('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: MISSING, quantity: 1 }] }), 422, 'LINE_ITEM_NOT_FOUND');
    const first = await requestReturn(customer.api, { order_id: o.id, lines: [{ line_item_id: line, quantity: 2 }] });
    // Both units are in a return: none is left for another.
    expectError(await customer.api('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: line, quantity: 1 }] }), 422, 'RETURN_QUANTITY_EXCEEDED');
    expectError(await stranger.api('GET', `/api/v1/returns/${first.id}`), 404, 'RETURN_NOT_FOUND');
    expectError(await stranger.api('POST', `/api/v1/returns/${first.id}/cancel`), 404, 'RETURN_NOT_FOUND');

    // Another store knows none of these ids.
    const other = await shop(t, false);
    expectError(await other.admin('GET', `/api/v1/returns/${first.id}`), 404, 'RETURN_NOT_FOUND');
    expectError(await other.admin('POST', `/api/v1/returns/${first.id}/approve`), 404, 'RETURN_NOT_FOUND');
    expectError(await other.admin('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: line, quantity: 1 }] }), 404, 'ORDER_NOT_FOUND');
    expectError(await other.admin('GET', `/api/v1/orders/${o.id}/returns`), 404, 'ORDER_NOT_FOUND');
    expectError(await caller(t, other.tenant)('GET', '/api/v1/returns/not-a-uuid'), 400, 'VALIDATION_ERROR');

    // The customer cancels while it is requested; the units can be asked for again.
    expect((await ok(await customer.api('POST', `/api/v1/returns/${first.id}/cancel`), 200)).status).toBe('cancelled');
    expectError(await customer.api('POST', `/api/v1/returns/${first.id}/cancel`), 409, 'INVALID_STATE_TRANSITION');
    await requestReturn(customer.api, { order_id: o.id, lines: [{ line_item_id: line, quantity: 2 }] });
  });

  it('is rejected with a reason the customer is told', async () => {
    const customer = await shopper(t, s);
    const a = await product(s, 1000, 10);
    const o = await fulfilledOrder(t, s, { customer_id: customer.id, email: customer.email, line_items: [{ variant_id: a.variantId, quantity: 1 }] });
    const asked = await requestReturn(customer.api, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
    expect(await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/reject`, { reason: 'Worn items are not taken back' }), 200)).toMatchObject({ status: 'rejected', reject_reason: 'Worn items are not taken back' });
    expect((await mail.next((m) => m.to.includes(customer.email) && m.subject.includes('was not approved'))).text).toContain('Worn items are not taken back');
    expectError(await s.admin('POST', `/api/v1/returns/${asked.id}/approve`), 409, 'INVALID_STATE_TRANSITION');
  });
});
