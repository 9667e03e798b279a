import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChargeRequest, GatewayContext } from '@qhatu/plugin-payments';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeGateway } from '../src/index.js';
import { StripeDouble } from '../src/testing.js';
import { newAccount, type StripeAccount } from './helpers.js';

// The adapter against the double without the app: what the SDK sends, retries and throws.
let double: StripeDouble;
let account: StripeAccount;
let ctx: GatewayContext;
beforeAll(async () => {
  account = newAccount();
  double = await new StripeDouble(new Set([account.secret_key])).start();
  ctx = { credentials: { ...account }, baseUrl: double.url, tenantId: randomUUID() };
});
afterAll(async () => {
  await double?.close();
});

const charge = (overrides: Partial<ChargeRequest> = {}): ChargeRequest => ({
  paymentId: randomUUID(), orderId: randomUUID(), amount: 1500, currency: 'PEN', fields: { payment_method_id: 'pm_card_visa' }, session: null, ...overrides,
});

describe('the Stripe adapter over the SDK', () => {
  it('cancels an abandoned intent as abandoned; an intent the shopper finished first is answered as it is', async () => {
    const left = await stripeGateway.charge(ctx, charge({ fields: { payment_method_id: 'pm_card_threeDSecure' } }));
    expect(left.status).toBe('pending');
    const cancelled = await stripeGateway.cancel!(ctx, left.providerPaymentId!);
    expect(cancelled).toMatchObject({ status: 'failed', providerPaymentId: left.providerPaymentId, failureReason: 'Stripe payment canceled (abandoned)' });
    const sent = double.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: `/v1/payment_intents/${left.providerPaymentId}/cancel`, form: { cancellation_reason: 'abandoned' }, idempotencyKey: `qhatu-cancel-${left.providerPaymentId}` });
    expect(double.intents.get(left.providerPaymentId!)!.status).toBe('canceled');

    const finished = await stripeGateway.charge(ctx, charge({ fields: { payment_method_id: 'pm_card_threeDSecure' } }));
    double.settle(finished.providerPaymentId!, 'succeeded');
    expect(await stripeGateway.cancel!(ctx, finished.providerPaymentId!)).toMatchObject({ status: 'paid', providerPaymentId: finished.providerPaymentId });
    expect(double.intents.get(finished.providerPaymentId!)!.status).toBe('succeeded');
    expect(double.requests.slice(-2).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /v1/payment_intents/${finished.providerPaymentId}/cancel`, `GET /v1/payment_intents/${finished.providerPaymentId}`,
    ]);
  });

  it('a charge sent twice with one payment id is one PaymentIntent: Stripe replays the first answer', async () => {
    const req = charge();
    const first = await stripeGateway.charge(ctx, req);
    const second = await stripeGateway.charge(ctx, req);
    expect(first).toMatchObject({ status: 'paid', providerPaymentId: expect.stringMatching(/^pi_/) });
    expect(second).toEqual(first);
    expect([...double.intents.values()].filter((i) => i.metadata.qhatu_payment_id === req.paymentId)).toHaveLength(1);
  });

  it('the same idempotency key with other parameters is Stripe’s refusal: failed with its idempotency_error message', async () => {
    const req = charge();
    expect((await stripeGateway.charge(ctx, req)).status).toBe('paid');
    const reused = await stripeGateway.charge(ctx, { ...req, amount: 2500 });
    expect(reused).toEqual({ status: 'failed', providerPaymentId: null, failureReason: expect.stringContaining('can only be used with the same parameters') });
  });

  it('nested form keys arrive as Stripe reads them', async () => {
    const req = charge({ currency: 'USD' });
    await stripeGateway.charge(ctx, req);
    expect(double.requests.at(-1)!.form).toEqual({
      amount: '1500', currency: 'usd', payment_method: 'pm_card_visa', confirm: 'true',
      'automatic_payment_methods[enabled]': 'true', 'automatic_payment_methods[allow_redirects]': 'never',
      'metadata[qhatu_payment_id]': req.paymentId, 'metadata[order_id]': req.orderId, 'metadata[tenant_id]': ctx.tenantId,
    });
  });

  it('status and refundStatus throw on any error, so the stored state stays', async () => {
    await expect(stripeGateway.status(ctx, 'pi_unknown')).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    await expect(stripeGateway.refundStatus!(ctx, 're_unknown')).rejects.toThrow('No such refund');
    const refused = { ...ctx, credentials: { ...ctx.credentials, secret_key: 'sk_test_refused0000' } };
    await expect(stripeGateway.status(refused, 'pi_unknown')).rejects.toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });

  it('a refused key’s reason never carries the whole key', async () => {
    const key = `sk_test_${'x'.repeat(20)}wxyz`;
    const result = await stripeGateway.charge({ ...ctx, credentials: { ...ctx.credentials, secret_key: key } }, charge());
    expect(result).toMatchObject({ status: 'failed', failureReason: expect.stringContaining('Invalid API Key provided: sk_test_') });
    expect(result.failureReason).not.toContain(key);
    expect(result.failureReason).toContain('wxyz');
  });

  it('a base URL with a path, or another scheme, is a configuration error', async () => {
    await expect(stripeGateway.charge({ ...ctx, baseUrl: `${double.url}/stripe` }, charge())).rejects.toThrow('without a path');
    await expect(stripeGateway.charge({ ...ctx, baseUrl: 'ftp://127.0.0.1:21' }, charge())).rejects.toThrow('http or https');
  });
});

describe('a Stripe that answers 500', () => {
  let server: Server;
  let baseUrl: string;
  const seen: Array<{ path: string; key: string | undefined }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', key: req.headers['idempotency-key'] as string | undefined });
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json', 'request-id': `req_${seen.length}` });
      res.end(JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is retried once with the same idempotency key, then thrown (payments records it unreachable)', async () => {
    const req = charge();
    await expect(stripeGateway.charge({ ...ctx, baseUrl }, req)).rejects.toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(seen).toEqual([
      { path: '/v1/payment_intents', key: `qhatu-payment-${req.paymentId}` },
      { path: '/v1/payment_intents', key: `qhatu-payment-${req.paymentId}` },
    ]);
    seen.length = 0;
    await expect(stripeGateway.refund({ ...ctx, baseUrl }, { refundId: 'r1', providerPaymentId: 'pi_1', amount: 100, currency: 'PEN', reason: null })).rejects.toThrow('An unknown error occurred');
    expect(seen.map((s) => s.key)).toEqual(['qhatu-refund-r1', 'qhatu-refund-r1']);
  });
});
