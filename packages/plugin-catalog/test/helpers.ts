import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import media from '@qhatu/plugin-media';
import catalog from '../src/index.js';

/** The catalog with the media plugin it depends on, its data folder (local media storage) in a temp folder. */
export async function catalogApp(): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-catalog-'));
  const t = await createTestApp({ plugins: [media, catalog], env: { QHATU_DATA_DIR: dataDir } });
  const close = t.close;
  return Object.assign(t, {
    close: async () => {
      await close();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

/**
 * A store in Lima selling in soles (its default, in Spanish, with English too) and, to visitors, in
 * US dollars (a rate), Chilean pesos (a rate, rounded up to tens) and euros (no rate: explicit prices
 * only), with markets for the United States (in English) and Ecuador (in Spanish), both in dollars
 * (decision 0097).
 */
export async function limaStore(t: TestApp, name = 'Tienda Lima'): Promise<TestTenant> {
  const shop = await t.createTenant({ name, currency: 'PEN' });
  const admin = caller(t, shop);
  const steps: Array<[Method, string, unknown]> = [
    ['PUT', '/api/v1/locales', { default_locale: 'es', locales: ['en'] }],
    ['PUT', '/api/v1/currencies', {
      currencies: [{ code: 'USD', rate: '0.27', rounding_increment: 1, rounding: 'nearest' }, { code: 'CLP', rate: '250', rounding_increment: 10, rounding: 'up' }, { code: 'EUR', rate: null }],
    }],
    ['POST', '/api/v1/markets', { handle: 'us', name: 'United States', countries: ['US'], currency: 'USD', default_locale: 'en', prices_include_tax: false }],
    // Ecuador pays in dollars and reads Spanish, the store's default: only the currency tells its answers apart.
    ['POST', '/api/v1/markets', { handle: 'ec', name: 'Ecuador', countries: ['EC'], currency: 'USD', default_locale: 'es' }],
  ];
  for (const [method, url, payload] of steps) {
    const res = await admin(method, url, payload);
    if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
  }
  return shop;
}

export async function createProduct(t: TestApp, tenant: TestTenant, over: Record<string, unknown> = {}) {
  const res = await caller(t, tenant)('POST', '/api/v1/catalog/products', { title: 'Thing', variants: [{ title: 'One', price: 100 }], ...over });
  if (res.statusCode !== 201) throw new Error(`product not created: ${res.body}`);
  return res.json().data as { id: string; handle: string; created_at: string; variants: Array<{ id: string; price: number }>; images: unknown[] };
}

// A 1×1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** The path and query of the absolute upload URL, for `inject`. */
const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

/** A media file started through the media API and, unless `confirm` is false, uploaded and confirmed. */
export async function uploadMedia(t: TestApp, tenant: TestTenant, { name = 'picture.png', confirm = true } = {}) {
  const started = await t.request({
    method: 'POST',
    url: '/api/v1/media/upload',
    headers: tenant.headers(),
    payload: { original_name: name, content_type: 'image/png', size_bytes: PNG.length },
  });
  if (started.statusCode !== 201) throw new Error(`upload not initiated: ${started.body}`);
  const ticket = started.json().data as { file_id: string; upload_url: string };
  if (!confirm) return { id: ticket.file_id, public_url: null };
  const sent = await t.request({ method: 'PUT', url: local(ticket.upload_url), headers: { 'content-type': 'image/png' }, payload: PNG });
  if (sent.statusCode !== 200) throw new Error(`upload refused: ${sent.body}`);
  const confirmed = await t.request({ method: 'POST', url: `/api/v1/media/${ticket.file_id}/confirm`, headers: tenant.headers() });
  if (confirmed.statusCode !== 200) throw new Error(`not confirmed: ${confirmed.body}`);
  const file = confirmed.json().data as { id: string; public_url: string };
  return { id: file.id, public_url: file.public_url as string | null };
}

export const MISSING = '00000000-0000-4000-8000-000000000001';
