import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { PaymentSweep } from '@qhatu/plugin-payments';
import { caller, MISSING, ok, outbox, PAYMENTS, until, type Caller } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMethod, awaitingPayment, expectError, gql, instant, OFFLINE_PAYMENTS, offlineStore, RECEIPTS, staffWith, switchOn } from './helpers.js';

// cart → checkout → offline payment (pending) → receipts recorded by the staff → payment paid → order
// paid (stock reserved) → checkout completed → refund recorded; workers run the event jobs.
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let warehouse: string;
let transfer: { id: string; instructions: string };
let cod: { id: string };

beforeAll(async () => {
  // The payments sweep re-reads open payments left for a second (not two minutes), as it would later.
  ({ t, shop, other, admin, store, warehouse } = await offlineStore({ extra: [instant], env: { QHATU_PAYMENTS_SWEEP_AFTER_SECONDS: '1' } }));
  await switchOn(admin);
  await ok(await admin('PUT', '/api/v1/payments/gateways/instant', { enabled: true }), 200);
  transfer = await addMethod(admin, { name: 'Transferencia BCP', position: 2 });
  cod = await addMethod(admin, { name: 'Contra entrega', kind: 'cash_on_delivery', instructions: 'Paga en efectivo al recibir; el courier lleva vuelto', position: 1 });
});
afterAll(() => t?.close());

const orderOf = async (id: string) => (await admin('GET', `/api/v1/orders/${id}`)).json().data;
const checkoutStatus = async (id: string) => (await store('GET', `/api/v1/checkout/checkouts/${id}`)).json().data.status as string;
const pay = (c: { order_id: string; total: number }, methodId: string, extra: Record<string, unknown> = {}, amount = c.total) =>
  store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'offline', amount, currency: 'PEN', method_id: methodId, ...extra });
const receive = (paymentId: string, amount: number, extra: Record<string, unknown> = {}, api: Caller = admin) => api('POST', RECEIPTS, { payment_id: paymentId, amount, ...extra });

/** A checkout paid with `methodId`: the payment 201 pending. */
async function pendingPayment(methodId: string, extra: Record<string, unknown> = {}) {
  const placed = await awaitingPayment(admin, store, warehouse);
  const payment = await ok(await pay(placed.checkout, methodId, extra), 201);
  expect(payment).toMatchObject({ status: 'pending', gateway: 'offline', amount: 9500, provider_payment_id: null, next_action: null });
  return { ...placed, payment: payment as { id: string; order_id: string; amount: number } };
}

