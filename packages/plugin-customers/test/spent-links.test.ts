import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createCustomer, customersApp, mailServer } from './helpers.js';

// Links used or expired over a week ago are swept: the worker's job runs every second here.
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
const DAY = 24 * 3_600_000;

let mail: Awaited<ReturnType<typeof mailServer>>;
let t: TestApp;
beforeAll(async () => {
  mail = await mailServer();
  t = await customersApp({ clock, workers: true, env: { SMTP_URL: mail.url, QHATU_CUSTOMERS_SWEEP_SECONDS: '1' } });
});
afterAll(async () => {
  await t?.close();
  await mail?.close();
});

const links = async () =>
  (await t.app.orm.em.getConnection().execute<Array<{ email: string }>>(`select email from customers_account_link order by email`)).map((r) => r.email);

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}

describe('account links spent over a week ago', () => {
  it('are deleted in every store; open and recent ones stay', async () => {
    const [a, b] = [await t.createTenant(), await t.createTenant()];
    const register = (tenant: typeof a, email: string) => caller(t, tenant, tenant.storefrontToken)('POST', '/api/v1/auth/customer/register', { email });
    const used = await createCustomer(t, a, { email: 'used@example.com' });
    await register(a, used.email);
    const token = new URL(mail.to(used.email)[0].link!).searchParams.get('token');
    expect((await caller(t, a, a.storefrontToken)('POST', '/api/v1/auth/customer/activate', { token, password: 'long enough' })).statusCode).toBe(200);
    await register(b, 'expired@example.com');
    expect(await links()).toEqual(['expired@example.com', 'used@example.com']);

    offsetMs = 8 * DAY;
    await register(a, 'fresh@example.com');
    await until(async () => (await links()).length === 1);
    expect(await links()).toEqual(['fresh@example.com']);
  });
});
