import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, blogApp, caller, createPost, publish, type PostJson } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: ReturnType<typeof caller>;
let storefront: ReturnType<typeof caller>;
let draft: PostJson;
let live: PostJson;
let archived: PostJson;
beforeAll(async () => {
  t = await blogApp();
  shop = await t.createTenant();
  other = await t.createTenant();
  admin = caller(t, shop);
  storefront = caller(t, shop, shop.storefrontToken);
  draft = await createPost(admin, { title: 'Secret draft' });
  live = await publish(admin, (await createPost(admin, { title: 'Live post' })).id);
  archived = await publish(admin, (await createPost(admin, { title: 'Old news' })).id);
  await admin('DELETE', `${BASE}/${archived.id}`);
});
afterAll(async () => t?.close());

const ids = (res: { json(): { data: PostJson[] } }) => res.json().data.map((p) => p.id);

describe('what the storefront sees', () => {
  it('lists published posts only, whatever status it asks for', async () => {
    expect(ids(await storefront('GET', BASE))).toEqual([live.id]);
    expect(ids(await storefront('GET', `${BASE}?status=published`))).toEqual([live.id]);
    expect(ids(await storefront('GET', `${BASE}?status=draft`))).toEqual([]);
    expect(ids(await storefront('GET', `${BASE}?status=archived`))).toEqual([]);
    expect(ids(await storefront('GET', `${BASE}?q=secret`))).toEqual([]);
    expect(ids(await storefront('GET', `${BASE}?q=news`))).toEqual([]);
  });

  it('reads a published post by id and by slug; a draft or archived post is a 404, by id and by slug', async () => {
    expect((await storefront('GET', `${BASE}/${live.id}`)).json().data).toMatchObject({ id: live.id, status: 'published' });
    expect((await storefront('GET', `${BASE}/slug/${live.slug}`)).json().data.id).toBe(live.id);
    for (const hidden of [draft, archived]) {
      for (const url of [`${BASE}/${hidden.id}`, `${BASE}/slug/${hidden.slug}`]) {
        const res = await storefront('GET', url);
        expect(res.statusCode, url).toBe(404);
        expect(res.json().error).toEqual({ code: 'BLOG_POST_NOT_FOUND', message: 'Blog post not found', details: [] });
      }
    }
  });

  it('loses a post the moment it is archived, and sees a draft the moment it is published', async () => {
    const post = await createPost(admin, { title: 'Coming and going' });
    expect((await storefront('GET', `${BASE}/slug/${post.slug}`)).statusCode).toBe(404);
    await publish(admin, post.id);
    expect((await storefront('GET', `${BASE}/slug/${post.slug}`)).statusCode).toBe(200);
    await admin('DELETE', `${BASE}/${post.id}`);
    expect((await storefront('GET', `${BASE}/slug/${post.slug}`)).statusCode).toBe(404);
    expect(ids(await storefront('GET', BASE))).not.toContain(post.id);
  });

  it('needs a token and the tenant header', async () => {
    const anon = await t.request({ method: 'GET', url: BASE, headers: { 'x-tenant-id': shop.id } });
    expect(anon.statusCode).toBe(401);
    const noTenant = await t.request({ method: 'GET', url: BASE, headers: { authorization: `Bearer ${shop.storefrontToken}` } });
    expect(noTenant.statusCode).toBe(400);
    expect(noTenant.json().error.code).toBe('TENANT_REQUIRED');
  });
});

describe('another store', () => {
  it('sees none of these posts: lists are empty, ids and slugs are 404s', async () => {
    for (const token of [other.adminToken, other.storefrontToken]) {
      const as = caller(t, other, token);
      expect(ids(await as('GET', BASE))).toEqual([]);
      for (const post of [draft, live, archived]) {
        expect((await as('GET', `${BASE}/${post.id}`)).statusCode).toBe(404);
        expect((await as('GET', `${BASE}/slug/${post.slug}`)).statusCode).toBe(404);
      }
    }
  });

  it('cannot change, publish or archive them (404), and they stay as they were', async () => {
    const as = caller(t, other);
    for (const [method, url, payload] of [
      ['PATCH', `${BASE}/${draft.id}`, { title: 'Hijacked' }],
      ['POST', `${BASE}/${draft.id}/publish`, undefined],
      ['DELETE', `${BASE}/${live.id}`, undefined],
    ] as const) {
      const res = await as(method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('BLOG_POST_NOT_FOUND');
    }
    expect((await admin('GET', `${BASE}/${draft.id}`)).json().data).toMatchObject({ title: 'Secret draft', status: 'draft' });
    expect((await admin('GET', `${BASE}/${live.id}`)).json().data.status).toBe('published');
  });

  it('has its own slugs: the same title makes the same slug in each store', async () => {
    const mine = await createPost(caller(t, other), { title: 'Live post' });
    expect(mine.slug).toBe(live.slug);
    expect((await caller(t, other)('POST', BASE, { title: 'x', slug: draft.slug })).statusCode).toBe(201);
  });

  it("cannot use its key with this store's id", async () => {
    const res = await t.request({ method: 'GET', url: BASE, headers: { ...shop.headers(), authorization: `Bearer ${other.adminToken}` } });
    expect([401, 403]).toContain(res.statusCode);
  });
});
