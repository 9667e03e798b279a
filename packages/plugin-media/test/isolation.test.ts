import { Database } from '@qhatu/core';
import type { TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaFile } from '../src/index.js';
import { initiate, mediaApp, put, uploaded, type MediaTestApp, type Ticket } from './helpers.js';

let t: MediaTestApp;
let a: TestTenant;
let b: TestTenant;
let bFile: { id: string; storage_key: string; public_url: string };
let bPending: Ticket;
const pdf = Buffer.from('%PDF-1.4\n% tenant B only\n%%EOF\n');
beforeAll(async () => {
  t = await mediaApp();
  a = await t.createTenant({ name: 'A' });
  b = await t.createTenant({ name: 'B' });
  await uploaded(t, a, pdf, 'a.pdf', 'application/pdf');
  bFile = await uploaded(t, b, pdf, 'secret.pdf', 'application/pdf');
  bPending = await initiate(t, b, { original_name: 'next.pdf', content_type: 'application/pdf', size_bytes: pdf.length });
});
afterAll(async () => t?.close());

describe("with tenant A's key, nothing of tenant B", () => {
  const asA = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.request({ method, url, headers: a.headers(), payload: payload as never });

  it('can be listed', async () => {
    const names = (await asA('GET', '/api/v1/media?limit=100')).json().data.map((f: { original_name: string }) => f.original_name);
    expect(names).toEqual(['a.pdf']);
    expect((await asA('GET', '/api/v1/media?filter[status]=pending')).json().data).toEqual([]);
  });

  it('can be read, confirmed, changed, failed or deleted', async () => {
    for (const id of [bFile.id, bPending.file_id]) {
      const url = `/api/v1/media/${id}`;
      expect((await asA('GET', url)).statusCode).toBe(404);
      expect((await asA('POST', `${url}/confirm`)).statusCode).toBe(404);
      expect((await asA('PATCH', `${url}/alt-text`, { alt_text: 'hacked' })).statusCode).toBe(404);
      const variant = { name: 'x', storage_key: `${b.id}/${id}/x.png`, width: 1, height: 1, size_bytes: 1, public_url: 'https://x.test/x.png' };
      expect((await asA('POST', `${url}/variants`, variant)).statusCode).toBe(404);
      expect((await asA('POST', `${url}/fail`, { reason: 'hacked' })).statusCode).toBe(404);
      expect((await asA('DELETE', url)).statusCode).toBe(404);
    }
    const still = (await t.request({ method: 'GET', url: `/api/v1/media/${bFile.id}`, headers: b.headers() })).json().data;
    expect(still).toMatchObject({ status: 'uploaded', alt_text: '', variants: [], failure_reason: null });
    expect((await t.request({ method: 'GET', url: `/api/v1/media/${bPending.file_id}`, headers: b.headers() })).json().data.status).toBe('pending');
    expect((await t.request({ method: 'GET', url: `/media/files/${bFile.storage_key}` })).statusCode).toBe(200);
  });

  it('can be reached with B in X-Tenant-ID', async () => {
    const res = await t.request({ method: 'GET', url: `/api/v1/media/${bFile.id}`, headers: { authorization: `Bearer ${a.adminToken}`, 'x-tenant-id': b.id } });
    expect(res.statusCode).toBe(403);
  });

  it("can be uploaded into through A's signed address with B's key in the path", async () => {
    const mine = await initiate(t, a, { original_name: 'next.pdf', content_type: 'application/pdf', size_bytes: pdf.length });
    const forged = new URL(mine.upload_url);
    forged.pathname = new URL(bPending.upload_url).pathname;
    const res = await put(t, forged.toString(), Buffer.from('%PDF-1.4\n% forged by tenant A\n%%EOF'), 'application/pdf');
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('MEDIA_SIGNATURE_INVALID');
    const confirm = await t.request({ method: 'POST', url: `/api/v1/media/${bPending.file_id}/confirm`, headers: b.headers() });
    expect(confirm.json().error.code).toBe('MEDIA_NOT_UPLOADED');
  });

  it("can be made a variant of A's file, so that deleting A's file never deletes B's objects", async () => {
    const mine = await uploaded(t, a, pdf, 'mine.pdf', 'application/pdf');
    const res = await asA('POST', `/api/v1/media/${mine.id}/variants`, {
      name: 'steal', storage_key: bFile.storage_key, width: 1, height: 1, size_bytes: pdf.length, public_url: bFile.public_url,
    });
    expect(res.statusCode).toBe(400);
    expect((await asA('DELETE', `/api/v1/media/${mine.id}`)).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: `/media/files/${bFile.storage_key}` })).statusCode).toBe(200);
  });

  it('is visible even with the ORM tenant filter switched off: row-level security holds', async () => {
    const db = t.app.container.resolve(Database);
    const seen = await db.tenant(({ em }) => em.find(MediaFile, {}, { filters: false }), a.id);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((f) => f.tenantId === a.id)).toBe(true);
  });
});
