import { AppError, Database, EventBus, type DomainEvent } from '@qhatu/core';
import type { TestTenant } from '@qhatu/core/testing';
import type { InjectionToken } from 'tsyringe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_STORAGE, MediaLibrary, type MediaStorage } from '../src/index.js';
import { initiate, mediaApp, put, uploaded, type MediaTestApp } from './helpers.js';

let t: MediaTestApp;
let shop: TestTenant;
const events: DomainEvent[] = [];
beforeAll(async () => {
  t = await mediaApp({ env: { QHATU_MEDIA_MAX_BYTES: String(1024 * 1024), QHATU_MEDIA_TYPES: 'image/png, image/jpeg,application/pdf' } });
  shop = await t.createTenant();
  t.app.container.resolve(EventBus).on('*', (e) => void events.push(e));
});
afterAll(async () => t?.close());

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, token?: string) =>
  t.request({ method, url, headers: shop.headers(token), payload: payload as never });
const pdf = Buffer.from('%PDF-1.4\n% a tiny document\n%%EOF\n');

describe('POST /api/v1/media/upload', () => {
  it('creates a pending file and a signed address valid for 15 minutes', async () => {
    const res = await call('POST', '/api/v1/media/upload', { original_name: 'Lista de precios 2026.pdf', content_type: 'application/pdf', size_bytes: 1200 });
    expect(res.statusCode).toBe(201);
    const ticket = res.json().data;
    expect(Object.keys(ticket).sort()).toEqual(['expires_at', 'file_id', 'upload_url']);
    const file = (await call('GET', `/api/v1/media/${ticket.file_id}`)).json().data;
    expect(file).toEqual({
      id: ticket.file_id,
      tenant_id: shop.id,
      original_name: 'Lista de precios 2026.pdf',
      storage_key: `${shop.id}/${ticket.file_id}/Lista-de-precios-2026.pdf`,
      content_type: 'application/pdf',
      size_bytes: 1200,
      status: 'pending',
      alt_text: '',
      variants: [],
      public_url: `${t.app.config.publicUrl}/media/files/${shop.id}/${ticket.file_id}/Lista-de-precios-2026.pdf`,
      failure_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(Date.parse(ticket.expires_at) - Date.parse(file.created_at)).toBe(900_000);
  });

  it.each([
    [{ content_type: 'image/png', size_bytes: 10 }, 'body.original_name'],
    [{ original_name: '', content_type: 'image/png', size_bytes: 10 }, 'body.original_name'],
    [{ original_name: '../etc/passwd', content_type: 'image/png', size_bytes: 10 }, 'body.original_name'],
    [{ original_name: 'a\\b.png', content_type: 'image/png', size_bytes: 10 }, 'body.original_name'],
    [{ original_name: 'a\nb.png', content_type: 'image/png', size_bytes: 10 }, 'body.original_name'],
    [{ original_name: `${'x'.repeat(252)}.png`, content_type: 'image/png', size_bytes: 10 }, 'body.original_name'],
    [{ original_name: 'a.png', content_type: 'png', size_bytes: 10 }, 'body.content_type'],
    [{ original_name: 'a.png', content_type: 'image/png; charset=x', size_bytes: 10 }, 'body.content_type'],
    [{ original_name: 'a.png', content_type: 'image/png', size_bytes: 0 }, 'body.size_bytes'],
    [{ original_name: 'a.png', content_type: 'image/png', size_bytes: 1.5 }, 'body.size_bytes'],
    [{ original_name: 'a.png', content_type: 'image/png', size_bytes: '10' }, 'body.size_bytes'],
    [{ original_name: 'a.png', content_type: 'image/png', size_bytes: 10, path: '/x' }, 'body'],
  ])('refuses %j (%s)', async (payload, field) => {
    const res = await call('POST', '/api/v1/media/upload', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(field);
  });

  it('takes a name of 255 characters and a type in any case', async () => {
    const res = await call('POST', '/api/v1/media/upload', { original_name: `${'x'.repeat(251)}.png`, content_type: 'Image/PNG', size_bytes: 10 });
    expect(res.statusCode).toBe(201);
    const file = (await call('GET', `/api/v1/media/${res.json().data.file_id}`)).json().data;
    expect(file.content_type).toBe('image/png');
    expect(file.storage_key.split('/')[2]).toBe(`${'x'.repeat(96)}.png`);
  });

  it('refuses files above the maximum (413) and types not allowed (415)', async () => {
    const big = await call('POST', '/api/v1/media/upload', { original_name: 'big.png', content_type: 'image/png', size_bytes: 1024 * 1024 + 1 });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('MEDIA_TOO_LARGE');
    expect((await call('POST', '/api/v1/media/upload', { original_name: 'max.png', content_type: 'image/png', size_bytes: 1024 * 1024 })).statusCode).toBe(201);
    for (const type of ['text/html', 'image/svg+xml', 'image/webp', 'video/mp4']) {
      const res = await call('POST', '/api/v1/media/upload', { original_name: 'x', content_type: type, size_bytes: 10 });
      expect(res.statusCode, type).toBe(415);
      expect(res.json().error.code).toBe('MEDIA_TYPE_NOT_ALLOWED');
    }
  });
});

describe('confirm, fail, alt text and variants', () => {
  it('confirms once the bytes are there, and only once', async () => {
    const ticket = await initiate(t, shop, { original_name: 'doc.pdf', content_type: 'application/pdf', size_bytes: pdf.length });
    const early = await call('POST', `/api/v1/media/${ticket.file_id}/confirm`);
    expect(early.statusCode).toBe(409);
    expect(early.json().error.code).toBe('MEDIA_NOT_UPLOADED');
    expect((await put(t, ticket.upload_url, pdf, 'application/pdf')).statusCode).toBe(200);
    const ok = await call('POST', `/api/v1/media/${ticket.file_id}/confirm`);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toMatchObject({ id: ticket.file_id, status: 'uploaded' });
    const twice = await call('POST', `/api/v1/media/${ticket.file_id}/confirm`);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.code).toBe('INVALID_STATE_TRANSITION');
    expect(events.filter((e) => e.type === 'media.file.uploaded' && e.data.id === ticket.file_id)).toHaveLength(1);
  });

  it('refuses to confirm a stored object of another size or type', async () => {
    const storage = t.app.container.resolve<MediaStorage>(MEDIA_STORAGE);
    const sized = await initiate(t, shop, { original_name: 'doc.pdf', content_type: 'application/pdf', size_bytes: pdf.length });
    const key = (id: string) => `${shop.id}/${id}/doc.pdf`;
    await storage.put(key(sized.file_id), pdf.subarray(1), 'application/pdf');
    const res = await call('POST', `/api/v1/media/${sized.file_id}/confirm`);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('MEDIA_SIZE_MISMATCH');
    const typed = await initiate(t, shop, { original_name: 'doc.pdf', content_type: 'application/pdf', size_bytes: pdf.length });
    await storage.put(key(typed.file_id), pdf, 'text/plain');
    expect((await call('POST', `/api/v1/media/${typed.file_id}/confirm`)).json().error.code).toBe('MEDIA_TYPE_MISMATCH');
    expect((await call('GET', `/api/v1/media/${typed.file_id}`)).json().data.status).toBe('pending');
  });

  it('fails a file from any state with the reason, and a failed file cannot be confirmed', async () => {
    const ticket = await initiate(t, shop, { size_bytes: 100 });
    expect((await call('POST', `/api/v1/media/${ticket.file_id}/fail`, {})).statusCode).toBe(400);
    expect((await call('POST', `/api/v1/media/${ticket.file_id}/fail`, { reason: '   ' })).statusCode).toBe(400);
    const res = await call('POST', `/api/v1/media/${ticket.file_id}/fail`, { reason: 'virus scan: infected' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: 'virus scan: infected' });
    expect(events.find((e) => e.type === 'media.file.failed' && e.data.id === ticket.file_id)?.data).toMatchObject({ failure_reason: 'virus scan: infected' });
    const confirm = await call('POST', `/api/v1/media/${ticket.file_id}/confirm`);
    expect(confirm.statusCode).toBe(409);
    expect(confirm.json().error.code).toBe('INVALID_STATE_TRANSITION');
    const done = await uploaded(t, shop, pdf, 'ok.pdf', 'application/pdf');
    const later = await call('POST', `/api/v1/media/${done.id}/fail`, { reason: 'transcoding failed' });
    expect(later.json().data).toMatchObject({ status: 'failed', failure_reason: 'transcoding failed' });
  });

  it('sets the alt text', async () => {
    const ticket = await initiate(t, shop, { size_bytes: 100 });
    const res = await call('PATCH', `/api/v1/media/${ticket.file_id}/alt-text`, { alt_text: 'Red alpaca poncho, front' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.alt_text).toBe('Red alpaca poncho, front');
    expect((await call('GET', `/api/v1/media/${ticket.file_id}`)).json().data.alt_text).toBe('Red alpaca poncho, front');
    expect((await call('PATCH', `/api/v1/media/${ticket.file_id}/alt-text`, { alt_text: '' })).json().data.alt_text).toBe('');
    expect((await call('PATCH', `/api/v1/media/${ticket.file_id}/alt-text`, {})).statusCode).toBe(400);
    expect((await call('PATCH', `/api/v1/media/${ticket.file_id}/alt-text`, { alt_text: 'x'.repeat(1001) })).statusCode).toBe(400);
  });

  it('records variants for uploaded files, replacing one of the same name', async () => {
    const file = await uploaded(t, shop, pdf, 'cover.pdf', 'application/pdf');
    const prefix = `${shop.id}/${file.id}/`;
    const variant = { name: 'preview', storage_key: `${prefix}variants/preview.png`, width: 300, height: 400, size_bytes: 5120, public_url: 'https://cdn.example.com/preview.png' };
    const res = await call('POST', `/api/v1/media/${file.id}/variants`, variant);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.variants).toEqual([variant]);
    await call('POST', `/api/v1/media/${file.id}/variants`, { ...variant, name: 'thumb', width: 75, height: 100 });
    const replaced = await call('POST', `/api/v1/media/${file.id}/variants`, { ...variant, width: 600, height: 800, size_bytes: 9000 });
    expect(replaced.json().data.variants).toEqual([{ ...variant, width: 600, height: 800, size_bytes: 9000 }, { ...variant, name: 'thumb', width: 75, height: 100 }]);

    for (const [body, field] of [
      [{ ...variant, storage_key: `${shop.id}/00000000-0000-4000-8000-000000000000/x.png` }, 'body.storage_key'],
      [{ ...variant, storage_key: `${prefix}../../other/x.png` }, 'body.storage_key'],
      [{ ...variant, storage_key: file.storage_key }, 'body.storage_key'],
      [{ ...variant, width: 0 }, 'body.width'],
      [{ ...variant, public_url: 'javascript:alert(1)' }, 'body.public_url'],
      [{ ...variant, name: 'Big Thumb' }, 'body.name'],
      [{ name: 'x' }, 'body'],
    ] as const) {
      const bad = await call('POST', `/api/v1/media/${file.id}/variants`, body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(field);
    }
    const pending = await initiate(t, shop, { size_bytes: 10 });
    const early = await call('POST', `/api/v1/media/${pending.file_id}/variants`, { ...variant, storage_key: `${shop.id}/${pending.file_id}/v.png` });
    expect(early.statusCode).toBe(409);
    expect(early.json().error.code).toBe('MEDIA_NOT_UPLOADED');
  });
});

describe('GET /api/v1/media', () => {
  let other: TestTenant;
  const names: string[] = [];
  beforeAll(async () => {
    other = await t.createTenant();
    for (let i = 0; i < 5; i++) {
      const name = `file-${i}.pdf`;
      names.unshift(name);
      if (i % 2 === 0) await uploaded(t, other, pdf, name, 'application/pdf');
      else await initiate(t, other, { original_name: name, content_type: i === 1 ? 'image/jpeg' : 'image/png', size_bytes: 10 });
    }
  });
  const list = (qs: string, token?: string) => t.request({ method: 'GET', url: `/api/v1/media?${qs}`, headers: other.headers(token) });
  const namesOf = (res: { json(): { data: Array<{ original_name: string }> } }) => res.json().data.map((f) => f.original_name);

  it('lists newest first and pages by cursor', async () => {
    expect(namesOf(await list(''))).toEqual(names);
    const first = (await list('limit=2')).json();
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 2 });
    const second = (await list(`limit=2&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`)).json();
    const third = (await list(`limit=2&cursor=${encodeURIComponent(second.meta.pagination.cursor)}`)).json();
    expect([...first.data, ...second.data, ...third.data].map((f: { original_name: string }) => f.original_name)).toEqual(names);
    expect(third.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 2 });
    expect((await list('limit=500')).json().meta.pagination.limit).toBe(100);
    expect(namesOf(await list('sort=created_at'))).toEqual([...names].reverse());
  });

  it('filters by status and content type', async () => {
    expect(namesOf(await list('filter[status]=uploaded'))).toEqual(['file-4.pdf', 'file-2.pdf', 'file-0.pdf']);
    expect(namesOf(await list('filter[status]=pending&filter[content_type]=image/jpeg'))).toEqual(['file-1.pdf']);
    for (const qs of ['filter[status]=gone', 'filter[colour]=red', 'limit=0', 'cursor=garbage', 'sort=size']) {
      const res = await list(qs);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('shows storefront keys uploaded files only', async () => {
    expect(namesOf(await list('', other.storefrontToken))).toEqual(['file-4.pdf', 'file-2.pdf', 'file-0.pdf']);
    expect(namesOf(await list('filter[status]=pending', other.storefrontToken))).toEqual([]);
  });
});

describe('DELETE /api/v1/media/:id', () => {
  it('runs the steps other plugins added in its transaction, then removes record and objects', async () => {
    const library = t.app.container.resolve(MediaLibrary as InjectionToken<MediaLibrary>);
    const file = await uploaded(t, shop, pdf, 'gone.pdf', 'application/pdf');
    const pending = await initiate(t, shop, { size_bytes: 10 });
    const db = t.app.container.resolve(Database);
    const urls = await db.tenant((tx) => library.publicUrls(tx, [file.id, pending.file_id, 'not-an-id']), shop.id);
    expect([...urls]).toEqual([[file.id, file.public_url]]);

    const seen: string[] = [];
    let refuse = true;
    library.onDelete(async (tx, mediaId) => {
      seen.push(`${tx.tenantId}:${mediaId}`);
      // A write of the step: undone with the deletion when the step refuses.
      await tx.em.execute(`update media_file set alt_text = 'detached' where id = ?`, [mediaId]);
      if (refuse && mediaId === file.id) throw AppError.conflict('The file is the cover of a collection', 'MEDIA_IN_USE');
    });
    const refused = await call('DELETE', `/api/v1/media/${file.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('MEDIA_IN_USE');
    expect(seen).toEqual([`${shop.id}:${file.id}`]);
    expect((await call('GET', `/api/v1/media/${file.id}`)).json().data).toMatchObject({ status: 'uploaded', alt_text: '' });
    expect((await t.request({ method: 'GET', url: `/media/files/${file.storage_key}` })).statusCode).toBe(200);

    refuse = false;
    expect((await call('DELETE', `/api/v1/media/${file.id}`)).statusCode).toBe(204);
    expect(seen).toHaveLength(2);
    expect((await call('GET', `/api/v1/media/${file.id}`)).json().error.code).toBe('MEDIA_NOT_FOUND');
    expect((await t.request({ method: 'GET', url: `/media/files/${file.storage_key}` })).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/media/${file.id}`)).statusCode).toBe(404);
    expect(events.filter((e) => e.type === 'media.file.deleted').map((e) => e.data.id)).toEqual([file.id]);
  });
});

describe('ids and rights', () => {
  it('answers a malformed id with 400 and an unknown one with 404', async () => {
    const routes: Array<['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?]> = [
      ['GET', ''],
      ['POST', '/confirm'],
      ['PATCH', '/alt-text', { alt_text: 'x' }],
      ['POST', '/variants', { name: 'x', storage_key: 'a/b', width: 1, height: 1, size_bytes: 1, public_url: 'https://x.test/a' }],
      ['POST', '/fail', { reason: 'x' }],
      ['DELETE', ''],
    ];
    for (const [method, suffix, body] of routes) {
      const bad = await call(method, `/api/v1/media/not-a-uuid${suffix}`, body);
      expect(bad.statusCode, `${method} ${suffix}`).toBe(400);
      expect(bad.json().error.code).toBe('VALIDATION_ERROR');
      const unknown = await call(method, `/api/v1/media/00000000-0000-4000-8000-000000000000${suffix}`, body);
      expect(unknown.statusCode, `${method} ${suffix}`).toBe(404);
      expect(unknown.json().error.code).toBe('MEDIA_NOT_FOUND');
    }
  });

  it('lets storefront keys read uploaded files and write nothing', async () => {
    const file = await uploaded(t, shop, pdf, 'public.pdf', 'application/pdf');
    const pending = await initiate(t, shop, { size_bytes: 10 });
    const sf = shop.storefrontToken;
    expect((await call('GET', `/api/v1/media/${file.id}`, undefined, sf)).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/media/${pending.file_id}`, undefined, sf)).statusCode).toBe(404);
    const writes: Array<['POST' | 'PATCH' | 'DELETE', string, unknown?]> = [
      ['POST', '/api/v1/media/upload', { original_name: 'a.png', content_type: 'image/png', size_bytes: 10 }],
      ['POST', `/api/v1/media/${pending.file_id}/confirm`],
      ['PATCH', `/api/v1/media/${file.id}/alt-text`, { alt_text: 'x' }],
      ['POST', `/api/v1/media/${file.id}/variants`, { name: 'x', storage_key: `${file.storage_key}.x`, width: 1, height: 1, size_bytes: 1, public_url: 'https://x.test/a' }],
      ['POST', `/api/v1/media/${file.id}/fail`, { reason: 'x' }],
      ['DELETE', `/api/v1/media/${file.id}`],
    ];
    for (const [method, url, body] of writes) {
      const res = await call(method, url, body, sf);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
    const anonymous = await t.request({ method: 'GET', url: '/api/v1/media', headers: { 'x-tenant-id': shop.id } });
    expect(anonymous.statusCode).toBe(401);
    expect((await call('GET', `/api/v1/media/${file.id}`)).json().data).toMatchObject({ status: 'uploaded', alt_text: '' });
  });
});

describe('OpenAPI', () => {
  it('documents every media route', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.includes('media')).sort()).toEqual([
      '/api/v1/media',
      '/api/v1/media/upload',
      '/api/v1/media/{id}',
      '/api/v1/media/{id}/alt-text',
      '/api/v1/media/{id}/confirm',
      '/api/v1/media/{id}/fail',
      '/api/v1/media/{id}/variants',
      '/media/files/{path}',
      '/media/uploads/{tenant_id}/{file_id}/{name}',
    ]);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['MediaFile', 'MediaUploadRequest', 'MediaUploadTicket', 'MediaVariant']));
  });
});
