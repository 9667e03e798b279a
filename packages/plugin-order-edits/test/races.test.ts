import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editApp, levelOf, ok, order, preview, product, shop, type Shop } from './helpers.js';

// The order row is the lock: confirmations of edits and fulfilments of one order queue on it, and
// an edit previewed before another change finds the order changed (409) instead of undoing it.
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await editApp();
  s = await shop(t, true);
});
afterAll(async () => t?.close());

const TEN = Array.from({ length: 10 });

async function placed() {
  const a = await product(s, 3000);
  const o = await order(s, { line_items: [{ variant_id: a.variantId, quantity: 4 }] });
  return { o, a };
}

describe('at the same moment', () => {
  it('ten confirmations of one edit: one version, nine 409', async () => {
    const { o, a } = await placed();
    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 2 }] });
    const answers = await Promise.all(TEN.map(() => s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect(answers.filter((r) => r.statusCode === 409).map((r) => r.json().error.code)).toEqual(Array(9).fill('INVALID_STATE_TRANSITION'));
    expect(await levelOf(s, a.variantId)).toMatchObject({ reserved: 2 });
    expect((await ok(await s.admin('GET', `/api/v1/orders/${o.id}/edits`), 200)).map((e: { version: number | null }) => e.version)).toEqual([1]);
  });

  it('ten edits previewed on one order, confirmed together: one wins, nine find the order changed', async () => {
    const { o, a } = await placed();
    const edits = await Promise.all(TEN.map((_, n) => preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: n + 5 }] })));
    const answers = await Promise.all(edits.map((e) => s.admin('POST', `/api/v1/order-edits/${e.id}/confirm`, { notify: false })));
    const won = answers.findIndex((r) => r.statusCode === 200);
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.statusCode === 409).map((r) => r.json().error.code)).toEqual(Array(9).fill('ORDER_CHANGED'));
    const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(after.line_items[0].quantity).toBe(won + 5);
    expect(after.total).toBe(edits[won].after.total);
    expect(await levelOf(s, a.variantId)).toMatchObject({ reserved: won + 5 });
  });

  it('an edit and a fulfilment: the fulfilment first makes the edit 409; the edit first, the fulfilment ships the edited order', async () => {
    for (let round = 0; round < 4; round += 1) {
      const { o } = await placed();
      const line = o.line_items[0];
      const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: line.id, quantity: 1 }] });
      const [confirm, fulfil] = await Promise.all([
        s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }),
        s.admin('POST', `/api/v1/orders/${o.id}/fulfillments`, { line_items: [{ variant_id: line.variant_id, quantity: 3 }] }),
      ]);
      const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
      if (confirm.statusCode === 200) {
        // Edited to 1 first: 3 are no longer there to ship.
        expect(fulfil.statusCode).toBe(422);
        expect(fulfil.json().error.code).toBe('FULFILLMENT_QUANTITY_EXCEEDED');
        expect(after.line_items[0]).toMatchObject({ quantity: 1, fulfilled_quantity: 0 });
      } else {
        expect(confirm.statusCode).toBe(409);
        expect(confirm.json().error.code).toBe('ORDER_CHANGED');
        expect(fulfil.statusCode).toBe(201);
        expect(after.line_items[0]).toMatchObject({ quantity: 4, fulfilled_quantity: 3 });
      }
    }
  });
});
