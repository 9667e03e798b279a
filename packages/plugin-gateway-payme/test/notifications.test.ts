import { generateKeyPairSync } from 'node:crypto';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { expectUnverified, caller, createOrder, gatewayStores, notificationsRecorded, outbox, PAYMENTS, storedStatus, type Caller, type GatewayStores } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payme from '../src/index.js';
import { CARDS, PaymeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, checkout, configure, newAccount, notify, type PaymeAccount } from './helpers.js';

// Pay-me's server-to-server notifications at /webhooks/payme/<tenant id>: the `signature` header
// (SHA512withRSA over the raw body, Alignet's key) checked before anything is read, the charge
// read back from Pay-me, each transaction state taken once.
let w: GatewayStores<PaymeDouble>;
let double: PaymeDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let otherAdmin: Caller;
let account: PaymeAccount;
beforeAll(async () => {
  double = await new PaymeDouble().start();
  account = newAccount(double);
  w = await gatewayStores(payme, BASE_URL_VARIABLE, double);
  ({ t, shop, other, admin } = w);
  otherAdmin = caller(t, other);
  await configure(admin, account);
  await configure(otherAdmin, newAccount(double));
});
afterAll(() => w?.close());

/** A payment whose Flex charge is still PENDIENTE. */
async function held(api: Caller = admin) {
  const { res, chargeId } = await checkout(double, api, await createOrder(api), CARDS.HELD);
  const payment = res.json().data;
  expect(payment.status).toBe('processing');
  return { ...(payment as { id: string; provider_payment_id: string; order_id: string }), chargeId };
}

describe('POST /webhooks/payme/:tenant', () => {
  it('a signed AUTORIZADO moves processing → paid after the read-back; the same notification again is a duplicate', async () => {
    const payment = await held();
    double.settle(payment.chargeId, 'AUTORIZADO');
    const n = double.notification(payment.chargeId);
    const before = double.requests.length;
    const res = await notify(t, shop.id, n);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, payment.id)).toBe('paid');
    expect(double.requests.slice(before)).toEqual([
      expect.objectContaining({ method: 'GET', path: `/charges/${account.merchant_code}/${payment.provider_payment_id}` }),
    ]);
    const again = await notify(t, shop.id, n);
    expect(again.json().data.outcome).toBe('duplicate');
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
    expect(await notificationsRecorded(t, n.eventId)).toBe(1);
  });

  it('the read-back decides: a validly signed claim of AUTORIZADO for a charge still PENDIENTE moves nothing', async () => {
    const payment = await held();
    const claim = JSON.parse(double.notification(payment.chargeId).body);
    claim.transaction = { ...claim.transaction, state: 'AUTORIZADO', processor_response: { authorization_code: '123456', result_message: { code: '00', description: 'ok' } } };
    const body = JSON.stringify(claim);
    const res = await notify(t, shop.id, { body, signature: double.sign(body) });
    expect(res.statusCode).toBe(200);
    expect(await storedStatus(t, payment.id)).toBe('processing');
  });

  it('a DENEGADO verdict moves it to failed with the processor’s message', async () => {
    const payment = await held();
    double.settle(payment.chargeId, 'DENEGADO');
    expect((await notify(t, shop.id, double.notification(payment.chargeId))).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('failed');
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data.failure_reason).toBe('Fondos insuficientes — 51 — DENEGADO');
    expect(await outbox(t, 'payments.payment.failed', payment.id)).toHaveLength(1);
  });

  it('forged notifications are 401 and record nothing: tampered body, another key, no or broken signature', async () => {
    const payment = await held();
    double.settle(payment.chargeId, 'AUTORIZADO');
    const good = double.notification(payment.chargeId);
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const tampered = good.body.replace('"state":"AUTORIZADO"', '"state":"DENEGADO"');
    expect(tampered).not.toBe(good.body);
    const attempts: Array<{ body: string; signature?: string }> = [
      { body: tampered, signature: good.signature },
      { body: `${good.body} `, signature: good.signature },
      { body: good.body, signature: double.sign(good.body, stranger) },
      { body: good.body },
      { body: good.body, signature: '' },
      { body: good.body, signature: 'not base64 !!' },
      { body: good.body, signature: good.signature.slice(0, -8) },
      { body: good.body, signature: `${good.signature}${'A'.repeat(512)}` },
      { body: good.body, signature: double.sign('{}') },
    ];
    for (const attempt of attempts) {
      const res = await notify(t, shop.id, attempt);
      expect(res.statusCode, JSON.stringify(attempt).slice(0, 120)).toBe(401);
      expect(res.json().error.code).toBe('INVALID_SIGNATURE');
    }
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect(await notificationsRecorded(t, good.eventId)).toBe(0);
    expect((await notify(t, shop.id, good)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('a store whose alignet_public_key does not parse verifies nothing', async () => {
    const broken = await t.createTenant({ currency: 'PEN' });
    await configure(caller(t, broken), { ...newAccount(double), alignet_public_key: '-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----' });
    const payment = await held();
    const res = await notify(t, broken.id, double.notification(payment.chargeId));
    expect(res.statusCode).toBe(401);
  });

  it('cross-tenant: another store’s notification sent here changes nothing, there or here', async () => {
    const theirs = await held(otherAdmin);
    const mine = await held();
    double.settle(theirs.chargeId, 'AUTORIZADO');
    const n = double.notification(theirs.chargeId);
    const res = await notify(t, shop.id, n);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outcome).toBe('ignored');
    expect(await notificationsRecorded(t, n.eventId)).toBe(0);
    expect(await storedStatus(t, theirs.id)).toBe('processing');
    expect(await storedStatus(t, mine.id)).toBe('processing');
    // Delivered where it belongs, it moves that store's payment only.
    expect((await notify(t, other.id, n)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, theirs.id)).toBe('paid');
    expect(await storedStatus(t, mine.id)).toBe('processing');
  });

  it('when Pay-me cannot confirm the charge the answer is 502 and nothing is recorded, so Pay-me retries', async () => {
    const payment = await held();
    double.settle(payment.chargeId, 'AUTORIZADO');
    const n = double.notification(payment.chargeId);
    double.down = true;
    try {
      const res = await notify(t, shop.id, n);
      expect(res.statusCode).toBe(502);
      expect(res.json().error.code).toBe('GATEWAY_UNAVAILABLE');
    } finally {
      double.down = false;
    }
    expect(await notificationsRecorded(t, n.eventId)).toBe(0);
    expect((await notify(t, shop.id, n)).json().data.outcome).toBe('processed');
  });

  it('an extorno’s CANCELADO notification leaves a refunded payment refunded', async () => {
    const { res, chargeId } = await checkout(double, admin, await createOrder(admin));
    const payment = res.json().data;
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).json().data.status).toBe('refunded');
    const n = double.notification(chargeId);
    expect(n.eventId).toBe(`${chargeId}:CANCELADO`);
    expect((await notify(t, shop.id, n)).json().data.outcome).toBe('processed');
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: payment.amount });
  });

  it('verified but not a Pay-me notification is 400; unknown charges are ignored; unknown store 404; bad address 400', async () => {
    for (const body of ['not json', '[]', 'null', '{}', JSON.stringify({ merchant_operation_number: 123 })]) {
      const res = await notify(t, shop.id, { body, signature: double.sign(body) });
      expect(res.statusCode, body).toBe(400);
    }
    const unknown = JSON.stringify({ success: 'true', action: 'authorize', merchant_code: account.merchant_code, merchant_operation_number: '100000000000001', transaction: { transaction_id: 'nope', state: 'AUTORIZADO' } });
    expect((await notify(t, shop.id, { body: unknown, signature: double.sign(unknown) })).json().data.outcome).toBe('ignored');
    const bare = JSON.stringify({ success: 'true', action: 'authorize', merchant_code: account.merchant_code, merchant_operation_number: '100000000000001' });
    expect((await notify(t, shop.id, { body: bare, signature: double.sign(bare) })).json().data.outcome).toBe('ignored');
    expect((await notify(t, '00000000-0000-4000-8000-000000000009', { body: unknown, signature: double.sign(unknown) })).statusCode).toBe(401);
    expect((await notify(t, 'not-a-tenant', { body: unknown, signature: double.sign(unknown) })).statusCode).toBe(400);
  });
});

