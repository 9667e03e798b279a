import { access } from 'node:fs/promises';
import path from 'node:path';
import type { TestTenant } from '@qhatu/core/testing';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_STORAGE, type MediaStorage } from '../src/index.js';
import { filesUnder, freePort, initiate, local, mediaApp, movableClock, png, put, type MediaTestApp, waitFor } from './helpers.js';

const clock = movableClock();
let t: MediaTestApp;
let shop: TestTenant;
let base: string;
beforeAll(async () => {
  const port = await freePort();
  t = await mediaApp({ workers: true, clock, env: { PORT: String(port), QHATU_MEDIA_MAX_BYTES: String(2 * 1024 * 1024) } });
  shop = await t.createTenant();
  base = await t.app.listen();
});
afterAll(async () => t?.close());

/** A fetch answer's `data`. */
const dataOf = async (res: Response) => ((await res.json()) as { data: any }).data;
const objects = () => path.join(t.dataDir, 'media', 'objects');

describe('a local upload, end to end over a socket', () => {
  it('initiates, PUTs to the signed address, confirms, gets variants, serves, and deletes everything', async () => {
    const bytes = await png(800, 500);
    const headers = { ...shop.headers(), 'content-type': 'application/json' };
    const api = (method: string, url: string, body?: unknown) =>
      fetch(`${base}${url}`, { method, headers: body === undefined ? shop.headers() : headers, body: body === undefined ? undefined : JSON.stringify(body) });

    const started = await api('POST', '/api/v1/media/upload', { original_name: 'Poncho rojo (frente).png', content_type: 'image/png', size_bytes: bytes.length });
    expect(started.status).toBe(201);
    const ticket = await dataOf(started);
    expect(ticket.upload_url.startsWith(`${base}/media/uploads/${shop.id}/${ticket.file_id}/Poncho-rojo-frente-.png?`)).toBe(true);

    const sent = await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: bytes });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);

    const confirmed = await api('POST', `/api/v1/media/${ticket.file_id}/confirm`);
    expect(confirmed.status).toBe(200);
    const file = await dataOf(confirmed);
    expect(file).toMatchObject({ id: ticket.file_id, tenant_id: shop.id, status: 'uploaded', size_bytes: bytes.length, content_type: 'image/png', original_name: 'Poncho rojo (frente).png' });

    const withVariants = await waitFor(async () => {
      const read = await dataOf(await api('GET', `/api/v1/media/${file.id}`));
      return read.variants.length === 3 && read;
    });
    const byName = Object.fromEntries(withVariants.variants.map((v: { name: string }) => [v.name, v]));
    expect(byName.thumb).toMatchObject({ width: 150, height: 94, storage_key: `${shop.id}/${file.id}/variants/thumb.png` });
    expect(byName.medium).toMatchObject({ width: 600, height: 375 });
    expect(byName.webp).toMatchObject({ width: 800, height: 500, storage_key: `${shop.id}/${file.id}/variants/webp.webp` });

    const original = await fetch(file.public_url);
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).toBe(true);
    const thumb = await fetch(byName.thumb.public_url);
    expect(thumb.headers.get('content-type')).toBe('image/png');
    const thumbBytes = Buffer.from(await thumb.arrayBuffer());
    expect(thumbBytes.length).toBe(byName.thumb.size_bytes);
    expect(await sharp(thumbBytes).metadata()).toMatchObject({ width: 150, height: 94, format: 'png' });
    const webp = await fetch(byName.webp.public_url);
    expect((await sharp(Buffer.from(await webp.arrayBuffer())).metadata()).format).toBe('webp');

    const stored = await filesUnder(objects());
    expect(stored).toEqual(
      [file.storage_key, byName.thumb.storage_key, byName.medium.storage_key, byName.webp.storage_key].map((k) => k.split('/').join(path.sep)).sort(),
    );

    expect((await api('DELETE', `/api/v1/media/${file.id}`)).status).toBe(204);
    expect(await filesUnder(objects())).toEqual([]);
    await expect(access(path.join(objects(), shop.id, file.id))).rejects.toThrow();
    expect((await api('GET', `/api/v1/media/${file.id}`)).status).toBe(404);
    expect((await fetch(file.public_url)).status).toBe(404);
    expect((await fetch(byName.thumb.public_url)).status).toBe(404);
  });
});

