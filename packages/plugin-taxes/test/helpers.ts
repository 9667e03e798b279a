import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { definePlugin, type QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import checkout from '@qhatu/plugin-checkout';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import taxes from '../src/index.js';

/** Stands in for the payments plugin where it is not installed: it declares the event checkout listens to. */
export const paymentsAnnouncer = definePlugin({ name: 'payments-announcer', events: ['payments.payment.confirmed'] });

/**
 * A store with checkout and taxes (media's local storage in a temp folder). The taxes plugin is
 * listed first on purpose: core orders plugins by `dependsOn`, and checkout and orders find the
 * calculator once every plugin registered.
 */
export function taxesApp(options: { plugins?: QhatuPlugin[]; extra?: QhatuPlugin[]; workers?: boolean; env?: Record<string, string> } = {}): Promise<TestApp> {
  // createTestApp gives the app a data folder of its own and removes it on close.
  return createTestApp({
    plugins: options.plugins ?? [taxes, media, catalog, customers, inventory, discounts, orders, checkout, ...(options.extra ?? [paymentsAnnouncer])],
    workers: options.workers,
    env: options.env,
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}
export type Caller = ReturnType<typeof caller>;

export const TAXES = '/api/v1/taxes';
export const CARTS = '/api/v1/checkout/carts';
export const CHECKOUTS = '/api/v1/checkout/checkouts';
export const ORDERS = '/api/v1/orders';
export const MISSING = '00000000-0000-4000-8000-000000000001';

/** The body of a 2xx answer (its `data` when it has one), or a thrown error with the body. */
export async function ok(res: { statusCode: number; body: string; json(): any }, status = 200): Promise<any> {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  const body = res.statusCode === 204 ? null : res.json();
  return body && typeof body === 'object' && 'data' in body ? body.data : body;
}

/** A product with one variant per price (and the variant fields given). */
export async function product(admin: Caller, prices: number[], variant: Record<string, unknown> = {}): Promise<{ id: string; variants: string[] }> {
  const made = await ok(
    await admin('POST', '/api/v1/catalog/products', {
      title: `Poncho ${randomUUID().slice(0, 6)}`,
      variants: prices.map((price, n) => ({ title: `V${n + 1}`, sku: `SKU-${randomUUID().slice(0, 8)}`, price, ...variant })),
    }),
    201,
  );
  return { id: made.id, variants: made.variants.map((v: { id: string }) => v.id) };
}

/** A cart holding `lines` ([variant, quantity]), made with `body` (a `market`), answered as the last change left it. */
export async function cartWith(store: Caller, lines: Array<[string, number]>, body: Record<string, unknown> = {}): Promise<any> {
  const cart = await ok(await store('POST', CARTS, body), 201);
  let last = cart;
  for (const [variant, quantity] of lines) last = await ok(await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: variant, quantity }), 201);
  return last;
}

export function address(country: string, province: string) {
  return { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Somewhere', province, country_code: country, zip: '08000', phone: '+51987654321' };
}

/** Checks the cart out and takes the shipping step to `country`/`province` with a rate of `shipping`: the order is placed. */
export async function checkoutTo(store: Caller, cartId: string, country: string, province: string, shipping = 0): Promise<any> {
  const made = await ok(await store('POST', CHECKOUTS, { cart_id: cartId, email: 'rosa@example.com' }), 201);
  const to = address(country, province);
  return ok(await store('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: to, billing_address: to, shipping_rate: { carrier: 'Olva', service: 'Express', price: shipping } }));
}

/** The sum of the lines' tax and the shipping's: what tax_total must be, exactly. */
export const sumOfTaxes = (c: { line_items: Array<{ tax_amount: number }>; shipping_tax: number }) =>
  c.line_items.reduce((s, l) => s + l.tax_amount, 0) + c.shipping_tax;
