import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, catalogApp, createProduct, uploadMedia } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await catalogApp();
  shop = await t.createTenant();
  api = caller(t, shop);
});
afterAll(async () => t?.close());

const outboxTypes = async (id: string) =>
  (await t.app.orm.em.getConnection().execute<{ type: string }[]>(`select type from core_outbox where data->>'id' = ? order by occurred_at`, [id])).map((e) => e.type);

describe('media files of the store, through the media plugin', () => {
  it('become product images with their public URL, also by GraphQL', async () => {
    const file = await uploadMedia(t, shop, { name: 'front.png' });
    expect(file.public_url).toMatch(/^https?:\/\//);
    const p = await createProduct(t, shop, {
      title: 'Photographed',
      images: [{ media_id: file.id, alt_text: 'Front' }, { url: 'https://cdn.example.com/back.jpg', alt_text: 'Back' }],
    });
    expect(p.images).toEqual([
      expect.objectContaining({ media_id: file.id, url: file.public_url, alt_text: 'Front', position: 0 }),
      expect.objectContaining({ media_id: null, url: 'https://cdn.example.com/back.jpg', alt_text: 'Back', position: 1 }),
    ]);
    const gql = await t.request({ method: 'POST', url: '/graphql', headers: shop.headers(shop.storefrontToken), payload: { query: `{ product(id: "${p.id}") { images { url altText } } }` } });
    expect(gql.json()).toEqual({ data: { product: { images: [{ url: file.public_url, altText: 'Front' }, { url: 'https://cdn.example.com/back.jpg', altText: 'Back' }] } } });
  });

  it('must be uploaded and of this store (422 MEDIA_NOT_FOUND naming the field)', async () => {
    const pending = await uploadMedia(t, shop, { confirm: false });
    const uploaded = await uploadMedia(t, shop);
    const res = await api('POST', '/api/v1/catalog/products', { title: 'x', images: [{ media_id: uploaded.id }, { media_id: pending.id }], variants: [{ title: 'a', price: 1 }] });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'MEDIA_NOT_FOUND', details: [{ path: 'body.images.1.media_id' }] });

    const other = await t.createTenant();
    const theirs = await uploadMedia(t, other);
    const foreign = await api('POST', '/api/v1/catalog/collections', { title: 'Stolen cover', image_media_id: theirs.id });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().error.code).toBe('MEDIA_NOT_FOUND');
    expect((await api('POST', '/api/v1/catalog/brands', { name: 'Stolen logo', logo_media_id: pending.id })).json().error.code).toBe('MEDIA_NOT_FOUND');
  });

  it('become collection covers (image_url) and brand logos (logo_url)', async () => {
    const cover = await uploadMedia(t, shop, { name: 'cover.png' });
    const logo = await uploadMedia(t, shop, { name: 'logo.png' });
    const c = (await api('POST', '/api/v1/catalog/collections', { title: 'Covered', image_media_id: cover.id })).json().data;
    expect(c).toMatchObject({ image_media_id: cover.id, image_url: cover.public_url });
    expect((await api('GET', `/api/v1/catalog/collections/${c.id}`)).json().data.image_url).toBe(cover.public_url);
    const kept = (await api('PUT', `/api/v1/catalog/collections/${c.id}`, { title: 'Covered', image_media_id: cover.id })).json().data;
    expect(kept.image_url).toBe(cover.public_url);
    const cleared = (await api('PUT', `/api/v1/catalog/collections/${c.id}`, { title: 'Covered' })).json().data;
    expect(cleared).toMatchObject({ image_media_id: null, image_url: null });

    const b = (await api('POST', '/api/v1/catalog/brands', { name: 'Logo brand', logo_media_id: logo.id })).json().data;
    expect(b).toMatchObject({ logo_media_id: logo.id, logo_url: logo.public_url });
    const swapped = (await api('PUT', `/api/v1/catalog/brands/${b.id}`, { name: 'Logo brand', logo_media_id: cover.id })).json().data;
    expect(swapped).toMatchObject({ logo_media_id: cover.id, logo_url: cover.public_url });
  });

  it('are detached from product images, collection covers and brand logos when deleted', async () => {
    const doomed = await uploadMedia(t, shop, { name: 'doomed.png' });
    const other = await uploadMedia(t, shop, { name: 'other.png' });
    const p = await createProduct(t, shop, { images: [{ media_id: doomed.id, alt_text: 'a' }, { media_id: other.id, alt_text: 'b' }, { media_id: doomed.id, alt_text: 'c' }] });
    const untouched = await createProduct(t, shop, { images: [{ media_id: other.id }] });
    const c = (await api('POST', '/api/v1/catalog/collections', { title: 'Doomed cover', image_media_id: doomed.id })).json().data;
    const b = (await api('POST', '/api/v1/catalog/brands', { name: 'Doomed logo', logo_media_id: doomed.id })).json().data;

    const del = await api('DELETE', `/api/v1/media/${doomed.id}`);
    expect(del.statusCode).toBe(204);

    const product = (await api('GET', `/api/v1/catalog/products/${p.id}`)).json().data;
    expect(product.images).toEqual([expect.objectContaining({ media_id: other.id, url: other.public_url, alt_text: 'b', position: 0 })]);
    expect((await api('GET', `/api/v1/catalog/products/${untouched.id}`)).json().data.images).toHaveLength(1);
    expect((await api('GET', `/api/v1/catalog/collections/${c.id}`)).json().data).toMatchObject({ image_media_id: null, image_url: null });
    expect((await api('GET', `/api/v1/catalog/brands/${b.id}`)).json().data).toMatchObject({ logo_media_id: null, logo_url: null });
    expect(await outboxTypes(p.id)).toEqual(['products.product.created', 'products.product.updated']);
    expect(await outboxTypes(untouched.id)).toEqual(['products.product.created']);
    expect(await outboxTypes(c.id)).toEqual(['products.collection.created', 'products.collection.updated']);
    expect(await outboxTypes(b.id)).toEqual(['products.brand.created', 'products.brand.updated']);
    expect((await api('GET', `/api/v1/media/${doomed.id}`)).statusCode).toBe(404);

    // A deleted file cannot be used again.
    const again = await api('PUT', `/api/v1/catalog/collections/${c.id}`, { title: 'Doomed cover', image_media_id: doomed.id });
    expect(again.statusCode).toBe(422);
  });
});
