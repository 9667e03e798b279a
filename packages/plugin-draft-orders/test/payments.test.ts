import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, caller, draftApp, DRAFTS, expectError, levelOf, offlineMethod, ok, outbox, product, staffWith, stock, taxedStore, tokenOf, type Caller, type Draft } from './helpers.js';

// Paid by an offline method, recorded by staff at once or by the customer through the invoice
// link: the order moves exactly as it does for any payment (workers run the event jobs), and the
// draft completes with it.
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let warehouse: string;
let method: string;
beforeAll(async () => {
  t = await draftApp({ workers: true });
  ({ tenant: shop, admin } = await taxedStore(t, { includeTax: true }));
  warehouse = (await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Cusco', code: 'WH-CUSCO' }), 201)).id;
  method = await offlineMethod(admin);
});
afterAll(async () => t?.close());

async function invoiceable(quantity = 2): Promise<{ draft: Draft; variantId: string }> {
  const p = await product(admin, 4000);
  await stock(admin, [p.variantId], 5, warehouse);
  const draft = await ok(await admin('POST', DRAFTS, { email: 'rosa@example.com', shipping_address: ADDRESS, line_items: [{ variant_id: p.variantId, quantity }], shipping: { carrier: 'olva', service: 'standard' } }), 201);
  return { draft, variantId: p.variantId };
}

describe('completing with a payment received', () => {
  it('places the order, records the payment and its receipt, and the order is paid', async () => {
    const { draft, variantId } = await invoiceable();
    expect(draft.total).toBe(9500);
    const done = await ok(await admin('POST', `${DRAFTS}/${draft.id}/complete`, { payment: { method_id: method, reference: 'YAPE-0001' } }), 200);
    expect(done).toMatchObject({ status: 'completed', completed_at: expect.any(String), order_id: expect.any(String) });
    await t.settle();
    const order = await ok(await admin('GET', `/api/v1/orders/${done.order_id}`), 200);
    expect(order).toMatchObject({ status: 'paid', total: 9500, amount_paid: 9500, amount_due: 0 });
    const [payment] = await ok(await admin('GET', `/api/v1/payments?filter[order_id]=${done.order_id}`), 200);
    expect(payment).toMatchObject({ gateway: 'offline', status: 'paid', amount: 9500 });
    const [receipt] = await ok(await admin('GET', `/api/v1/payments/offline/receipts?filter[order_id]=${done.order_id}`), 200);
    expect(receipt).toMatchObject({ amount: 9500, reference: 'YAPE-0001', payment_id: payment.id });
    expect(await levelOf(admin, warehouse, variantId)).toEqual({ on_hand: 5, reserved: 2, available: 3 });
    expect((await outbox(t, 'draft-orders.draft.completed', draft.id)).map((e) => e.data)).toEqual([expect.objectContaining({ status: 'completed', order_id: done.order_id })]);
  });

  it('needs payments.capture to record money; refused, nothing is placed', async () => {
    const { draft } = await invoiceable();
    const clerk = await staffWith(t, shop, ['draft-orders.write']);
    const before = (await ok(await admin('GET', '/api/v1/orders?limit=100'), 200)).length;
    const refused = expectError(await caller(t, shop, clerk.token)('POST', `${DRAFTS}/${draft.id}/complete`, { payment: { method_id: method } }), 403, 'FORBIDDEN');
    expect(refused.details[0]).toMatchObject({ permission: 'payments.capture' });
    expect(await ok(await admin('GET', `${DRAFTS}/${draft.id}`), 200)).toMatchObject({ status: 'open', order_id: null });
    expect((await ok(await admin('GET', '/api/v1/orders?limit=100'), 200)).length).toBe(before);
  });

  it('places nothing when recording the receipt fails after the payment was recorded: one transaction', async () => {
    const { draft, variantId } = await invoiceable();
    const db = t.app.orm.em.getConnection();
    const orders = async () => (await ok(await admin('GET', '/api/v1/orders?limit=100'), 200)).length;
    const before = await orders();
    // A failure injected between the two steps: the payment row is written, its receipt is refused.
    await db.execute(`create function refuse_receipt() returns trigger language plpgsql as $$ begin raise exception 'receipt refused'; end $$;
      create trigger refuse_receipt before insert on offline_receipt for each row execute function refuse_receipt()`);
    try {
      const failed = await admin('POST', `${DRAFTS}/${draft.id}/complete`, { payment: { method_id: method, reference: 'YAPE-CRASH' } });
      expect(failed.statusCode, failed.body).toBe(500);
    } finally {
      await db.execute('drop trigger refuse_receipt on offline_receipt; drop function refuse_receipt()');
    }
    expect(await ok(await admin('GET', `${DRAFTS}/${draft.id}`), 200)).toMatchObject({ status: 'open', order_id: null });
    expect(await orders()).toBe(before);
    expect(await levelOf(admin, warehouse, variantId)).toEqual({ on_hand: 5, reserved: 0, available: 5 });
    const [{ n }] = await db.execute<Array<{ n: number }>>(`select count(*)::int as n from payments_payment where tenant_id = ?`, [shop.id]);
    const completed = await ok(await admin('POST', `${DRAFTS}/${draft.id}/complete`, { payment: { method_id: method, reference: 'YAPE-CRASH' } }), 200);
    await t.settle();
    expect(await ok(await admin('GET', `/api/v1/orders/${completed.order_id}`), 200)).toMatchObject({ status: 'paid', amount_paid: 9500, amount_due: 0 });
    const [{ m }] = await db.execute<Array<{ m: number }>>(`select count(*)::int as m from payments_payment where tenant_id = ?`, [shop.id]);
    expect(m).toBe(n + 1);
  });

  it('refuses a reference another receipt of the method counts (409), and nothing is placed', async () => {
    const first = await invoiceable(1);
    await ok(await admin('POST', `${DRAFTS}/${first.draft.id}/complete`, { payment: { method_id: method, reference: 'YAPE-TWICE' } }), 200);
    const { draft, variantId } = await invoiceable(1);
    expectError(await admin('POST', `${DRAFTS}/${draft.id}/complete`, { payment: { method_id: method, reference: 'YAPE-TWICE' } }), 409, 'RECEIPT_REFERENCE_USED');
    expect(await ok(await admin('GET', `${DRAFTS}/${draft.id}`), 200)).toMatchObject({ status: 'open', order_id: null });
    expect(await levelOf(admin, warehouse, variantId)).toEqual({ on_hand: 5, reserved: 0, available: 5 });
  });

  it("refuses a method the store does not have, and nothing is placed", async () => {
    const { draft } = await invoiceable();
    const before = (await ok(await admin('GET', '/api/v1/orders?limit=100'), 200)).length;
    expectError(await admin('POST', `${DRAFTS}/${draft.id}/complete`, { payment: { method_id: '00000000-0000-4000-8000-000000000002' } }), 422, 'PAYMENT_METHOD_UNAVAILABLE');
    expect(await ok(await admin('GET', `${DRAFTS}/${draft.id}`), 200)).toMatchObject({ status: 'open', order_id: null });
    expect((await ok(await admin('GET', '/api/v1/orders?limit=100'), 200)).length).toBe(before);
  });
});

describe('an invoice paid by the customer', () => {
  it('completes the draft once its order is paid', async () => {
    const { draft } = await invoiceable(1);
    const sent = await ok(await admin('POST', `${DRAFTS}/${draft.id}/send-invoice`, {}), 200);
    // The storefront page behind the link: the invoice, then a payment with the store's key.
    const invoice = (await t.request({ method: 'GET', url: `/api/v1/draft-orders/invoice?token=${encodeURIComponent(tokenOf(sent.invoice_url))}` })).json().data;
    expect(invoice).toMatchObject({ tenant_id: shop.id, order_id: sent.order_id, amount_due: 5500 });
    const storefront = caller(t, shop, shop.storefrontToken);
    const payment = await ok(await storefront('POST', '/api/v1/payments', { order_id: invoice.order_id, gateway: 'offline', amount: invoice.amount_due, currency: invoice.currency, method_id: method, payer_reference: 'op 778899' }), 201);
    await t.settle();
    expect(await ok(await admin('GET', `${DRAFTS}/${draft.id}`), 200)).toMatchObject({ status: 'invoice_sent' });
    await ok(await admin('POST', '/api/v1/payments/offline/receipts', { payment_id: payment.id, amount: 5500, reference: 'op 778899' }), 201);
    await t.settle();
    expect(await ok(await admin('GET', `/api/v1/orders/${sent.order_id}`), 200)).toMatchObject({ status: 'paid', amount_due: 0 });
    expect(await ok(await admin('GET', `${DRAFTS}/${draft.id}`), 200)).toMatchObject({ status: 'completed' });
    const paid = (await t.request({ method: 'GET', url: `/api/v1/draft-orders/invoice?token=${encodeURIComponent(tokenOf(sent.invoice_url))}` })).json().data;
    expect(paid).toMatchObject({ order_status: 'paid', amount_due: 0 });
  });

  it('keeps a draft whose order took money from being taken back (409), and one whose order was cancelled elsewhere opens again', async () => {
    const { draft } = await invoiceable(1);
    const sent = await ok(await admin('POST', `${DRAFTS}/${draft.id}/send-invoice`, { notify: false }), 200);
    const part = await ok(await admin('POST', '/api/v1/payments', { order_id: sent.order_id, gateway: 'offline', amount: 2000, currency: 'PEN', method_id: method }), 201);
    await ok(await admin('POST', '/api/v1/payments/offline/receipts', { payment_id: part.id, amount: 2000 }), 201);
    await t.settle();
    expectError(await admin('POST', `${DRAFTS}/${draft.id}/reopen`), 409, 'DRAFT_ORDER_PAID');
    expectError(await admin('POST', `${DRAFTS}/${draft.id}/cancel`), 409, 'DRAFT_ORDER_PAID');

    const other = await invoiceable(1);
    const out = await ok(await admin('POST', `${DRAFTS}/${other.draft.id}/send-invoice`, { notify: false }), 200);
    await ok(await admin('POST', `/api/v1/orders/${out.order_id}/cancel`, { reason: 'customer called' }), 200);
    await t.settle();
    expect(await ok(await admin('GET', `${DRAFTS}/${other.draft.id}`), 200)).toMatchObject({ status: 'open', order_id: null, invoice_url: null });
  });
});
