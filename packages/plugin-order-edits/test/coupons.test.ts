import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, editApp, ok, order, preview, product, shop, type Shop } from './helpers.js';

// An edit judges the order's coupon again, as the checkout judges a cart's: the volume tiers of the
// new quantities first, then the coupon's minimum and a percentage of what the lines now come to.
// The edited order costs, to the cent, what a draft of the same lines with the same coupon costs
// (a draft is priced by the checkout's services), with prices with and without tax.
let t: TestApp;
beforeAll(async () => {
  t = await editApp();
});
afterAll(async () => t?.close());

const TOTALS = ['subtotal', 'discount_total', 'shipping_total', 'shipping_tax', 'tax_total', 'total'] as const;

/** The totals of a draft of these lines (not placed): what a checkout charges for them now. */
async function priced(s: Shop, body: Record<string, unknown>) {
  const d = await ok(await s.admin('POST', '/api/v1/draft-orders', { email: 'rosa@example.com', shipping_address: ADDRESS, shipping: { carrier: 'olva', service: 'standard' }, ...body }), 201);
  return Object.fromEntries(TOTALS.map((k) => [k, d[k]]));
}

/** A coupon of the store (the discounts plugin answers it without a `data` envelope); its code. */
async function coupon(s: Shop, body: Record<string, unknown>): Promise<string> {
  const res = await s.admin('POST', '/api/v1/discounts/coupons', { code: `C${Math.random().toString(36).slice(2, 8)}`.toUpperCase(), ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().code;
}

const totalsOf = (x: Record<string, number>) => Object.fromEntries(TOTALS.map((k) => [k, x[k]]));

/** A store with a 10 % coupon from 100.00, a scarf at 20.00 with 10 % off from 3, a poncho at 45.50; an order of 2 of each. */
async function sold(includeTax: boolean) {
  const s = await shop(t, includeTax);
  const scarf = await product(s, 2000);
  const poncho = await product(s, 4550);
  await ok(await s.admin('POST', '/api/v1/discounts/volume', { product_id: scarf.productId, min_quantity: 3, value: 1000 }), 201);
  const code = await coupon(s, { type: 'percentage', value: 1000, min_order_amount: 10000 });
  const o = await order(s, { line_items: [{ variant_id: scarf.variantId, quantity: 2 }, { variant_id: poncho.variantId, quantity: 2 }], shipping: { carrier: 'olva', service: 'standard' }, discount: { code } });
  expect(o.discount_total).toBe(1310);
  return { s, scarf, poncho, code, o };
}

for (const includeTax of [false, true]) {
  describe(`an order sold with a coupon, prices ${includeTax ? 'with' : 'without'} tax`, () => {
    it('takes the volume tier and a percentage of the new amount when a line grows, as a draft of the same lines would', async () => {
      const { s, scarf, poncho, code, o } = await sold(includeTax);
      const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 3 }] });
      // 3 × 20.00 less 6.00 (tier) and 2 × 45.50: 145.00, of which 10 % is 14.50.
      expect(edit.before.coupon).toEqual({ code, applies: true, refusal: null, amount: 1310 });
      expect(edit.after.coupon).toEqual({ code, applies: true, refusal: null, amount: 1450 });
      expect(edit.after.discount_total).toBe(600 + 1450);
      // The poncho's share stays 9.10 (14.50 × 91.00 / 145.00): only lines whose discount moves are taxed again.
      expect(edit.after.lines.map((l: Record<string, unknown>) => [l.change, l.discount_amount])).toEqual([['changed', 600 + 540], ['unchanged', 910]]);
      expect(totalsOf(edit.after)).toEqual(await priced(s, { line_items: [{ variant_id: scarf.variantId, quantity: 3 }, { variant_id: poncho.variantId, quantity: 2 }], discount: { code } }));

      await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
      const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
      expect(totalsOf(after)).toEqual(totalsOf(edit.after));
      expect(after.line_items.reduce((sum: number, l: { discount_amount: number }) => sum + l.discount_amount, 0)).toBe(after.discount_total);

      // The next edit starts from the coupon as this one left it.
      // 6 kg now: the shipping is priced again for the heavier parcel, as the draft prices it.
      const next = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[1].id, quantity: 3 }], shipping: { carrier: 'olva', service: 'standard' } });
      expect(next.before.coupon).toMatchObject({ amount: 1450 });
      expect(totalsOf(next.after)).toEqual(await priced(s, { line_items: [{ variant_id: scarf.variantId, quantity: 3 }, { variant_id: poncho.variantId, quantity: 3 }], discount: { code } }));
    });

    it('drops a coupon whose minimum is no longer met: the lines lose its share and are taxed again', async () => {
      const { s, scarf, o } = await sold(includeTax);
      const edit = await preview(s, o.id, { changes: [{ action: 'remove', line_item_id: o.line_items[1].id }] });
      expect(edit.after.coupon).toMatchObject({ applies: false, refusal: 'min_order_amount_not_met', amount: 0 });
      expect(edit.after.lines[0]).toMatchObject({ change: 'changed', quantity: 2, discount_amount: 0, total: 4000 });
      expect(totalsOf(edit.after)).toEqual(await priced(s, { line_items: [{ variant_id: scarf.variantId, quantity: 2 }] }));
      const confirmed = await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
      expect(confirmed.status).toBe('confirmed');
      const versions = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
      expect(versions.history.at(-1).note).toContain('no longer applies');
      expect(totalsOf(versions)).toEqual(totalsOf(edit.after));
    });
  });
}

