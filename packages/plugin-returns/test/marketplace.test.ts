import type { TestApp } from '@qhatu/core/testing';
import marketplace from '@qhatu/plugin-marketplace';
import storeCredit from '@qhatu/plugin-store-credit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fulfilledOrder, levelOf, ok, outbox, product, requestReturn, returnedAndRefunded, returnsApp, shop, shopper, STORE, type Shop } from './helpers.js';

// A split marketplace order: the returned vendor line's commission and payout are reversed (that
// vendor's, in proportion), the other vendor and the store keep theirs, and the ledger still adds
// up to what was paid net of refunds.
const MARKET = '/api/v1/marketplace';
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await returnsApp({ plugins: [...STORE, marketplace, storeCredit] });
  s = await shop(t, true);
});
afterAll(async () => t?.close());

async function vendor(pct: number): Promise<string> {
  const made = await ok(await s.admin('POST', `${MARKET}/vendors`, { name: 'Tejidos Awana', email: `v-${Math.random().toString(36).slice(2, 8)}@vendedores.pe`, country_code: 'PE', default_commission_pct: pct }), 201);
  await ok(await s.admin('PATCH', `${MARKET}/vendors/${made.id}/status`, { status: 'active' }), 200);
  return made.id;
}

const settlement = async (orderId: string) => ok(await s.admin('GET', `${MARKET}/orders/${orderId}/settlement`), 200);

describe('a return of a vendor’s item', () => {
  it('reverses that vendor’s commission and payout for it, and only them', async () => {
    const awana = await vendor(12.5);
    const inti = await vendor(10);
    const chompa = await product(s, 1500, 0);
    const poncho = await product(s, 2500, 0);
    const own = await product(s, 5000, 5);
    const a = await ok(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: awana, catalog_product_id: chompa.productId, price_override: 999, stock: 5 }), 201);
    const b = await ok(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: inti, catalog_product_id: poncho.productId, price_override: 1999, stock: 5 }), 201);
    const o = await fulfilledOrder(t, s, {
      line_items: [{ variant_id: chompa.variantId, quantity: 2, offer_id: a.id }, { variant_id: poncho.variantId, quantity: 1, offer_id: b.id }, { variant_id: own.variantId, quantity: 1 }],
    });
    expect(o.total).toBe(1998 + 1999 + 5000);
    const before = await settlement(o.id);
    // 12.5 % of 19.98 is 2.4975: 2.50; 10 % of 19.99 is 2.00 (half up).
    expect(before.vendors).toEqual(expect.arrayContaining([{ vendor_id: awana, commission: 250, payout: 1748 }, { vendor_id: inti, commission: 200, payout: 1799 }]));

    const ret = await returnedAndRefunded(s, await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }));
    expect(ret.refund_amount).toBe(999);
    await t.settle();
    const after = await settlement(o.id);
    expect(after.paid).toBe(o.total - 999);
    expect(after.vendors).toEqual(expect.arrayContaining([{ vendor_id: awana, commission: 125, payout: 874 }, { vendor_id: inti, commission: 200, payout: 1799 }]));
    expect(after.store_revenue).toBe(before.store_revenue);
    expect(after.store_revenue + after.commissions + after.payouts).toBe(after.paid);
    expect((await outbox(t, 'marketplace.commission.reversed', o.id)).some((e) => e.data.reason === 'return')).toBe(true);
    const pending = (await ok(await s.admin('GET', `${MARKET}/vendors/${awana}/payouts?status=pending`), 200))[0];
    expect(pending).toMatchObject({ amount: 874 });

    // The rest of the order comes back too: every part goes to zero, still adding up.
    await returnedAndRefunded(s, await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }, { line_item_id: o.line_items[1].id, quantity: 1 }, { line_item_id: o.line_items[2].id, quantity: 1 }] }));
    await t.settle();
    const none = await settlement(o.id);
    expect(none).toMatchObject({ paid: 0, store_revenue: 0, commissions: 0, payouts: 0 });
  });
});

