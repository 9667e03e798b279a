import type { TestApp } from '@qhatu/core/testing';
import marketplace from '@qhatu/plugin-marketplace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editApp, expectError, levelOf, ok, order, pay, preview, product, shop, type Shop } from './helpers.js';

// Lines bought on a marketplace seller's offer change like the store's own: the offer's units
// follow the line (held while the order awaits payment, sold once it is paid), a new line on an
// offer costs the offer's price, and the seller's commission and payout follow the order's new
// amounts, so the split adds up to what was paid, net of refunds, to the cent.
const MARKET = '/api/v1/marketplace';
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await editApp({ workers: true, extra: [marketplace] });
  s = await shop(t, false);
});
afterAll(async () => t?.close());

async function vendor(commissionPct: number): Promise<string> {
  const made = await ok(await s.admin('POST', `${MARKET}/vendors`, { name: 'Tejidos Awana', email: `taller-${Math.random().toString(36).slice(2, 10)}@vendedores.pe`, country_code: 'PE', default_commission_pct: commissionPct }), 201);
  await ok(await s.admin('PATCH', `${MARKET}/vendors/${made.id}/status`, { status: 'active' }), 200);
  return made.id;
}

/** A catalog product and a vendor's offer of it; the variant, the offer and its vendor. */
async function offered(price: number, stock: number, commissionPct = 10) {
  const vendorId = await vendor(commissionPct);
  const p = await product(s, price + 500);
  const offer = await ok(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: vendorId, catalog_product_id: p.productId, price_override: price, stock }), 201);
  return { variantId: p.variantId, offerId: offer.id as string, vendorId };
}

async function offerOf(o: { vendorId: string; offerId: string }): Promise<{ stock: number; reserved: number }> {
  const found = (await ok(await s.admin('GET', `${MARKET}/vendors/${o.vendorId}/products`), 200)).find((x: { id: string }) => x.id === o.offerId);
  return { stock: found.stock, reserved: found.reserved };
}

/** The store's revenue, the commissions and the payouts add up to what the order's payments kept. */
async function balanced(orderId: string) {
  const o = await ok(await s.admin('GET', `/api/v1/orders/${orderId}`), 200);
  const split = await ok(await s.admin('GET', `${MARKET}/orders/${orderId}/settlement`), 200);
  expect(split.paid).toBe(o.amount_paid - o.amount_refunded);
  expect(split.store_revenue + split.commissions + split.payouts).toBe(split.paid);
  return { o, split };
}

/** What the customer pays for a line of an order whose prices exclude tax. */
const worth = (l: { total_amount: number; discount_amount: number; tax_amount: number }) => l.total_amount - l.discount_amount + l.tax_amount;
const commission = (amount: number, pct: number) => Math.floor((amount * pct) / 100 + 0.5);

describe('an order awaiting payment', () => {
  it('changes, adds and removes offer lines: the offers hold the units, the store’s stock is not touched; paid, they are sold and split', async () => {
    const a = await offered(4500, 10);
    const b = await offered(2800, 5);
    const own = await product(s, 2000);
    const o = await order(s, { line_items: [{ variant_id: a.variantId, quantity: 2, offer_id: a.offerId }, { variant_id: own.variantId, quantity: 1 }], shipping: { carrier: 'olva', service: 'standard' } });
    expect(await offerOf(a)).toEqual({ stock: 10, reserved: 2 });

    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 3 }, { action: 'add', variant_id: b.variantId, quantity: 2, offer_id: b.offerId }] });
    expect(edit.after.lines.map((l: Record<string, unknown>) => [l.offer_id, l.unit_price, l.quantity, l.change])).toEqual([
      [a.offerId, 4500, 3, 'changed'],
      [null, 2000, 1, 'unchanged'],
      [b.offerId, 2800, 2, 'added'],
    ]);
    // 3 × 45.00 + 20.00 + 2 × 28.00, 18 % on top, and the same shipping.
    expect(edit.after).toMatchObject({ subtotal: 13500 + 2000 + 5600, tax_total: 2430 + 360 + 1008 + o.shipping_tax, total: 21100 + 3798 + o.shipping_tax + o.shipping_total });
    expect(edit.amount_due).toBe(edit.after.total);
    await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
    const edited = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(edited.line_items.map((l: Record<string, unknown>) => [l.offer_id, l.quantity])).toEqual([[a.offerId, 3], [null, 1], [b.offerId, 2]]);
    expect(await offerOf(a)).toEqual({ stock: 10, reserved: 3 });
    expect(await offerOf(b)).toEqual({ stock: 5, reserved: 2 });
    expect((await levelOf(s, a.variantId)).reserved).toBe(0);
    expect((await levelOf(s, own.variantId)).reserved).toBe(1);

    const removed = await preview(s, o.id, { changes: [{ action: 'remove', line_item_id: edited.line_items[2].id }] });
    await ok(await s.admin('POST', `/api/v1/order-edits/${removed.id}/confirm`, { notify: false }), 200);
    expect(await offerOf(b)).toEqual({ stock: 5, reserved: 0 });

    await pay(s, o.id, removed.after.total);
    await t.settle();
    expect(await offerOf(a)).toEqual({ stock: 7, reserved: 0 });
    const { o: paid, split } = await balanced(o.id);
    expect(paid).toMatchObject({ status: 'paid', total: removed.after.total });
    const line = paid.line_items[0];
    // 3 × 45.00 and 18 %: 159.30, of which 10 % is 15.93.
    expect(worth(line)).toBe(15930);
    expect(split.vendors).toEqual([{ vendor_id: a.vendorId, commission: commission(worth(line), 10), payout: worth(line) - commission(worth(line), 10) }]);
  });
});

