import type { TestApp } from '@qhatu/core/testing';
import marketplace from '@qhatu/plugin-marketplace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fulfilledOrder, ok, outbox, product, requestReturn, returnedAndRefunded, returnsApp, shop, STORE, type Shop } from './helpers.js';

// A split marketplace order: the returned vendor line's commission and payout are reversed (that
// vendor's, in proportion), the other vendor and the store keep theirs, and the ledger still adds
// up to what was paid net of refunds.
const MARKET = '/api/v1/marketplace';
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await returnsApp({ plugins: [...STORE, marketplace] });
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
