import type { InjectOptions } from 'fastify';
import type { Clock } from '@qhatu/core';
import { createTestApp, startMailbox, type ReceivedMail, type TestApp, type TestTenant } from '@qhatu/core/testing';
import customers from '../src/index.js';

/** The customers plugin alone, on a database of its own. */
export function customersApp(options: { clock?: Clock; env?: Record<string, string>; workers?: boolean } = {}): Promise<TestApp> {
  return createTestApp({ plugins: [customers], ...options });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

export interface CustomerJson {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  accepts_marketing: boolean;
  locale: string | null;
  tags: string[];
  status: 'active' | 'disabled';
  has_account: boolean;
  created_at: string;
  updated_at: string;
}

export async function createCustomer(t: TestApp, tenant: TestTenant, payload: Record<string, unknown>): Promise<CustomerJson> {
  const res = await caller(t, tenant)('POST', '/api/v1/customers', payload);
  if (res.statusCode !== 201) throw new Error(`customer not created: ${res.body}`);
  return res.json().data;
}

/** Sets how `tenant` answers registrations (`instant`: a new e-mail signs in at once). */
export async function registrationMode(t: TestApp, tenant: TestTenant, registration: 'verify' | 'instant' | 'claim' | null) {
  const res = await caller(t, tenant)('PUT', '/api/v1/customers/settings', { registration });
  if (res.statusCode !== 200) throw new Error(`settings not saved: ${res.body}`);
}

/** Registers through the storefront key in a store that signs shoppers in at once; the session's token and customer. */
export async function register(t: TestApp, tenant: TestTenant, payload: Record<string, unknown>) {
  await registrationMode(t, tenant, 'instant');
  const res = await caller(t, tenant, tenant.storefrontToken)('POST', '/api/v1/auth/customer/register', payload);
  if (res.statusCode !== 201) throw new Error(`not registered: ${res.body}`);
  return res.json().data as { token: string; expires_at: string; customer: CustomerJson };
}

export const MISSING = '00000000-0000-4000-8000-000000000001';

export interface AccountMail {
  to: string[];
  subject: string;
  /** The decoded text part. */
  text: string;
  /** The decoded HTML part. */
  html: string;
  /** The account link the text carries, if any. */
  link?: string;
  tenant: string;
}

const accountMail = (mail: ReceivedMail): AccountMail => ({
  to: mail.to,
  subject: mail.subject,
  text: mail.text,
  html: mail.html,
  link: /^https?:\/\/\S+token=\S+$/m.exec(mail.text)?.[0],
  tenant: mail.header('x-qhatu-tenant') ?? '',
});

/** A real SMTP server on 127.0.0.1; its messages read as account e-mails (link, store). */
export async function mailServer() {
  const box = await startMailbox();
  return {
    url: box.url,
    get inbox() {
      return box.received.map(accountMail);
    },
    /** The messages sent to `address` so far. */
    to: (address: string) => box.to(address).map(accountMail),
    close: box.close,
  };
}