describe('the signed upload address', () => {
  it('expires after 15 minutes', async () => {
    const bytes = await png(20, 20);
    const ticket = await initiate(t, shop, { size_bytes: bytes.length });
    const file = (await t.request({ method: 'GET', url: `/api/v1/media/${ticket.file_id}`, headers: shop.headers() })).json().data;
    expect(Date.parse(ticket.expires_at) - Date.parse(file.created_at)).toBe(15 * 60 * 1000);
    clock.offsetMs = 15 * 60 * 1000 + 2000;
    try {
      const late = await put(t, ticket.upload_url, bytes);
      expect(late.statusCode).toBe(403);
      expect(late.json().error.code).toBe('MEDIA_UPLOAD_EXPIRED');
    } finally {
      clock.offsetMs = 0;
    }
    expect((await put(t, ticket.upload_url, bytes)).statusCode).toBe(200);
  });

  it('refuses any change to the address', async () => {
    const bytes = await png(20, 20);
    const ticket = await initiate(t, shop, { size_bytes: bytes.length });
    const url = new URL(ticket.upload_url);
    const tamper = (change: (u: URL) => void) => {
      const copy = new URL(url);
      change(copy);
      return copy.toString();
    };
    const signature = url.searchParams.get('signature')!;
    const forged = [
      tamper((u) => u.searchParams.set('signature', (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1))),
      tamper((u) => u.searchParams.set('signature', signature.slice(0, -2))),
      tamper((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))),
      tamper((u) => u.searchParams.set('size', String(bytes.length + 1))),
      tamper((u) => u.searchParams.set('type', 'image/jpeg')),
      tamper((u) => (u.pathname = u.pathname.replace(/[^/]+$/, 'other.png'))),
    ];
    for (const address of forged) {
      const res = await put(t, address, bytes, new URL(address).searchParams.get('type')!);
      expect(res.statusCode, address).toBe(403);
      expect(res.json().error.code).toBe('MEDIA_SIGNATURE_INVALID');
    }
    const missing = await put(t, tamper((u) => u.searchParams.delete('signature')), bytes);
    expect(missing.statusCode).toBe(400);
    expect(await filesUnder(path.join(objects(), shop.id, ticket.file_id))).toEqual([]);
    expect((await put(t, ticket.upload_url, bytes)).statusCode).toBe(200);
  });

  it('takes exactly the declared size: fewer or more bytes are refused and nothing is kept', async () => {
    const bytes = await png(30, 30);
    const ticket = await initiate(t, shop, { size_bytes: bytes.length });
    const short = await put(t, ticket.upload_url, bytes.subarray(0, bytes.length - 1));
    expect(short.statusCode).toBe(422);
    expect(short.json().error.code).toBe('MEDIA_SIZE_MISMATCH');
    const long = await put(t, ticket.upload_url, Buffer.concat([bytes, Buffer.from('x')]));
    expect(long.statusCode).toBe(422);
    // A Content-Length that lies: the bytes are counted as they arrive.
    const lying = await put(t, ticket.upload_url, Buffer.concat([bytes, Buffer.alloc(4096)]), 'image/png', { 'content-length': String(bytes.length) });
    expect(lying.statusCode).toBe(422);
    expect(lying.json().error.code).toBe('MEDIA_SIZE_MISMATCH');
    const media = path.join(t.dataDir, 'media');
    expect(await filesUnder(path.join(media, 'objects', shop.id, ticket.file_id))).toEqual([]);
    expect(await filesUnder(path.join(media, 'tmp'))).toEqual([]);
    const confirm = await t.request({ method: 'POST', url: `/api/v1/media/${ticket.file_id}/confirm`, headers: shop.headers() });
    expect(confirm.statusCode).toBe(409);
    expect(confirm.json().error.code).toBe('MEDIA_NOT_UPLOADED');
  });

  it('takes only the declared content type', async () => {
    const bytes = await png(10, 10);
    const ticket = await initiate(t, shop, { size_bytes: bytes.length });
    for (const type of ['image/jpeg', 'application/octet-stream', 'application/json']) {
      const res = await put(t, ticket.upload_url, bytes, type);
      expect(res.statusCode, type).toBe(415);
      expect(res.json().error.code).toBe('MEDIA_TYPE_MISMATCH');
    }
    const none = await t.request({ method: 'PUT', url: local(ticket.upload_url), payload: bytes });
    expect(none.statusCode).toBe(415);
    expect((await put(t, ticket.upload_url, bytes, 'image/png; charset=binary')).statusCode).toBe(200);
  });

  it('closes once the file is confirmed', async () => {
    const bytes = await png(12, 12);
    const ticket = await initiate(t, shop, { content_type: 'application/pdf', original_name: 'terms.pdf', size_bytes: bytes.length });
    expect((await put(t, ticket.upload_url, bytes, 'application/pdf')).statusCode).toBe(200);
    expect((await t.request({ method: 'POST', url: `/api/v1/media/${ticket.file_id}/confirm`, headers: shop.headers() })).statusCode).toBe(200);
    const again = await put(t, ticket.upload_url, Buffer.alloc(bytes.length), 'application/pdf');
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('MEDIA_NOT_PENDING');
    const served = await t.request({ method: 'GET', url: `/media/files/${shop.id}/${ticket.file_id}/terms.pdf` });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('application/pdf');
    expect(served.rawPayload.equals(bytes)).toBe(true);
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    const head = await t.request({ method: 'HEAD', url: `/media/files/${shop.id}/${ticket.file_id}/terms.pdf` });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(bytes.length));
  });
});