describe('a paid order', () => {
  it('with fewer units of an offer line: they go back to the offer’s stock, the seller’s share follows, the difference is refunded', async () => {
    const a = await offered(4500, 10, 12.5);
    const own = await product(s, 2000);
    const o = await order(s, { line_items: [{ variant_id: a.variantId, quantity: 3, offer_id: a.offerId }, { variant_id: own.variantId, quantity: 1 }], shipping: { carrier: 'olva', service: 'standard' } });
    await pay(s, o.id, o.total);
    await t.settle();
    expect(await offerOf(a)).toEqual({ stock: 7, reserved: 0 });

    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 1 }] });
    expect(edit).toMatchObject({ refund_amount: o.total - edit.after.total, amount_due: 0 });
    await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, {}), 200);
    await t.settle();
    expect(await offerOf(a)).toEqual({ stock: 9, reserved: 0 });
    const { o: after, split } = await balanced(o.id);
    expect(after).toMatchObject({ status: 'paid', total: edit.after.total, amount_refunded: o.total - edit.after.total });
    // 45.00 and 18 % of it: 53.10, of which 12.5 % (6.6375) is 6.64.
    expect(split.vendors).toEqual([{ vendor_id: a.vendorId, commission: 664, payout: 5310 - 664 }]);
    expect(split.entries.map((e: { kind: string }) => e.kind)).toContain('revision');
  });

  it('given a new offer line awaits the difference; its units are sold, and once it is paid the split adds up', async () => {
    const b = await offered(2800, 5, 15);
    const own = await product(s, 2000);
    const o = await order(s, { line_items: [{ variant_id: own.variantId, quantity: 2 }], shipping: { carrier: 'olva', service: 'standard' } });
    await pay(s, o.id, o.total);
    await t.settle();
    const edit = await preview(s, o.id, { changes: [{ action: 'add', variant_id: b.variantId, quantity: 2, offer_id: b.offerId }] });
    const due = edit.after.total - o.total;
    expect(due).toBe(5600 + 1008);
    expect(edit).toMatchObject({ amount_due: due, difference: due });
    await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ status: 'pending', amount_due: due });
    expect(await offerOf(b)).toEqual({ stock: 3, reserved: 0 });

    await pay(s, o.id, due);
    await t.settle();
    const { o: paid, split } = await balanced(o.id);
    expect(paid).toMatchObject({ status: 'paid', amount_paid: o.total + due, amount_refunded: 0 });
    // 56.00 and 18 %: 66.08, of which 15 % is 9.912: 9.91.
    expect(split.vendors).toEqual([{ vendor_id: b.vendorId, commission: 991, payout: 6608 - 991 }]);
  });
});