describe('a product coupon', () => {
  it("is spread over its products' lines only, and takes nothing once they are gone", async () => {
    const s = await shop(t, false);
    const scarf = await product(s, 2000);
    const poncho = await product(s, 4550);
    const hat = await product(s, 1500);
    const code = await coupon(s, { type: 'percentage', value: 2000, applicable_to: 'products', applicable_ids: [poncho.productId] });
    const o = await order(s, { line_items: [{ variant_id: scarf.variantId, quantity: 1 }, { variant_id: poncho.variantId, quantity: 1 }], shipping: { carrier: 'olva', service: 'standard' }, discount: { code } });
    expect(o.line_items.map((l) => l.discount_amount)).toEqual([0, 910]);
    const grown = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[1].id, quantity: 2 }, { action: 'add', variant_id: hat.variantId, quantity: 1 }] });
    expect(grown.after.lines.map((l: { discount_amount: number }) => l.discount_amount)).toEqual([0, 1820, 0]);
    expect(totalsOf(grown.after)).toEqual(await priced(s, { line_items: [{ variant_id: scarf.variantId, quantity: 1 }, { variant_id: poncho.variantId, quantity: 2 }, { variant_id: hat.variantId, quantity: 1 }], discount: { code } }));
    const gone = await preview(s, o.id, { changes: [{ action: 'remove', line_item_id: o.line_items[1].id }] });
    expect(gone.after.coupon).toMatchObject({ applies: false, refusal: 'not_applicable', amount: 0 });
    expect(gone.after.discount_total).toBe(0);
  });
});

describe("the coupon's use", () => {
  async function uses(s: Shop, code: string) {
    const c = await ok(await s.admin('GET', `/api/v1/discounts/coupons/code/${code}`), 200);
    const redemptions = await ok(await s.admin('GET', `/api/v1/discounts/coupons/${c.id}/redemptions`), 200);
    return { uses_count: c.uses_count as number, redemptions: redemptions as Array<{ order_id: string; amount: number; released_at: string | null }> };
  }

  it('records what the coupon takes off once an edit changing it is confirmed (a preview or a shipping-only edit changes nothing)', async () => {
    const { s, code, o } = await sold(false);
    expect(await uses(s, code)).toMatchObject({ uses_count: 1, redemptions: [{ order_id: o.id, amount: 1310, released_at: null }] });
    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 3 }] });
    expect((await uses(s, code)).redemptions[0].amount).toBe(1310);
    await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
    expect(await uses(s, code)).toMatchObject({ uses_count: 1, redemptions: [{ order_id: o.id, amount: 1450, released_at: null }] });
    const shipping = await preview(s, o.id, { changes: [], shipping: { carrier: 'olva', service: 'express', price: 2500, reason: 'courier of the customer’s choice' } });
    await ok(await s.admin('POST', `/api/v1/order-edits/${shipping.id}/confirm`, { notify: false }), 200);
    expect(await uses(s, code)).toMatchObject({ uses_count: 1, redemptions: [{ amount: 1450, released_at: null }] });
  });

  it('is given back once an edit leaves the coupon nothing to apply to: the order keeps no coupon after', async () => {
    const { s, code, o } = await sold(false);
    const edit = await preview(s, o.id, { changes: [{ action: 'remove', line_item_id: o.line_items[1].id }] });
    expect(edit.after.coupon).toMatchObject({ applies: false });
    await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
    const after = await uses(s, code);
    expect(after.uses_count).toBe(0);
    expect(after.redemptions).toEqual([expect.objectContaining({ order_id: o.id, amount: 1310, released_at: expect.any(String) })]);
    const next = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 5 }] });
    expect(next.before.coupon).toBeNull();
    expect(next.after.coupon).toBeNull();
  });

  it("of a product coupon whose products an edit removes is given back", async () => {
    const s = await shop(t, true);
    const scarf = await product(s, 2000);
    const poncho = await product(s, 4550);
    const code = await coupon(s, { type: 'percentage', value: 2000, applicable_to: 'products', applicable_ids: [poncho.productId] });
    const o = await order(s, { line_items: [{ variant_id: scarf.variantId, quantity: 1 }, { variant_id: poncho.variantId, quantity: 1 }], discount: { code } });
    const gone = await preview(s, o.id, { changes: [{ action: 'remove', line_item_id: o.line_items[1].id }] });
    await ok(await s.admin('POST', `/api/v1/order-edits/${gone.id}/confirm`, { notify: false }), 200);
    expect(await uses(s, code)).toMatchObject({ uses_count: 0, redemptions: [{ order_id: o.id, released_at: expect.any(String) }] });
  });
});
