import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { caller, configureGateway, createOrder, gatewayApp, HttpDouble, PAYMENTS, type Caller } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import payLater from '../src/index.js';

/** Pay Later's API on 127.0.0.1, built on the kit's HttpDouble: plan "declined" is refused, any other approved. */
class PayLaterDouble extends HttpDouble {
  readonly charges = new Map<string, { id: string; status: 'approved' | 'declined' }>();

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : {};
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    };
    if (req.headers.authorization !== 'Bearer pl_key') return send(401, { id: '', status: 'declined', reason: 'bad key' });
    if (req.method === 'POST' && req.url === '/charges') {
      const charge = this.charges.get(body.reference) ?? { id: `ch_${body.reference}`, status: body.plan === 'declined' ? ('declined' as const) : ('approved' as const) };
      this.charges.set(body.reference, charge);
      return send(200, charge);
    }
    if (req.method === 'POST' && req.url === '/refunds') return send(200, { id: `rf_${body.charge}`, ok: true });
    send(404, {});
  }
}

let double: PayLaterDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
beforeAll(async () => {
  double = await new PayLaterDouble().start();
  t = await gatewayApp(payLater, 'QHATU_GATEWAY_PAY_LATER_BASE_URL', double.url, { workers: true });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  await configureGateway(admin, 'pay-later', { api_key: 'pl_key', signing_key: 'pl_signing' });
});
afterAll(async () => {
  await t?.close();
  await double?.close();
});

it('pays an order in instalments, and refunds it', async () => {
  const order = await createOrder(admin, 2500, 2);
  const store = caller(t, shop, shop.storefrontToken);
  const paid = await store('POST', PAYMENTS, { order_id: order.id, gateway: 'pay-later', amount: order.total, currency: order.currency, plan: 'three' });
  expect(paid.statusCode, paid.body).toBe(201);
  expect(paid.json().data.status).toBe('paid');
  await t.settle();
  expect((await admin('GET', `/api/v1/orders/${order.id}`)).json().data.status).toBe('paid');
  const refund = await admin('POST', `${PAYMENTS}/${paid.json().data.id}/refund`, { amount: 1000, reason: 'requested_by_customer' });
  expect(refund.statusCode, refund.body).toBe(201);
});

it('records a declined plan as a failed payment with the provider’s reason', async () => {
  const order = await createOrder(admin, 1000, 1);
  const store = caller(t, shop, shop.storefrontToken);
  const declined = await store('POST', PAYMENTS, { order_id: order.id, gateway: 'pay-later', amount: order.total, currency: order.currency, plan: 'declined' });
  expect(declined.json().data).toMatchObject({ status: 'failed', failure_reason: 'declined' });
});
