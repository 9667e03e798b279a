import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, blogApp, caller, createPost, publish } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await blogApp();
  shop = await t.createTenant();
  api = caller(t, shop);
});
afterAll(async () => t?.close());

describe('plain-text fields: title, excerpt, author, tags', () => {
  it('are stored without markup, the rest of their text as written, and served so', async () => {
    const post = await createPost(api, {
      title: '<b>Café</b> <script>alert(1)</script>de altura<img src=x onerror=alert(1)>',
      excerpt: 'Tom & Jerry <3 "quotes" &lt;b&gt; a < b <!-- note --><a href="javascript:alert(1)">here</a>',
      author: '<span onmouseover="alert(1)">Rosa</span> Quispe',
      tags: ['<i>news</i>', 'news', '<em>b</em>'],
    });
    const expected = { title: 'Café de altura', excerpt: 'Tom & Jerry <3 "quotes" &lt;b&gt; a < b here', author: 'Rosa Quispe', tags: ['news', 'b'] };
    expect(post).toMatchObject({ ...expected, slug: 'cafe-de-altura' });
    await publish(api, post.id);
    const read = await caller(t, shop, shop.storefrontToken)('GET', `${BASE}/slug/cafe-de-altura`);
    expect(read.json().data).toMatchObject(expected);
    // The title is searched as stored.
    const found = (await api('GET', `${BASE}?q=altura`)).json().data.map((p: { id: string }) => p.id);
    expect(found).toEqual([post.id]);
    expect((await api('GET', `${BASE}?q=script`)).json().data).toEqual([]);
    const [event] = await t.app.orm.em.getConnection().execute(`select data from core_outbox where type = 'blog.post.created' and data->>'id' = ?`, [post.id]);
    expect(event.data).toMatchObject({ title: 'Café de altura', author: 'Rosa Quispe' });
  });

  it('are cleaned on PATCH too', async () => {
    const post = await createPost(api, { title: 'Plain' });
    const res = await api('PATCH', `${BASE}/${post.id}`, { title: '<h1>Loud</h1>', excerpt: '<p>One</p><p>Two</p>', author: '<b></b>', tags: ['<u>t</u>'] });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ title: 'Loud', excerpt: 'OneTwo', author: null, tags: ['t'] });
  });

  it('refuses a title or tag with nothing but markup (400 naming it)', async () => {
    for (const [body, path] of [
      [{ title: '<script>alert(1)</script>' }, 'body.title'],
      [{ title: ' <b> </b> ' }, 'body.title'],
      [{ title: 'ok', tags: ['<img src=x onerror=alert(1)>'] }, 'body.tags.0'],
    ] as const) {
      const res = await api('POST', BASE, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.details[0].path).toBe(path);
    }
  });
});
