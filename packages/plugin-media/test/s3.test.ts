import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestTenant } from '@qhatu/core/testing';
import S3rver from 's3rver';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, mediaApp, png, type MediaTestApp, waitFor } from './helpers.js';

const BUCKET = 'qhatu-media';
let s3: S3rver;
let s3Dir: string;
let endpoint: string;
let t: MediaTestApp;
let shop: TestTenant;
beforeAll(async () => {
  s3Dir = await mkdtemp(path.join(tmpdir(), 'qhatu-s3-'));
  const port = await freePort();
  s3 = new S3rver({ address: '127.0.0.1', port, directory: s3Dir, silent: true, configureBuckets: [{ name: BUCKET }] });
  await s3.run();
  endpoint = `http://127.0.0.1:${port}`;
  t = await mediaApp({
    workers: true,
    env: {
      QHATU_S3_BUCKET: BUCKET,
      QHATU_S3_REGION: 'us-east-1',
      QHATU_S3_ENDPOINT: endpoint,
      QHATU_S3_ACCESS_KEY_ID: 'S3RVER',
      QHATU_S3_SECRET_ACCESS_KEY: 'S3RVER',
      QHATU_S3_FORCE_PATH_STYLE: 'true',
    },
  });
  shop = await t.createTenant();
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
  await rm(s3Dir, { recursive: true, force: true });
});

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  t.request({ method, url, headers: shop.headers(), payload: payload as never });
const start = async (bytes: Buffer, name = 'llama.png', type = 'image/png') => {
  const res = await call('POST', '/api/v1/media/upload', { original_name: name, content_type: type, size_bytes: bytes.length });
  expect(res.statusCode).toBe(201);
  return res.json().data as { file_id: string; upload_url: string; expires_at: string };
};

describe('S3-compatible storage', () => {
  it('uploads straight to the bucket, confirms by HEAD, makes variants, serves and deletes', async () => {
    const bytes = await png(640, 480);
    const ticket = await start(bytes);
    const url = new URL(ticket.upload_url);
    expect(url.origin).toBe(endpoint);
    expect(url.pathname).toBe(`/${BUCKET}/${shop.id}/${ticket.file_id}/llama.png`);
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    // Valid until the answered expires_at exactly (15 minutes from the upload's start; a little less once signed).
    const expires = Number(url.searchParams.get('X-Amz-Expires'));
    expect(expires).toBeGreaterThan(880);
    expect(expires).toBeLessThanOrEqual(900);
    const signedAt = url.searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
    expect(Math.abs(Date.parse(signedAt) + expires * 1000 - Date.parse(ticket.expires_at))).toBeLessThan(1000);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');

    const early = await call('POST', `/api/v1/media/${ticket.file_id}/confirm`);
    expect(early.json().error.code).toBe('MEDIA_NOT_UPLOADED');
    const sent = await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: bytes });
    expect(sent.status).toBe(200);
    const confirmed = await call('POST', `/api/v1/media/${ticket.file_id}/confirm`);
    expect(confirmed.statusCode).toBe(200);
    const file = confirmed.json().data;
    expect(file).toMatchObject({ status: 'uploaded', public_url: `${endpoint}/${BUCKET}/${shop.id}/${ticket.file_id}/llama.png` });

    const original = await fetch(file.public_url);
    expect(original.status).toBe(200);
    expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).toBe(true);

    const done = await waitFor(async () => {
      const read = (await call('GET', `/api/v1/media/${file.id}`)).json().data;
      return read.variants.length === 3 && read;
    });
    const medium = done.variants.find((v: { name: string }) => v.name === 'medium');
    expect(medium).toMatchObject({ width: 600, height: 450, storage_key: `${shop.id}/${file.id}/variants/medium.png` });
    expect(medium.public_url).toBe(`${endpoint}/${BUCKET}/${medium.storage_key}`);
    const served = await fetch(medium.public_url);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(await sharp(Buffer.from(await served.arrayBuffer())).metadata()).toMatchObject({ width: 600, height: 450 });

    expect((await call('DELETE', `/api/v1/media/${file.id}`)).statusCode).toBe(204);
    for (const u of [file.public_url, ...done.variants.map((v: { public_url: string }) => v.public_url)]) {
      expect((await fetch(u)).status, u).toBe(404);
    }
    expect((await call('GET', `/api/v1/media/${file.id}`)).statusCode).toBe(404);
  });

  it('refuses to confirm an object of another size than declared', async () => {
    const bytes = Buffer.from('%PDF-1.4\n% short\n%%EOF\n');
    const ticket = await start(Buffer.concat([bytes, Buffer.from('more')]), 'doc.pdf', 'application/pdf');
    // This test server does not check signatures; S3 itself refuses a Content-Length other than the signed one.
    await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: bytes });
    const res = await call('POST', `/api/v1/media/${ticket.file_id}/confirm`);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('MEDIA_SIZE_MISMATCH');
  });

  it('mounts no local storage routes', async () => {
    const ticket = await start(Buffer.alloc(10), 'x.pdf', 'application/pdf');
    const local = await t.request({ method: 'PUT', url: `/media/uploads/${shop.id}/${ticket.file_id}/x.pdf`, headers: { 'content-type': 'application/pdf' }, payload: Buffer.alloc(10) });
    expect(local.statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `/media/files/${shop.id}/${ticket.file_id}/x.pdf` })).statusCode).toBe(404);
  });
});
