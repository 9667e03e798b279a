import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fulfilledOrder, levelOf, ok, product, requestReturn, returnsApp, shop, statuses, type Shop } from './helpers.js';

// Requests, receipts and refunds that arrive at once: each return and each order is worked out
// under its row's lock, so the units and the money count once.
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await returnsApp();
  s = await shop(t, false);
});
afterAll(async () => t?.close());

describe('at once', () => {
  it('eight receipts of the same unit put it back in stock once', async () => {
    const a = await product(s, 1000, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 1 }] });
    const r = await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
    const before = await levelOf(s, a.variantId);
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 1 }] })));
    expect(statuses(answers)).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.statusCode === 409).every((a) => a.json().error.code === 'INVALID_STATE_TRANSITION')).toBe(true);
    expect(await levelOf(s, a.variantId)).toEqual({ on_hand: before.on_hand + 1, reserved: 0, available: before.available + 1 });
    expect((await ok(await s.admin('GET', `/api/v1/returns/${r.id}`), 200)).lines[0]).toMatchObject({ received_quantity: 1, restocked_quantity: 1 });
  });

  it('of two units, two receipts of one each both count, a third is refused', async () => {
    const a = await product(s, 1000, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    const r = await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 2 }] });
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
    const answers = await Promise.all(Array.from({ length: 3 }, () => s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 1 }] })));
    expect(statuses(answers)).toEqual([200, 200, 409]);
    expect((await ok(await s.admin('GET', `/api/v1/returns/${r.id}`), 200))).toMatchObject({ status: 'received', lines: [expect.objectContaining({ received_quantity: 2 })] });
  });

  it('eight requests for the last two units: one return, seven refusals', async () => {
    const a = await product(s, 1000, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.admin('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: o.line_items[0].id, quantity: 2 }] })));
    expect(statuses(answers)).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    expect(answers.filter((a) => a.statusCode === 422).every((a) => a.json().error.code === 'RETURN_QUANTITY_EXCEEDED')).toBe(true);
  });

  it('a refund asked five times refunds once; two returns of one order refunded at once both count, once each', async () => {
    const a = await product(s, 1000, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    const received = [];
    for (let n = 0; n < 2; n++) {
      const r = await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
      await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
      await ok(await s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 1 }] }), 200);
      received.push(r);
    }
    const answers = await Promise.all(received.flatMap((r) => Array.from({ length: 5 }, () => s.admin('POST', `/api/v1/returns/${r.id}/refund`, {}))));
    expect(statuses(answers)).toEqual([200, 200, 409, 409, 409, 409, 409, 409, 409, 409]);
    await t.settle();
    const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(after).toMatchObject({ status: 'refunded', amount_refunded: o.total });
    const refunds = await Promise.all(received.map(async (r) => (await ok(await s.admin('GET', `/api/v1/returns/${r.id}`), 200)).refund_amount as number));
    expect(refunds.reduce((x, y) => x + y, 0)).toBe(o.total);
  });
});
