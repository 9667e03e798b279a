import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initiate, mediaApp, movableClock, put, uploaded, type MediaTestApp } from './helpers.js';

// Uploads started and never confirmed are swept: the worker's job runs every second here.
const clock = movableClock();
let t: MediaTestApp;
let shop: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await mediaApp({ workers: true, clock, env: { QHATU_MEDIA_SWEEP_SECONDS: '1' } });
  shop = await t.createTenant();
  other = await t.createTenant();
});
afterAll(async () => t?.close());

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}

const status = async (tenant: TestTenant, id: string) => (await t.request({ method: 'GET', url: `/api/v1/media/${id}`, headers: tenant.headers() })).statusCode;
const deleted = (id: string) =>
  t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown> }>>(`select data from core_outbox where type = 'media.file.deleted' and data->>'id' = ?`, [id]);

describe('uploads never confirmed', () => {
  it('are deleted a day later, with any bytes that arrived; confirmed files and newer tickets stay', async () => {
    const bytes = Buffer.from('%PDF-1.4 price list');
    const kept = await uploaded(t, shop, bytes, 'kept.pdf', 'application/pdf');
    const sent = await initiate(t, shop, { original_name: 'sent.pdf', content_type: 'application/pdf', size_bytes: bytes.length });
    expect((await put(t, sent.upload_url, bytes, 'application/pdf')).statusCode).toBe(200);
    const never = await initiate(t, other, { original_name: 'never.pdf', content_type: 'application/pdf', size_bytes: 10 });
    const folder = path.join(t.dataDir, 'media', 'objects', shop.id, sent.file_id);
    expect(await readdir(folder)).toHaveLength(1);

    // A day and an hour later: both tickets are long expired and nobody confirmed them.
    clock.offsetMs = 25 * 3_600_000;
    const fresh = await initiate(t, shop, { original_name: 'fresh.pdf', content_type: 'application/pdf', size_bytes: 10 });
    await until(async () => (await status(shop, sent.file_id)) === 404 && (await status(other, never.file_id)) === 404);
    expect(await deleted(sent.file_id)).toHaveLength(1);
    expect(await readdir(folder).catch(() => [])).toHaveLength(0);
    expect(await status(shop, kept.id)).toBe(200);
    expect(await status(shop, fresh.file_id)).toBe(200);
  });
});