/** A vendor's offer of a new catalog product at `price`, with `stock` units the vendor holds. */
async function offer(vendorId: string, price: number): Promise<{ variantId: string; offerId: string }> {
  const item = await product(s, price + 500, 0);
  const made = await ok(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: vendorId, catalog_product_id: item.productId, price_override: price, stock: 5 }), 201);
  return { variantId: item.variantId, offerId: made.id };
}

describe('a vendor’s item refunded as store credit', () => {
  it('reverses the vendor’s commission and payout as a refund through the payments would; the store keeps the money it now owes as credit', async () => {
    const awana = await vendor(12.5);
    const chompa = await offer(awana, 999);
    const own = await product(s, 5000, 5);
    const customer = await shopper(t, s);
    const o = await fulfilledOrder(t, s, {
      customer_id: customer.id, email: customer.email,
      line_items: [{ variant_id: chompa.variantId, quantity: 2, offer_id: chompa.offerId }, { variant_id: own.variantId, quantity: 1 }],
    });
    const before = await settlement(o.id);
    expect(before.vendors).toEqual([{ vendor_id: awana, commission: 250, payout: 1748 }]);

    const ret = await returnedAndRefunded(s, await requestReturn(customer.api, { order_id: o.id, refund_method: 'store_credit', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }));
    expect(ret).toMatchObject({ refund_method: 'store_credit', refund_amount: 999, refunds: [] });
    await t.settle();
    const after = await settlement(o.id);
    // Nothing went back through the payments: the customer's money stays paid, 9.99 of it now the store's credit to give.
    expect(after.paid).toBe(o.total);
    expect(after.vendors).toEqual([{ vendor_id: awana, commission: 125, payout: 874 }]);
    expect(after.store_revenue).toBe(before.store_revenue + 999);
    expect(after.store_revenue + after.commissions + after.payouts).toBe(after.paid);
    expect((await ok(await s.admin('GET', `${MARKET}/vendors/${awana}/payouts?status=pending`), 200))[0]).toMatchObject({ amount: 874 });
    expect((await ok(await customer.api('GET', '/api/v1/store-credit/me'), 200)).balances).toEqual([expect.objectContaining({ currency: 'PEN', balance: 999 })]);
  });
});

describe('an exchange of a vendor’s item for one of the store’s', () => {
  it('takes the returned item’s worth back from its vendor, and refunds the difference out of what it left with the store', async () => {
    const inti = await vendor(10);
    const poncho = await offer(inti, 1999);
    const scarf = await product(s, 1200, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: poncho.variantId, quantity: 1, offer_id: poncho.offerId }] });
    const before = await settlement(o.id);
    expect(before.vendors).toEqual([{ vendor_id: inti, commission: 200, payout: 1799 }]);
    const stock = await levelOf(s, scarf.variantId);

    const asked = await requestReturn(s.admin, { order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], new_items: [{ variant_id: scarf.variantId, quantity: 1 }] });
    expect(asked.new_items_amount).toBe(1200);
    const refunded = await returnedAndRefunded(s, asked);
    expect(refunded).toMatchObject({ kind: 'exchange', items_amount: 1999, refund_amount: 1999 - 1200 });
    await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/shipment`, { carrier: 'olva', tracking_number: 'OLV-2' }), 200);
    await t.settle();

    const after = await settlement(o.id);
    // The vendor sold nothing in the end; the store sold the scarf (12.00) and gave 7.99 back.
    expect(after.vendors).toEqual([{ vendor_id: inti, commission: 0, payout: 0 }]);
    expect(after.paid).toBe(o.total - 799);
    expect(after.store_revenue).toBe(before.store_revenue + 1200);
    expect(after.store_revenue + after.commissions + after.payouts).toBe(after.paid);
    expect(await levelOf(s, scarf.variantId)).toEqual({ on_hand: stock.on_hand - 1, reserved: stock.reserved, available: stock.available - 1 });
  });
});
