import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, draftApp, DRAFTS, levelOf, ok, product, stock, taxedStore, type Caller } from './helpers.js';

// Requests at the same moment: the draft's row lock orders them, so a draft is placed once, and
// the stock of the last units goes to as many drafts as it covers.
let t: TestApp;
let admin: Caller;
let warehouse: string;
beforeAll(async () => {
  t = await draftApp();
  ({ admin } = await taxedStore(t, { includeTax: true, rates: false }));
  warehouse = (await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Cusco', code: 'WH-CUSCO' }), 201)).id;
});
afterAll(async () => t?.close());

const TEN = Array.from({ length: 10 });
const orderCount = async () => (await ok(await admin('GET', '/api/v1/orders?limit=100'), 200)).length as number;

describe('ten requests at once', () => {
  it('complete a draft once: one 200, nine 409, one order, the stock held once', async () => {
    const p = await product(admin, 3000);
    await stock(admin, [p.variantId], 10, warehouse);
    const d = await ok(await admin('POST', DRAFTS, { email: 'rosa@example.com', shipping_address: ADDRESS, line_items: [{ variant_id: p.variantId, quantity: 2 }] }), 201);
    const before = await orderCount();
    const answers = await Promise.all(TEN.map(() => admin('POST', `${DRAFTS}/${d.id}/complete`, {})));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, ...Array(9).fill(409)]);
    for (const r of answers.filter((x) => x.statusCode === 409)) expect(r.json().error.code).toBe('INVALID_STATE_TRANSITION');
    expect(await orderCount()).toBe(before + 1);
    expect(await levelOf(admin, warehouse, p.variantId)).toEqual({ on_hand: 10, reserved: 2, available: 8 });
  });

  it('send one invoice: the first places the order, the others send it again', async () => {
    const p = await product(admin, 3000);
    await stock(admin, [p.variantId], 10, warehouse);
    const d = await ok(await admin('POST', DRAFTS, { email: 'rosa@example.com', shipping_address: ADDRESS, line_items: [{ variant_id: p.variantId, quantity: 3 }] }), 201);
    const before = await orderCount();
    const answers = await Promise.all(TEN.map(() => admin('POST', `${DRAFTS}/${d.id}/send-invoice`, { notify: false })));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((r) => r.json().data.order_id)).size).toBe(1);
    expect(await orderCount()).toBe(before + 1);
    expect(await levelOf(admin, warehouse, p.variantId)).toMatchObject({ reserved: 3 });
  });

  it('of a change and a completion: the order is what the draft was when it was placed', async () => {
    const p = await product(admin, 3000);
    await stock(admin, [p.variantId], 10, warehouse);
    const d = await ok(await admin('POST', DRAFTS, { email: 'rosa@example.com', shipping_address: ADDRESS, line_items: [{ variant_id: p.variantId, quantity: 1 }] }), 201);
    const [change, complete] = await Promise.all([
      admin('PATCH', `${DRAFTS}/${d.id}/line-items/${d.line_items[0].id}`, { quantity: 4 }),
      admin('POST', `${DRAFTS}/${d.id}/complete`, {}),
    ]);
    expect(complete.statusCode).toBe(200);
    const order = await ok(await admin('GET', `/api/v1/orders/${complete.json().data.order_id}`), 200);
    const final = await ok(await admin('GET', `${DRAFTS}/${d.id}`), 200);
    expect(order.line_items[0].quantity).toBe(final.line_items[0].quantity);
    expect(order.total).toBe(final.total);
    expect(change.statusCode === 200 ? 4 : 1).toBe(order.line_items[0].quantity);
    if (change.statusCode !== 200) expect(change.json().error.code).toBe('INVALID_STATE_TRANSITION');
  });

  it('place the last units as far as they go: 3 in stock, 10 drafts of one each', async () => {
    const p = await product(admin, 3000);
    await stock(admin, [p.variantId], 3, warehouse);
    const drafts = await Promise.all(TEN.map(async () => ok(await admin('POST', DRAFTS, { email: 'rosa@example.com', shipping_address: ADDRESS, line_items: [{ variant_id: p.variantId, quantity: 1 }] }), 201)));
    const answers = await Promise.all(drafts.map((d) => admin('POST', `${DRAFTS}/${d.id}/complete`, {})));
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(3);
    for (const r of answers.filter((x) => x.statusCode !== 200)) expect(r.json().error.code).toBe('INSUFFICIENT_STOCK');
    expect(await levelOf(admin, warehouse, p.variantId)).toEqual({ on_hand: 3, reserved: 3, available: 0 });
  });
});