describe('refused', () => {
  it('an offer short of units (409), of another product or another store (422), or a variant the order buys on another offer (422): nothing changes', async () => {
    const a = await offered(4500, 3);
    const b = await offered(2800, 5);
    const own = await product(s, 2000);
    const o = await order(s, { line_items: [{ variant_id: a.variantId, quantity: 2, offer_id: a.offerId }, { variant_id: own.variantId, quantity: 1 }] });
    const edits = (body: unknown) => s.admin('POST', `/api/v1/orders/${o.id}/edits`, body);
    expectError(await edits({ changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 4 }] }), 409, 'OFFER_OUT_OF_STOCK');
    expectError(await edits({ changes: [{ action: 'add', variant_id: b.variantId, quantity: 6, offer_id: b.offerId }] }), 409, 'OFFER_OUT_OF_STOCK');
    expectError(await edits({ changes: [{ action: 'add', variant_id: own.variantId, quantity: 1, offer_id: b.offerId }] }), 422, 'OFFER_MISMATCH');
    expectError(await edits({ changes: [{ action: 'add', variant_id: a.variantId, quantity: 1 }] }), 422, 'OFFER_MISMATCH');
    const other = await product(s, 1000);
    expectError(await edits({ changes: [{ action: 'add', variant_id: other.variantId, quantity: 1, offer_id: b.offerId }] }), 422, 'OFFER_NOT_AVAILABLE');

    const saved = s;
    s = await shop(t, false);
    const foreign = await offered(1000, 5);
    s = saved;
    expectError(await edits({ changes: [{ action: 'add', variant_id: b.variantId, quantity: 1, offer_id: foreign.offerId }] }), 422, 'OFFER_NOT_AVAILABLE');
    expectError(await edits({ changes: [{ action: 'add', variant_id: b.variantId, quantity: 1, offer_id: 'not-a-uuid' }] }), 400, 'VALIDATION_ERROR');
    expect(await offerOf(a)).toEqual({ stock: 3, reserved: 2 });
    expect(await offerOf(b)).toEqual({ stock: 5, reserved: 0 });
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}/edits`), 200)).toEqual([]);
  });
});

describe('at the same moment', () => {
  it('five orders each taking the last unit of an offer by an edit: one gets it, four 409, the offer never oversold', async () => {
    const a = await offered(4500, 6);
    const orders = [];
    for (let n = 0; n < 5; n += 1) orders.push(await order(s, { line_items: [{ variant_id: a.variantId, quantity: 1, offer_id: a.offerId }] }));
    const edits = await Promise.all(orders.map((o) => preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 2 }] })));
    const answers = await Promise.all(edits.map((e) => s.admin('POST', `/api/v1/order-edits/${e.id}/confirm`, { notify: false })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(answers.filter((r) => r.statusCode === 409).map((r) => r.json().error.code)).toEqual(Array(4).fill('OFFER_OUT_OF_STOCK'));
    expect(await offerOf(a)).toEqual({ stock: 6, reserved: 6 });
    const won = orders[answers.findIndex((r) => r.statusCode === 200)];
    expect((await ok(await s.admin('GET', `/api/v1/orders/${won.id}`), 200)).line_items[0].quantity).toBe(2);
  });

  it('ten edits of an offer line confirmed together: one wins, nine find the order changed (409)', async () => {
    const a = await offered(4500, 20);
    const o = await order(s, { line_items: [{ variant_id: a.variantId, quantity: 4, offer_id: a.offerId }] });
    const edits = await Promise.all(Array.from({ length: 10 }, (_, n) => preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: n + 5 }] })));
    const answers = await Promise.all(edits.map((e) => s.admin('POST', `/api/v1/order-edits/${e.id}/confirm`, { notify: false })));
    const won = answers.findIndex((r) => r.statusCode === 200);
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.statusCode === 409).map((r) => r.json().error.code)).toEqual(Array(9).fill('ORDER_CHANGED'));
    expect(await offerOf(a)).toEqual({ stock: 20, reserved: won + 5 });
  });

  it('an edit of an offer line and a fulfilment: the fulfilment first makes the edit 409; the edit first, the fulfilment finds the units gone', async () => {
    for (let round = 0; round < 4; round += 1) {
      const a = await offered(4500, 10);
      const o = await order(s, { line_items: [{ variant_id: a.variantId, quantity: 4, offer_id: a.offerId }] });
      const line = o.line_items[0];
      const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: line.id, quantity: 1 }] });
      const [confirm, fulfil] = await Promise.all([
        s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }),
        s.admin('POST', `/api/v1/orders/${o.id}/fulfillments`, { line_items: [{ variant_id: line.variant_id, quantity: 3 }] }),
      ]);
      const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
      if (confirm.statusCode === 200) {
        expectError(fulfil, 422, 'FULFILLMENT_QUANTITY_EXCEEDED');
        expect(after.line_items[0]).toMatchObject({ quantity: 1, fulfilled_quantity: 0 });
        expect(await offerOf(a)).toEqual({ stock: 10, reserved: 1 });
      } else {
        expectError(confirm, 409, 'ORDER_CHANGED');
        expect(fulfil.statusCode, fulfil.body).toBe(201);
        expect(after.line_items[0]).toMatchObject({ quantity: 4, fulfilled_quantity: 3 });
        expect(await offerOf(a)).toEqual({ stock: 10, reserved: 4 });
      }
    }
  });
});
