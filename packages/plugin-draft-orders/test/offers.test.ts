import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, coupon, draftApp, DRAFTS, expectError, offlineMethod, ok, product, sellerOffer, stock, taxedStore, volumeTier, type Caller, type Draft } from './helpers.js';

// A line of a seller's offer (a marketplace) in a draft: priced at the offer, with the volume tier
// and the coupon a cart would give it; placing holds the offer's units, and once the order is paid
// the marketplace splits its money exactly as for a checkout's order: the store's revenue, the
// commission and the seller's payout add up to what was paid, to the cent.
let t: TestApp;
beforeAll(async () => {
  t = await draftApp({ workers: true });
});
afterAll(async () => t?.close());

async function offerOf(admin: Caller, vendorId: string, offerId: string) {
  return (await ok(await admin('GET', `/api/v1/marketplace/vendors/${vendorId}/products`), 200)).find((o: { id: string }) => o.id === offerId);
}

/** A poncho sold by a seller at 45.00 (catalog 50.00, 10 % off from 2 units, 12.5 % commission) and a store scarf at 20.00; a 10 % coupon. */
async function marketDraft(admin: Caller) {
  const poncho = await product(admin, 5000);
  const scarf = await product(admin, 2000);
  await stock(admin, [scarf.variantId], 10);
  await volumeTier(admin, poncho.productId, 2, 1000);
  const seller = await sellerOffer(admin, poncho.productId, { price: 4500, stock: 3, commissionPct: 12.5 });
  const code = (await coupon(admin)).code;
  const draft = await ok(await admin('POST', DRAFTS, {
    email: 'rosa@example.com',
    shipping_address: ADDRESS,
    line_items: [{ variant_id: poncho.variantId, offer_id: seller.offerId, quantity: 2 }, { variant_id: scarf.variantId, quantity: 1 }],
    shipping: { carrier: 'olva', service: 'standard' },
    discount: { code },
  }), 201) as Draft;
  return { draft, poncho, scarf, seller };
}

for (const includeTax of [false, true]) {
  describe(`prices ${includeTax ? 'with' : 'without'} tax`, () => {
    it("prices the offer's line as a cart would, and the paid order's money is split to the cent", async () => {
      const { admin } = await taxedStore(t, { includeTax });
      const method = await offlineMethod(admin);
      const { draft, seller } = await marketDraft(admin);
      // 2 × 45.00 = 90.00 less 9.00 (tier) = 81.00; 20.00; the coupon, 10 % of 101.00, spread 8.10 and 2.00.
      expect(draft.line_items.map((l) => [l.offer_id, l.catalog_price, l.unit_price, l.volume_discount, l.discount_amount, l.total])).toEqual([
        [seller.offerId, 5000, 4500, 900, 1710, 7290],
        [null, 2000, 2000, 0, 200, 1800],
      ]);
      const tax = includeTax ? [1112, 275, 229] : [1312, 324, 270];
      expect([...draft.line_items.map((l) => l.tax_amount), draft.shipping_tax]).toEqual(tax);
      const total = 11000 - 1910 + 1500 + (includeTax ? 0 : 1906);
      expect(draft).toMatchObject({ subtotal: 11000, discount_total: 1910, shipping_total: 1500, tax_total: tax[0] + tax[1] + tax[2], total });

      const done = await ok(await admin('POST', `${DRAFTS}/${draft.id}/complete`, { payment: { method_id: method } }), 200);
      await t.settle();
      const order = await ok(await admin('GET', `/api/v1/orders/${done.order_id}`), 200);
      expect(order).toMatchObject({ status: 'paid', total, amount_paid: total });
      expect(order.line_items[0]).toMatchObject({ offer_id: seller.offerId, unit_price_amount: 4500, discount_amount: 1710, tax_amount: tax[0] });
      // Sold: the units are off the seller's stock.
      expect(await offerOf(admin, seller.vendorId, seller.offerId)).toMatchObject({ stock: 1, reserved: 0, available: 1 });

      const split = await ok(await admin('GET', `/api/v1/marketplace/orders/${done.order_id}/settlement`), 200);
      // What the customer paid for the seller's line (its tax inside it), 12.5 % of it the commission, half up.
      const sold = 7290 + (includeTax ? 0 : tax[0]);
      const commission = Math.round(sold * 0.125);
      expect(split).toMatchObject({ paid: total, commissions: commission, payouts: sold - commission, store_revenue: total - sold });
      expect(split.store_revenue + split.commissions + split.payouts).toBe(total);
    });
  });
}