describe('public files', () => {
  it('serves only stored keys and never leaves the storage folder', async () => {
    for (const url of [
      `/media/files/${shop.id}/00000000-0000-4000-8000-000000000000/nothing.png`,
      '/media/files/../../../etc/passwd',
      '/media/files/..%2F..%2F..%2Fetc%2Fpasswd',
      `/media/files/${shop.id}/%2e%2e/%2e%2e/%2e%2e/etc/passwd`,
      '/media/files/',
    ]) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
    }
    const pending = await initiate(t, shop, { size_bytes: 10 });
    const key = new URL(pending.upload_url).pathname.replace('/media/uploads/', '');
    expect((await t.request({ method: 'GET', url: `/media/files/${key}` })).statusCode).toBe(404);
  });

  it('serves the bytes at public_url only once the file is confirmed, and no longer once it failed', async () => {
    const bytes = Buffer.from('%PDF-1.7 price list, not public before confirm');
    const ticket = await initiate(t, shop, { original_name: 'precios.pdf', content_type: 'application/pdf', size_bytes: bytes.length });
    expect((await put(t, ticket.upload_url, bytes, 'application/pdf')).statusCode).toBe(200);
    const file = (await t.request({ method: 'GET', url: `/api/v1/media/${ticket.file_id}`, headers: shop.headers() })).json().data;
    expect(file.status).toBe('pending');
    const at = local(file.public_url);
    const unknown = `/media/files/${shop.id}/00000000-0000-4000-8000-000000000000/precios.pdf`;
    const notFound = { error: { code: 'NOT_FOUND', message: 'File not found', details: [] } };
    // The bytes are on disk, but a pending file is not media of the store yet: the same 404 as nothing.
    for (const method of ['GET', 'HEAD'] as const) {
      const pending = await t.request({ method, url: at });
      expect(pending.statusCode, method).toBe(404);
      if (method === 'GET') {
        expect(pending.json()).toEqual(notFound);
        expect((await t.request({ method, url: unknown })).json()).toEqual(pending.json());
      }
    }

    expect((await t.request({ method: 'POST', url: `/api/v1/media/${ticket.file_id}/confirm`, headers: shop.headers() })).statusCode).toBe(200);
    const { result: served, statements } = await t.countQueries(() => t.request({ method: 'GET', url: at }));
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(bytes)).toBe(true);
    // BEGIN with the tenant, one indexed read of the file, COMMIT: no ORM (a worker's own statements aside).
    expect(statements.filter((s) => /^BEGIN READ ONLY|media_file|^COMMIT$/.test(s))).toHaveLength(3);
    expect(statements.filter((s) => s.includes('media_file'))).toHaveLength(1);

    // An object under the file's prefix that is neither the original nor a recorded variant is not served.
    const stray = `${shop.id}/${ticket.file_id}/variants/stray.pdf`;
    await t.app.container.resolve<MediaStorage>(MEDIA_STORAGE).put(stray, bytes, 'application/pdf');
    expect((await t.request({ method: 'GET', url: `/media/files/${stray}` })).statusCode).toBe(404);

    expect((await t.request({ method: 'POST', url: `/api/v1/media/${ticket.file_id}/fail`, headers: shop.headers(), payload: { reason: 'wrong list' } })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: at })).json()).toEqual(notFound);
  });
});

describe('image processing', () => {
  it('marks an "image" that does not decode failed, with the reason', async () => {
    const junk = Buffer.from('this is not a PNG at all, just text pretending');
    const ticket = await initiate(t, shop, { original_name: 'fake.png', size_bytes: junk.length });
    expect((await put(t, ticket.upload_url, junk)).statusCode).toBe(200);
    const confirmed = await t.request({ method: 'POST', url: `/api/v1/media/${ticket.file_id}/confirm`, headers: shop.headers() });
    expect(confirmed.json().data.status).toBe('uploaded');
    const failed = await waitFor(async () => {
      const file = (await t.request({ method: 'GET', url: `/api/v1/media/${ticket.file_id}`, headers: shop.headers() })).json().data;
      return file.status === 'failed' && file;
    });
    expect(failed.failure_reason).toMatch(/^Not a readable image/);
    expect(failed.variants).toEqual([]);
  });
});