describe('POST /webhooks/payme (the specification’s path)', () => {
  it('finds the store by the address’s tenant or by the charge, verifies the signature with its key, and processes once', async () => {
    expect((await admin('GET', '/api/v1/payments/gateways/payme')).json().data.notification_url).toMatch(new RegExp(`/webhooks/payme\\?tenant=${shop.id}$`));
    const mine = await held();
    double.settle(mine.chargeId, 'AUTORIZADO');
    expect((await notify(t, `/webhooks/payme?tenant=${shop.id}`, double.notification(mine.chargeId))).json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, mine.id)).toBe('paid');
    const theirs = await held(otherAdmin);
    double.settle(theirs.chargeId, 'AUTORIZADO');
    const n = double.notification(theirs.chargeId);
    expect((await notify(t, '/webhooks/payme', n)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, theirs.id)).toBe('paid');
    expect((await notify(t, '/webhooks/payme', n)).json().data.outcome).toBe('duplicate');
  });

  it('a forged or tampered signature, or a store that cannot be found, is 401 and changes nothing', async () => {
    const payment = await held();
    double.settle(payment.chargeId, 'AUTORIZADO');
    const good = double.notification(payment.chargeId);
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const tampered = { body: good.body.replace('"state":"AUTORIZADO"', '"state":"DENEGADO"'), signature: good.signature };
    expect(tampered.body).not.toBe(good.body);
    for (const url of ['/webhooks/payme', `/webhooks/payme?tenant=${shop.id}`]) {
      expectUnverified(await notify(t, url, { body: good.body, signature: double.sign(good.body, stranger) }));
      expectUnverified(await notify(t, url, tampered));
      expectUnverified(await notify(t, url, { body: good.body }));
    }
    expectUnverified(await notify(t, '/webhooks/payme?tenant=00000000-0000-4000-8000-000000000009', good));
    const nobody = good.body.replaceAll(payment.chargeId, 'chg_nobody_has_this');
    expectUnverified(await notify(t, '/webhooks/payme', { body: nobody, signature: double.sign(nobody) }));
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect(await notificationsRecorded(t, good.eventId)).toBe(0);
    expect((await notify(t, '/webhooks/payme', { body: 'not json', signature: double.sign('not json') })).statusCode).toBe(400);
  });
});