describe("a seller's offer", () => {
  it('holds its units when placed: the draft wanting more than are left is refused whole (409), nothing placed', async () => {
    const { admin } = await taxedStore(t, { includeTax: false });
    const { draft, poncho, seller } = await marketDraft(admin);
    await ok(await admin('POST', `${DRAFTS}/${draft.id}/send-invoice`, { notify: false }), 200);
    expect(await offerOf(admin, seller.vendorId, seller.offerId)).toMatchObject({ stock: 3, reserved: 2, available: 1 });
    const second = await ok(await admin('POST', DRAFTS, { email: 'ana@example.com', shipping_address: ADDRESS, line_items: [{ variant_id: poncho.variantId, offer_id: seller.offerId, quantity: 2 }] }), 201);
    expectError(await admin('POST', `${DRAFTS}/${second.id}/complete`, {}), 409, 'OFFER_OUT_OF_STOCK');
    expect(await ok(await admin('GET', `${DRAFTS}/${second.id}`), 200)).toMatchObject({ status: 'open', order_id: null });
    expect(await offerOf(admin, seller.vendorId, seller.offerId)).toMatchObject({ reserved: 2, available: 1 });
    // Taking the invoice back gives the units back to the seller.
    await ok(await admin('POST', `${DRAFTS}/${draft.id}/reopen`), 200);
    expect(await offerOf(admin, seller.vendorId, seller.offerId)).toMatchObject({ reserved: 0, available: 3 });
  });

  it("is sold at the seller's price: no override; one variant on one offer; another store's offer is not for sale", async () => {
    const { tenant, admin } = await taxedStore(t, { includeTax: false });
    const { draft, poncho, seller } = await marketDraft(admin);
    expectError(await admin('POST', DRAFTS, { email: 'a@example.com', line_items: [{ variant_id: poncho.variantId, offer_id: seller.offerId, quantity: 1, price_override: { amount: 100, reason: 'friend' } }] }), 400, 'VALIDATION_ERROR');
    expectError(await admin('PATCH', `${DRAFTS}/${draft.id}/line-items/${draft.line_items[0].id}`, { price_override: { amount: 100, reason: 'friend' } }), 400, 'VALIDATION_ERROR');
    expectError(await admin('POST', `${DRAFTS}/${draft.id}/line-items`, { variant_id: poncho.variantId, quantity: 1 }), 409, 'OFFER_MISMATCH');
    // More of the same offer goes to its line.
    const more = await ok(await admin('POST', `${DRAFTS}/${draft.id}/line-items`, { variant_id: poncho.variantId, offer_id: seller.offerId, quantity: 1 }), 200);
    expect(more.line_items[0]).toMatchObject({ quantity: 3, unit_price: 4500 });
    const read = await t.request({ method: 'POST', url: '/graphql', headers: tenant.headers(), payload: { query: `{ draftOrder(id: "${draft.id}") { lineItems { offerId unitPrice } } }` } });
    expect(read.json().data.draftOrder.lineItems, read.body).toEqual([{ offerId: seller.offerId, unitPrice: 4500 }, { offerId: null, unitPrice: 2000 }]);

    const other = await taxedStore(t, { includeTax: false });
    const theirs = await product(other.admin, 5000);
    const offer = await sellerOffer(other.admin, theirs.productId, { price: 100, stock: 5, commissionPct: 10 });
    const refused = expectError(await admin('POST', `${DRAFTS}/${draft.id}/line-items`, { variant_id: poncho.variantId, offer_id: offer.offerId, quantity: 1 }), 409, 'OFFER_MISMATCH');
    expect(refused.details[0]).toMatchObject({ offer_id: seller.offerId });
    const alone = expectError(await admin('POST', DRAFTS, { email: 'a@example.com', line_items: [{ variant_id: poncho.variantId, offer_id: offer.offerId, quantity: 1 }] }), 422, 'OFFER_NOT_AVAILABLE');
    expect(alone.details[0]).toMatchObject({ path: 'line_items.0', offer_id: offer.offerId });
    expect(tenant.id).not.toBe(other.tenant.id);
  });
});