describe('a checkout paid by bank transfer', () => {
  let placed: Awaited<ReturnType<typeof pendingPayment>>;

  it('the storefront offers the method with its instructions; the payment waits, pending, and the order with it', async () => {
    const available = await ok(await store('GET', `/api/v1/payments/offline/available-methods?currency=PEN`), 200);
    expect(available.map((m: { name: string }) => m.name)).toEqual(['Contra entrega', 'Transferencia BCP']);
    placed = await pendingPayment(transfer.id, { payer_reference: 'Rosa Quispe, Yape 987654321' });
    expect(placed.payment).toMatchObject({ method: 'bank_transfer', failure_reason: null, captured_at: null });
    const view = await ok(await store('GET', `${OFFLINE_PAYMENTS}/${placed.payment.id}`), 200);
    expect(view).toEqual({
      payment_id: placed.payment.id, order_id: placed.checkout.order_id, status: 'pending', amount: 9500, currency: 'PEN', received_amount: 0, outstanding_amount: 9500,
      method: { id: transfer.id, name: 'Transferencia BCP', kind: 'bank_transfer', instructions: transfer.instructions },
      payer_reference: 'Rosa Quispe, Yape 987654321', cancelled_at: null, created_at: expect.any(String),
    });
    // Polling the payment changes nothing: nothing was received.
    expect((await store('GET', `${PAYMENTS}/${placed.payment.id}`)).json().data).toMatchObject({ status: 'pending', provider_payment_id: null });
    expect(await orderOf(placed.checkout.order_id)).toMatchObject({ status: 'pending', amount_paid: 0, amount_due: 9500 });
    expect(await checkoutStatus(placed.checkout.id)).toBe('payment_pending');
  });

  it('a first receipt of part of it leaves the payment pending and the order unpaid', async () => {
    const first = await ok(await receive(placed.payment.id, 4000, { reference: 'OP-100231', note: 'Primer abono', received_at: '2026-03-02T10:15:00-05:00' }), 201);
    expect(first).toMatchObject({
      payment_id: placed.payment.id, order_id: placed.checkout.order_id, method_id: transfer.id, amount: 4000, currency: 'PEN', reference: 'OP-100231',
      note: 'Primer abono', received_at: '2026-03-02T15:15:00.000Z', recorded_by: expect.any(String), voided_at: null,
      payment: { status: 'pending', received_amount: 4000, outstanding_amount: 5500 },
    });
    const [recorded] = await outbox(t, 'payments.offline_receipt.recorded', first.id);
    expect(recorded.data).toEqual({
      id: first.id, payment_id: placed.payment.id, order_id: placed.checkout.order_id, method_id: transfer.id, amount: 4000, currency: 'PEN', reference: 'OP-100231',
      received_at: '2026-03-02T15:15:00.000Z', received_amount: 4000, outstanding_amount: 5500, payment_status: 'pending',
    });
    // The payment now answers for the money received: its provider id is its own.
    expect((await store('GET', `${PAYMENTS}/${placed.payment.id}`)).json().data).toMatchObject({ status: 'pending', provider_payment_id: placed.payment.id, captured_at: null });
    expect(await outbox(t, 'payments.payment.confirmed', placed.payment.id)).toHaveLength(0);
    expect(await orderOf(placed.checkout.order_id)).toMatchObject({ status: 'pending', amount_paid: 0, amount_due: 9500, paid_at: null });
    expect(await checkoutStatus(placed.checkout.id)).toBe('payment_pending');
  });

  it('more than is outstanding is refused with what is left; a reference that counts already is refused', async () => {
    const over = expectError(await receive(placed.payment.id, 5501), 422, 'RECEIPT_EXCEEDS_OUTSTANDING');
    expect(over.details).toEqual([{ path: 'body.amount', message: 'must be at most 5500', outstanding_amount: 5500, received_amount: 4000, payment_amount: 9500 }]);
    const again = expectError(await receive(placed.payment.id, 100, { reference: 'OP-100231' }), 409, 'RECEIPT_REFERENCE_USED');
    expect(again.details[0]).toMatchObject({ path: 'body.reference' });
    const future = expectError(await receive(placed.payment.id, 100, { received_at: new Date(Date.now() + 3_600_000).toISOString() }), 400, 'VALIDATION_ERROR');
    expect(future.details).toEqual([{ path: 'body.received_at', message: 'must not be in the future' }]);
    expect((await ok(await store('GET', `${OFFLINE_PAYMENTS}/${placed.payment.id}`), 200)).received_amount).toBe(4000);
  });

  it('the receipt that completes the amount pays it: order pending → confirmed → paid, stock reserved, checkout completed', async () => {
    const last = await ok(await receive(placed.payment.id, 5500, { reference: 'OP-100388' }), 201);
    expect(last.payment).toMatchObject({ status: 'paid', received_amount: 9500, outstanding_amount: 0 });
    const payment = (await store('GET', `${PAYMENTS}/${placed.payment.id}`)).json().data;
    expect(payment).toMatchObject({ status: 'paid', method: 'bank_transfer', provider_payment_id: placed.payment.id, captured_at: expect.any(String) });
    await until(async () => (await checkoutStatus(placed.checkout.id)) === 'completed' && (await orderOf(placed.checkout.order_id)).status === 'paid');
    const order = await orderOf(placed.checkout.order_id);
    expect(order).toMatchObject({ amount_paid: 9500, amount_due: 0, paid_at: expect.any(String) });
    expect(order.history.map((h: { from: string; to: string; note: string }) => `${h.from}→${h.to} ${h.note}`)).toEqual([
      `pending→confirmed payment ${placed.payment.id}`, `confirmed→paid payment ${placed.payment.id}`,
    ]);
    expect(JSON.stringify((await admin('GET', `/api/v1/inventory/warehouses/${warehouse}/stock?filter[variant_id]=${placed.variant}`)).json())).toContain('"reserved":2');
    expect(await outbox(t, 'payments.payment.confirmed', placed.payment.id)).toHaveLength(1);
    const [captured] = await outbox(t, 'payments.payment.captured', placed.payment.id);
    expect(captured.data).toMatchObject({ id: placed.payment.id, order_id: placed.checkout.order_id, amount: 9500, currency: 'PEN', method: 'bank_transfer', status: 'paid' });
    expect((await outbox(t, 'payments.offline_receipt.recorded', last.id))[0].data).toMatchObject({ received_amount: 9500, outstanding_amount: 0, payment_status: 'paid' });

    // Paid: nothing more is taken, no receipt is voided (its money goes back by refund).
    expectError(await receive(placed.payment.id, 1), 409, 'PAYMENT_NOT_PENDING');
    expectError(await admin('POST', `${RECEIPTS}/${last.id}/void`, { reason: 'error' }), 409, 'PAYMENT_NOT_PENDING');
    const listed = await ok(await admin('GET', `${RECEIPTS}?filter[payment_id]=${placed.payment.id}`), 200);
    expect(listed.map((r: { amount: number }) => r.amount)).toEqual([5500, 4000]);
  });

  it('a refund is recorded, not sent: refunded at once, in parts, and the order is refunded with it', async () => {
    const capturer = await staffWith(t, shop, ['payments.capture', 'payments.read']);
    expectError(await caller(t, shop, capturer)('POST', `${PAYMENTS}/${placed.payment.id}/refund`, { amount: 1500 }), 403, 'FORBIDDEN');
    const refunder = caller(t, shop, await staffWith(t, shop, ['payments.refund']));
    const part = await ok(await refunder('POST', `${PAYMENTS}/${placed.payment.id}/refund`, { amount: 1500, reason: 'requested_by_customer' }), 201);
    expect(part).toMatchObject({ amount: 1500, status: 'refunded', provider_refund_id: null, failure_reason: null });
    expect((await orderOf(placed.checkout.order_id)).status).toBe('paid');
    const rest = await ok(await refunder('POST', `${PAYMENTS}/${placed.payment.id}/refund`, { amount: 0 }), 201);
    expect(rest).toMatchObject({ amount: 8000, status: 'refunded' });
    expect((await admin('GET', `${PAYMENTS}/${placed.payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    await until(async () => (await orderOf(placed.checkout.order_id)).status === 'refunded');
    expect(await outbox(t, 'payments.refund.refunded', rest.id)).toHaveLength(1);
  });
});

describe('receipts recorded at once', () => {
  it('ten at once each count once: the payment is paid exactly once, by the tenth', async () => {
    const { checkout: c, payment } = await pendingPayment(transfer.id);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => receive(payment.id, 950, { reference: `LOTE-A-${i}` })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(201));
    // Each one saw the ones before it: the running totals are 950, 1900, … 9500, each once.
    const totals = answers.map((a) => a.json().data.payment.received_amount as number).sort((a, b) => a - b);
    expect(totals).toEqual(Array.from({ length: 10 }, (_, i) => 950 * (i + 1)));
    expect(answers.filter((a) => a.json().data.payment.status === 'paid')).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
    await until(async () => (await orderOf(c.order_id)).status === 'paid');
    expect(await orderOf(c.order_id)).toMatchObject({ amount_paid: 9500 });
  });

  it('a receipt sent again with its Idempotency-Key is recorded once', async () => {
    const { payment } = await pendingPayment(transfer.id);
    const send = () => t.request({ method: 'POST', url: RECEIPTS, headers: { ...shop.headers(), 'idempotency-key': `receipt-${payment.id}` }, payload: { payment_id: payment.id, amount: 2500 } });
    const [a, b] = [await send(), await send()];
    expect(b.json().data.id).toBe(a.json().data.id);
    expect(await ok(await admin('GET', `${RECEIPTS}?filter[payment_id]=${payment.id}`), 200)).toHaveLength(1);
    expect((await ok(await admin('GET', `${OFFLINE_PAYMENTS}/${payment.id}`), 200)).received_amount).toBe(2500);
  });

  it('ten at once above the amount: those that fit are taken, the others refused, never more than the amount', async () => {
    const { checkout: c, payment } = await pendingPayment(transfer.id);
    const answers = await Promise.all(Array.from({ length: 10 }, () => receive(payment.id, 2000)));
    const taken = answers.filter((a) => a.statusCode === 201);
    const refused = answers.filter((a) => a.statusCode !== 201);
    expect(taken).toHaveLength(4);
    expect(refused).toHaveLength(6);
    for (const r of refused) expect(r.json().error).toMatchObject({ code: 'RECEIPT_EXCEEDS_OUTSTANDING', details: [{ outstanding_amount: 1500, received_amount: 8000 }] });
    const view = await ok(await admin('GET', `${OFFLINE_PAYMENTS}/${payment.id}`), 200);
    expect(view).toMatchObject({ status: 'pending', received_amount: 8000, outstanding_amount: 1500 });
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(0);
    expect((await ok(await receive(payment.id, 1500), 201)).payment.status).toBe('paid');
    await until(async () => (await orderOf(c.order_id)).status === 'paid');
  });
});

describe('payments waiting for their money', () => {
  it('the payments sweep leaves them pending, with or without part received', async () => {
    const none = (await pendingPayment(transfer.id)).payment;
    const part = (await pendingPayment(transfer.id)).payment;
    await ok(await receive(part.id, 1000), 201);
    await new Promise((r) => setTimeout(r, 1100));
    const touched = async (id: string) =>
      new Date((await t.app.orm.em.getConnection().execute<Array<{ at: string }>>('select updated_at as at from payments_payment where id = ?', [id]))[0].at).getTime();
    const before = { none: await touched(none.id), part: await touched(part.id) };
    const swept = await t.app.container.resolve(PaymentSweep).run();
    // Only the one with money received answers for itself (it has a provider id): re-read here, still pending.
    expect(swept.payments).toBeGreaterThanOrEqual(1);
    expect(await touched(part.id)).toBeGreaterThan(before.part);
    expect(await touched(none.id)).toBe(before.none);
    for (const id of [none.id, part.id]) expect((await admin('GET', `${PAYMENTS}/${id}`)).json().data.status).toBe('pending');
    expect((await ok(await admin('GET', `${OFFLINE_PAYMENTS}/${part.id}`), 200)).received_amount).toBe(1000);
  });
});

describe('receipts over GraphQL', () => {
  const RECORD = `mutation($input: RecordOfflineReceiptInput!) { recordOfflineReceipt(input: $input) { receipt { id amount reference receivedAt voidedAt } payment { paymentId status receivedAmount outstandingAmount } } }`;

  it('records, lists and voids receipts; the one that completes the amount pays the order', async () => {
    const { checkout: c, payment } = await pendingPayment(transfer.id);
    const first = (await gql(t, shop, RECORD, { input: { paymentId: payment.id, amount: 3500, reference: 'GQL-1', receivedAt: '2026-03-03T09:00:00-05:00' } })).json();
    expect(first.errors).toBeUndefined();
    expect(first.data.recordOfflineReceipt).toEqual({
      receipt: { id: expect.any(String), amount: 3500, reference: 'GQL-1', receivedAt: '2026-03-03T14:00:00.000Z', voidedAt: null },
      payment: { paymentId: payment.id, status: 'pending', receivedAmount: 3500, outstandingAmount: 6000 },
    });
    const over = (await gql(t, shop, RECORD, { input: { paymentId: payment.id, amount: 6001 } })).json();
    expect(over.errors[0].extensions.code).toBe('RECEIPT_EXCEEDS_OUTSTANDING');
    const voided = (await gql(t, shop, `mutation($id: ID!) { voidOfflineReceipt(id: $id, reason: "Monto equivocado") { receipt { voidedAt } payment { receivedAmount } } }`, { id: first.data.recordOfflineReceipt.receipt.id })).json();
    expect(voided.data.voidOfflineReceipt).toEqual({ receipt: { voidedAt: expect.any(String) }, payment: { receivedAmount: 0 } });
    const full = (await gql(t, shop, RECORD, { input: { paymentId: payment.id, amount: 9500, reference: 'GQL-1' } })).json();
    expect(full.data.recordOfflineReceipt.payment).toMatchObject({ status: 'paid', receivedAmount: 9500, outstandingAmount: 0 });
    const listed = (await gql(t, shop, `query($id: ID) { offlineReceipts(paymentId: $id, limit: 1) { edges { node { amount voidReason } } pageInfo { hasNextPage } } }`, { id: payment.id })).json();
    expect(listed.data.offlineReceipts).toEqual({ edges: [{ node: { amount: 9500, voidReason: null } }], pageInfo: { hasNextPage: true } });
    await until(async () => (await orderOf(c.order_id)).status === 'paid');
    const foreign = (await gql(t, other, RECORD, { input: { paymentId: payment.id, amount: 1 } })).json();
    expect(foreign.errors[0].extensions.code).toBe('RESOURCE_NOT_FOUND');
  });
});

describe('cash on delivery', () => {
  it('the order is fulfilled before it is paid, and paid when the courier’s cash is recorded', async () => {
    const { checkout: c, payment } = await pendingPayment(cod.id);
    expect(payment).toMatchObject({ method: 'cash_on_delivery' });
    const fulfilment = await ok(await admin('POST', `/api/v1/orders/${c.order_id}/fulfillments`, { carrier: 'Olva', tracking_number: 'OLV-555' }), 201);
    expect(await orderOf(c.order_id)).toMatchObject({ status: 'fulfilled', amount_paid: 0, amount_due: 9500 });
    await ok(await admin('POST', `/api/v1/fulfillments/${fulfilment.id}/delivered`), 200);

    const cash = await ok(await receive(payment.id, 9500, { reference: 'OLV-555', note: 'Cobrado por el courier' }), 201);
    expect(cash.payment).toMatchObject({ status: 'paid', received_amount: 9500 });
    // Shipped already: the order keeps its fulfilled state, now paid; its checkout completes by itself.
    await until(async () => (await checkoutStatus(c.id)) === 'completed');
    const order = await orderOf(c.order_id);
    expect(order).toMatchObject({ status: 'fulfilled', amount_paid: 9500, amount_due: 0, paid_at: expect.any(String) });
    expect(order.history.at(-1)).toMatchObject({ action: 'note', from: 'fulfilled', to: 'fulfilled', note: `paid (payment ${payment.id}) after it shipped` });
    const [paid] = await outbox(t, 'orders.order.paid', c.order_id);
    expect(paid.data).toMatchObject({ id: c.order_id, status: 'fulfilled', previous_status: 'fulfilled' });
    const [captured] = await outbox(t, 'payments.payment.captured', payment.id);
    expect(captured.data).toMatchObject({ method: 'cash_on_delivery', amount: 9500, status: 'paid' });
  });
});

describe('cancelling and voiding', () => {
  it('a payment with nothing received is cancelled at once and takes no receipt after', async () => {
    const { checkout: c, payment } = await pendingPayment(transfer.id);
    // The order cannot be cancelled under a pending payment.
    expectError(await admin('POST', `/api/v1/orders/${c.order_id}/cancel`, { reason: 'customer' }), 409, 'PAYMENT_IN_PROGRESS');
    const cancelled = await ok(await store('POST', `${PAYMENTS}/${payment.id}/cancel`), 200);
    expect(cancelled).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('Cancelled') });
    expectError(await receive(payment.id, 100), 409, 'PAYMENT_NOT_PENDING');
    // Its amount is free again: the order can be paid another way.
    expect((await ok(await pay(c, cod.id), 201)).status).toBe('pending');
  });

  it('a payment with money received is not cancelled; once its receipts are voided, it is', async () => {
    const { payment } = await pendingPayment(transfer.id);
    const part = await ok(await receive(payment.id, 3000, { reference: 'OP-7001' }), 201);
    const refused = expectError(await store('POST', `${PAYMENTS}/${payment.id}/cancel`), 409, 'PAYMENT_STILL_OPEN');
    expect(refused.details[0]).toMatchObject({ provider_status: 'pending' });
    expect((await ok(await admin('GET', `${OFFLINE_PAYMENTS}/${payment.id}`), 200)).received_amount).toBe(3000);

    expectError(await admin('POST', `${RECEIPTS}/${part.id}/void`, {}), 400, 'VALIDATION_ERROR');
    const voided = await ok(await admin('POST', `${RECEIPTS}/${part.id}/void`, { reason: 'Devuelto al cliente: pedido anulado' }), 200);
    expect(voided).toMatchObject({ voided_at: expect.any(String), void_reason: 'Devuelto al cliente: pedido anulado', voided_by: expect.any(String), payment: { status: 'pending', received_amount: 0 } });
    expect((await outbox(t, 'payments.offline_receipt.voided', part.id))[0].data).toMatchObject({ void_reason: 'Devuelto al cliente: pedido anulado', received_amount: 0, outstanding_amount: 9500 });
    expectError(await admin('POST', `${RECEIPTS}/${part.id}/void`, { reason: 'again' }), 409, 'RECEIPT_VOIDED');
    // A voided receipt no longer holds its reference.
    expect((await ok(await admin('GET', `${RECEIPTS}?filter[payment_id]=${payment.id}&filter[voided]=true`), 200))).toHaveLength(1);

    const cancelled = await ok(await store('POST', `${PAYMENTS}/${payment.id}/cancel`), 200);
    expect(cancelled.status).toBe('failed');
    expect((await ok(await admin('GET', `${OFFLINE_PAYMENTS}/${payment.id}`), 200))).toMatchObject({ status: 'failed', cancelled_at: expect.any(String), outstanding_amount: 0 });
    expectError(await receive(payment.id, 100), 409, 'PAYMENT_NOT_PENDING');
  });
});

describe('what a payment checks of its method', () => {
  it('a method switched off, in another currency or of another store fails the payment with the reason', async () => {
    const off = await addMethod(admin, { name: 'Plin (pausado)', kind: 'wallet', enabled: false });
    const dollars = await addMethod(admin, { name: 'Wire USD', currencies: ['USD'] });
    const foreign = await addMethod(caller(t, other), { name: 'Yape de otra tienda', kind: 'wallet' });
    const { checkout: c } = await awaitingPayment(admin, store, warehouse);
    const reasons = [];
    for (const id of [off.id, dollars.id, foreign.id, 'not-a-method']) {
      const res = await ok(await pay(c, id), 201);
      expect(res.status).toBe('failed');
      reasons.push(res.failure_reason);
    }
    expect(reasons).toEqual([
      'Plin (pausado) is switched off by the store',
      'Wire USD does not take PEN: it takes USD',
      `This store has no offline payment method ${foreign.id}`,
      'This store has no offline payment method not-a-method',
    ]);
    const missing = expectError(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'offline', amount: 9500, currency: 'PEN' }), 400, 'VALIDATION_ERROR');
    expect(missing.details).toEqual([{ path: 'body.method_id', message: 'is required by Offline payments' }]);
  });

  it('a payment keeps the method as the shopper was shown it, whatever the store does to the method later', async () => {
    const deposit = await addMethod(admin, { name: 'Depósito Interbank', instructions: 'Interbank 200-3001234567' });
    const { payment } = await pendingPayment(deposit.id);
    await ok(await admin('PATCH', `/api/v1/payments/offline/methods/${deposit.id}`, { instructions: 'Cuenta cerrada' }), 200);
    expect((await admin('DELETE', `/api/v1/payments/offline/methods/${deposit.id}`)).statusCode).toBe(204);
    const view = await ok(await store('GET', `${OFFLINE_PAYMENTS}/${payment.id}`), 200);
    expect(view.method).toEqual({ id: deposit.id, name: 'Depósito Interbank', kind: 'bank_transfer', instructions: 'Interbank 200-3001234567' });
    expect((await ok(await receive(payment.id, 9500), 201)).payment.status).toBe('paid');
  });

  it('a store that did not switch the gateway on offers no method and takes no offline payment', async () => {
    const otherAdmin = caller(t, other);
    expect(await ok(await caller(t, other, other.storefrontToken)('GET', '/api/v1/payments/offline/available-methods?currency=PEN'), 200)).toEqual([]);
    const res = await otherAdmin('POST', PAYMENTS, { order_id: MISSING, gateway: 'offline', amount: 100, currency: 'PEN', method_id: MISSING });
    expectError(res, 422, 'GATEWAY_NOT_CONFIGURED');
  });
});

describe('who may record receipts', () => {
  let payment: { id: string };
  let receipt: { id: string };
  beforeAll(async () => {
    ({ payment } = await pendingPayment(transfer.id));
    receipt = await ok(await receive(payment.id, 100), 201);
  });

  it('staff without payments.capture are refused (403 naming it); with it they record and void', async () => {
    const reader = caller(t, shop, await staffWith(t, shop, ['payments.read']));
    for (const res of [await receive(payment.id, 100, {}, reader), await reader('POST', `${RECEIPTS}/${receipt.id}/void`, { reason: 'x' })]) {
      expect(expectError(res, 403, 'FORBIDDEN').details[0]).toMatchObject({ permission: 'payments.capture' });
    }
    expect((await ok(await reader('GET', `${RECEIPTS}/${receipt.id}`), 200)).amount).toBe(100);
    const packer = caller(t, shop, await staffWith(t, shop, ['orders.fulfil']));
    expect(expectError(await packer('GET', RECEIPTS), 403, 'FORBIDDEN').details[0]).toMatchObject({ permission: 'payments.read' });
    expectError(await receive(payment.id, 100, {}, store), 403, 'FORBIDDEN');

    const cashier = caller(t, shop, await staffWith(t, shop, ['payments.capture']));
    const made = await ok(await receive(payment.id, 200, {}, cashier), 201);
    expect(made.payment.received_amount).toBe(300);
    expect((await ok(await cashier('POST', `${RECEIPTS}/${made.id}/void`, { reason: 'Cobro duplicado' }), 200)).payment.received_amount).toBe(100);
  });

  it("another store's payment, receipt or offline payment is not found", async () => {
    const them = caller(t, other);
    expectError(await receive(payment.id, 100, {}, them), 404, 'PAYMENT_NOT_FOUND');
    expectError(await them('GET', `${RECEIPTS}/${receipt.id}`), 404, 'RECEIPT_NOT_FOUND');
    expectError(await them('POST', `${RECEIPTS}/${receipt.id}/void`, { reason: 'x' }), 404, 'RECEIPT_NOT_FOUND');
    expectError(await them('GET', `${OFFLINE_PAYMENTS}/${payment.id}`), 404, 'PAYMENT_NOT_FOUND');
    expect(await ok(await them('GET', `${RECEIPTS}?filter[payment_id]=${payment.id}`), 200)).toEqual([]);
    expectError(await receive(MISSING, 100), 404, 'PAYMENT_NOT_FOUND');
  });

  it('a payment of another gateway takes no receipt', async () => {
    const { checkout: c } = await awaitingPayment(admin, store, warehouse);
    const card = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'instant', amount: 2000, currency: 'PEN' }), 201);
    expect(expectError(await receive(card.id, 100), 422, 'PAYMENT_NOT_OFFLINE').details[0]).toMatchObject({ path: 'body.payment_id', gateway: 'instant' });
    expectError(await admin('GET', `${OFFLINE_PAYMENTS}/${card.id}`), 404, 'PAYMENT_NOT_FOUND');
  });

  it('bad input is a 400 naming each field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ payment_id: payment.id, amount: 0 }, 'body.amount'],
      [{ payment_id: payment.id, amount: 1.5 }, 'body.amount'],
      [{ payment_id: payment.id, amount: '100' }, 'body.amount'],
      [{ payment_id: 'abc', amount: 100 }, 'body.payment_id'],
      [{ amount: 100 }, 'body.payment_id'],
      [{ payment_id: payment.id, amount: 100, reference: 'x'.repeat(201) }, 'body.reference'],
      [{ payment_id: payment.id, amount: 100, reference: '  ' }, 'body.reference'],
      [{ payment_id: payment.id, amount: 100, received_at: '2026-03-02 10:00' }, 'body.received_at'],
      [{ payment_id: payment.id, amount: 100, note: 'x'.repeat(1001) }, 'body.note'],
    ];
    for (const [body, path] of cases) {
      const error = expectError(await admin('POST', RECEIPTS, body), 400, 'VALIDATION_ERROR');
      expect(error.details.map((d) => d.path), JSON.stringify(body)).toContain(path);
    }
    expectError(await admin('POST', RECEIPTS, { payment_id: payment.id, amount: 100, currency: 'PEN' }), 400, 'VALIDATION_ERROR');
    expectError(await admin('GET', `${RECEIPTS}/not-a-uuid`), 400, 'VALIDATION_ERROR');
    expectError(await admin('GET', `${RECEIPTS}?filter[voided]=maybe`), 400, 'VALIDATION_ERROR');
    expect((await ok(await admin('GET', `${OFFLINE_PAYMENTS}/${payment.id}`), 200)).received_amount).toBe(100);
  });
});
