import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { themesPlugin, type ThemesOptions } from '../src/index.js';

/** A stopped clock the test moves by hand. */
export class TestClock {
  constructor(private at = Date.now()) {}
  now = () => new Date(this.at);
  advance(ms: number) {
    this.at += ms;
  }
}

export const MISSING = '00000000-0000-4000-8000-000000000001';
export const STORE = '/api/v1/theme-store';

export async function themesApp(options: { clock?: TestClock; env?: Record<string, string> } & ThemesOptions = {}): Promise<TestApp> {
  return createTestApp({ plugins: [themesPlugin({ seed: options.seed })], clock: options.clock, env: options.env });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}
export type Caller = ReturnType<typeof caller>;

/** A request with the platform credential. */
export function platform(t: TestApp) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: { authorization: `Bearer ${t.platformToken}` }, payload: payload as InjectOptions['payload'] });
}

export const SETTINGS = {
  section_order: ['header', 'hero', 'footer'],
  sections: {
    header: { type: 'header', settings: { sticky: true } },
    hero: { type: 'hero', settings: { heading: 'Welcome' } },
    footer: { type: 'footer', settings: {} },
  },
};

/** Adds a theme to the catalog; `price` 0 is a free theme. */
export async function catalogTheme(t: TestApp, price: number, extra: Record<string, unknown> = {}) {
  const res = await platform(t)('POST', STORE, {
    name: `theme-${randomBytes(4).toString('hex')}`,
    display_name: 'A theme',
    description: 'For tests',
    price,
    currency: 'USD',
    author: 'Qhatu',
    tags: price === 0 ? ['free'] : ['premium'],
    settings: SETTINGS,
    ...extra,
  });
  if (res.statusCode !== 201) throw new Error(`theme not created: ${res.body}`);
  return res.json().data as { id: string; name: string; price: number; is_free: boolean };
}

/** A store with `theme` installed and active. */
export async function storeWithActiveTheme(t: TestApp, themeId: string) {
  const tenant = await t.createTenant();
  const admin = caller(t, tenant);
  const installed = await admin('POST', `${STORE}/${themeId}/install`);
  if (installed.statusCode !== 201) throw new Error(`not installed: ${installed.body}`);
  const activated = await admin('POST', `${STORE}/${themeId}/activate`);
  if (activated.statusCode !== 200) throw new Error(`not activated: ${activated.body}`);
  return { tenant, admin };
}

/** An admin key of the tenant whose id is known (the `created_by` of what it does). */
export async function adminKey(t: TestApp, tenant: TestTenant): Promise<{ id: string; token: string }> {
  const res = await platform(t)('POST', `/api/v1/tenants/${tenant.id}/api-keys`, { name: 'editor', scope: 'admin' });
  if (res.statusCode !== 201) throw new Error(`key not created: ${res.body}`);
  return res.json().data;
}

export async function outbox(t: TestApp, tenantId: string, type: string) {
  return t.app.orm.em
    .getConnection()
    .execute<Array<{ type: string; data: Record<string, unknown>; source: string }>>(
      'select type, data, source from core_outbox where tenant_id = ? and type = ? order by occurred_at',
      [tenantId, type],
    );
}
