import type { AddressInfo } from 'node:net';
import type { InjectOptions } from 'fastify';
import { SMTPServer } from 'smtp-server';
import type { Clock } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
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

export interface ReceivedMail {
  to: string[];
  subject: string;
  /** The decoded text part. */
  text: string;
  /** The account link the text carries, if any. */
  link?: string;
  tenant: string;
}

/** Quoted-printable (soft breaks, =XX bytes) back to UTF-8 text. */
function unQuote(body: string): string {
  const joined = body.replace(/=\r\n/g, '');
  return Buffer.from(joined.replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
}

/** The text/plain part of a raw message. */
function textOf(raw: string): string {
  const part = /Content-Type: text\/plain[^\r]*\r\n(?:Content-Transfer-Encoding: ([^\r]+)\r\n)?\r\n([\s\S]*?)\r\n(?:--|$)/i.exec(raw);
  if (!part) return '';
  const [, encoding, body] = part;
  if (/quoted-printable/i.test(encoding ?? '')) return unQuote(body);
  if (/base64/i.test(encoding ?? '')) return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives. */
export async function mailServer() {
  const inbox: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(raw.split('\r\n\r\n')[0].replace(/\r\n[ \t]+/g, ' '))?.[1] ?? '';
        const text = textOf(raw);
        inbox.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: header('Subject'),
          text,
          link: /^https?:\/\/\S+token=\S+$/m.exec(text)?.[0],
          tenant: header('X-Qhatu-Tenant'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    inbox,
    /** The messages sent to `address` so far. */
    to: (address: string) => inbox.filter((m) => m.to.includes(address)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
