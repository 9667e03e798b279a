import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, blogApp, caller, createPost, MISSING, publish, type PostJson } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await blogApp();
  shop = await t.createTenant();
  api = caller(t, shop);
});
afterAll(async () => t?.close());

const outbox = (id: string) =>
  t.app.orm.em.getConnection().execute<{ type: string; source: string; data: Record<string, unknown> }[]>(
    `select type, source, data from core_outbox where data->>'id' = ? order by occurred_at, id`, [id]);

describe('POST /blog/posts', () => {
  it('writes a draft with every field, its slug made from the title', async () => {
    const res = await api('POST', BASE, {
      title: '  Cosecha de café 2026 ',
      content: '<h2>La finca</h2><p>Granos <strong>rojos</strong>.</p>',
      excerpt: 'Cómo cosechamos.',
      author: 'Rosa Quispe',
      featured_image: 'https://cdn.example/cafe.jpg',
      tags: ['café', 'origen', 'café'],
    });
    expect(res.statusCode).toBe(201);
    const post = res.json().data as PostJson;
    expect(post).toMatchObject({
      title: 'Cosecha de café 2026', slug: 'cosecha-de-cafe-2026',
      content: '<h2>La finca</h2><p>Granos <strong>rojos</strong>.</p>',
      excerpt: 'Cómo cosechamos.', author: 'Rosa Quispe', featured_image: 'https://cdn.example/cafe.jpg',
      tags: ['café', 'origen'], status: 'draft', published_at: null, archived_at: null,
    });
    expect(post.created_at).toBe(post.updated_at);
    expect(Object.keys(post).sort()).toEqual(['archived_at', 'author', 'content', 'created_at', 'excerpt', 'featured_image', 'id', 'published_at', 'slug', 'status', 'tags', 'title', 'updated_at']);
  });

  it('needs only a title: the rest are empty', async () => {
    const post = await createPost(api, { title: 'Bare' });
    expect(post).toMatchObject({ slug: 'bare', content: '', excerpt: null, author: null, featured_image: null, tags: [], status: 'draft' });
  });

  it.each([
    [{}, 'body.title'],
    [{ title: '   ' }, 'body.title'],
    [{ title: 42 }, 'body.title'],
    [{ title: 'x'.repeat(256) }, 'body.title'],
    [{ title: 'x', slug: 'Not A Slug' }, 'body.slug'],
    [{ title: 'x', slug: '-edge-' }, 'body.slug'],
    [{ title: 'x', slug: 'a--b' }, 'body.slug'],
    [{ title: 'x', featured_image: 'javascript:alert(1)' }, 'body.featured_image'],
    [{ title: 'x', featured_image: 'ftp://cdn.example/a.jpg' }, 'body.featured_image'],
    [{ title: 'x', featured_image: 'data:image/png;base64,AAAA' }, 'body.featured_image'],
    [{ title: 'x', featured_image: '/relative.jpg' }, 'body.featured_image'],
    [{ title: 'x', tags: 'news' }, 'body.tags'],
    [{ title: 'x', tags: [''] }, 'body.tags.0'],
    [{ title: 'x', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'body.tags'],
    [{ title: 'x', content: 5 }, 'body.content'],
    [{ title: 'x', status: 'published' }, 'body'],
    [{ title: 'x', published_at: '2026-01-01T00:00:00Z' }, 'body'],
  ])('refuses %j naming %s (400 VALIDATION_ERROR)', async (payload, path) => {
    const res = await api('POST', BASE, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('refuses a body that is not JSON and a missing body', async () => {
    const bad = await t.request({ method: 'POST', url: BASE, headers: { ...shop.headers(), 'content-type': 'application/json' }, payload: '{"title":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBeTruthy();
    const none = await api('POST', BASE);
    expect(none.statusCode).toBe(400);
  });

  it('is an admin operation: a storefront key gets 403, no token 401', async () => {
    const sf = await caller(t, shop, shop.storefrontToken)('POST', BASE, { title: 'Nope' });
    expect(sf.statusCode).toBe(403);
    expect(sf.json().error.code).toBe('FORBIDDEN');
    const anon = await t.request({ method: 'POST', url: BASE, headers: { 'x-tenant-id': shop.id }, payload: { title: 'Nope' } });
    expect(anon.statusCode).toBe(401);
    expect(anon.json().error.code).toBe('UNAUTHENTICATED');
  });
});

describe('GET /blog/posts/:id and /blog/posts/slug/:slug', () => {
  it('reads a post by id and by slug', async () => {
    const post = await createPost(api, { title: 'Read me', tags: ['a'] });
    const byId = await api('GET', `${BASE}/${post.id}`);
    expect(byId.statusCode).toBe(200);
    expect(byId.json().data).toEqual(post);
    const bySlug = await api('GET', `${BASE}/slug/${post.slug}`);
    expect(bySlug.statusCode).toBe(200);
    expect(bySlug.json().data).toEqual(post);
  });

  it('answers 404 BLOG_POST_NOT_FOUND for an unknown id or slug, 400 for a malformed id', async () => {
    for (const url of [`${BASE}/${MISSING}`, `${BASE}/slug/no-such-post`, `${BASE}/slug/${encodeURIComponent("'; drop table blog_post; --")}`]) {
      const res = await api('GET', url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'BLOG_POST_NOT_FOUND', message: 'Blog post not found' });
    }
    const bad = await api('GET', `${BASE}/not-a-uuid`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
  });
});

describe('PATCH /blog/posts/:id', () => {
  it('changes only the fields sent and keeps the slug when the title changes', async () => {
    const post = await createPost(api, { title: 'Old title', excerpt: 'Keep me', author: 'Ana', tags: ['x'], featured_image: 'http://cdn.example/a.png' });
    const res = await api('PATCH', `${BASE}/${post.id}`, { title: 'New title', content: '<p>Body</p>' });
    expect(res.statusCode).toBe(200);
    const changed = res.json().data as PostJson;
    expect(changed).toMatchObject({ title: 'New title', slug: 'old-title', content: '<p>Body</p>', excerpt: 'Keep me', author: 'Ana', tags: ['x'], featured_image: 'http://cdn.example/a.png', status: 'draft' });
    expect(changed.updated_at > post.updated_at).toBe(true);
    expect(changed.created_at).toBe(post.created_at);

    const cleared = (await api('PATCH', `${BASE}/${post.id}`, { excerpt: null, author: null, featured_image: null, tags: [], content: null })).json().data;
    expect(cleared).toMatchObject({ title: 'New title', excerpt: null, author: null, featured_image: null, tags: [], content: '' });
  });

  it('sets a slug that is sent, and makes one anew from the title when it is sent empty', async () => {
    const post = await createPost(api, { title: 'Slug moves' });
    expect((await api('PATCH', `${BASE}/${post.id}`, { slug: 'moved-here' })).json().data.slug).toBe('moved-here');
    expect((await api('PATCH', `${BASE}/${post.id}`, { slug: 'moved-here' })).json().data.slug).toBe('moved-here');
    expect((await api('PATCH', `${BASE}/${post.id}`, { title: 'Fresh start', slug: '' })).json().data.slug).toBe('fresh-start');
    expect((await api('GET', `${BASE}/slug/moved-here`)).statusCode).toBe(404);
  });

  it('refuses a slug another post has (409 CONFLICT naming body.slug) and changes nothing', async () => {
    const a = await createPost(api, { title: 'First of two' });
    const b = await createPost(api, { title: 'Second of two' });
    const res = await api('PATCH', `${BASE}/${b.id}`, { title: 'Renamed', slug: a.slug });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toEqual({ code: 'CONFLICT', message: `The slug "${a.slug}" is already used by another post of this store`, details: [{ path: 'body.slug', message: 'is taken' }] });
    expect((await api('GET', `${BASE}/${b.id}`)).json().data).toMatchObject({ title: 'Second of two', slug: 'second-of-two' });
  });

  it('refuses an empty change, unknown fields and bad values (400); an unknown post is a 404', async () => {
    const post = await createPost(api, { title: 'Patch errors' });
    for (const payload of [{}, { status: 'published' }, { title: '' }, { title: null }, { featured_image: 'nope' }, { tags: [1] }]) {
      const res = await api('PATCH', `${BASE}/${post.id}`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const missing = await api('PATCH', `${BASE}/${MISSING}`, { title: 'x' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('BLOG_POST_NOT_FOUND');
    expect((await caller(t, shop, shop.storefrontToken)('PATCH', `${BASE}/${post.id}`, { title: 'x' })).statusCode).toBe(403);
  });
});

describe('the lifecycle: draft → published → archived', () => {
  it('publishes a draft once, setting published_at; a second publish is 409 INVALID_STATE_TRANSITION', async () => {
    const post = await createPost(api, { title: 'To publish' });
    const res = await api('POST', `${BASE}/${post.id}/publish`);
    expect(res.statusCode).toBe(200);
    const published = res.json().data as PostJson;
    expect(published.status).toBe('published');
    expect(published.published_at).not.toBeNull();
    expect(published.updated_at).toBe(published.published_at);

    const again = await api('POST', `${BASE}/${post.id}/publish`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', message: 'Cannot publish a post that is published', details: [{ from: 'published', action: 'publish' }] });
    expect((await api('GET', `${BASE}/${post.id}`)).json().data.published_at).toBe(published.published_at);
  });

  it('edits a published post without unpublishing it', async () => {
    const post = await publish(api, (await createPost(api, { title: 'Live edit' })).id);
    const edited = (await api('PATCH', `${BASE}/${post.id}`, { excerpt: 'Now with an excerpt' })).json().data;
    expect(edited).toMatchObject({ status: 'published', published_at: post.published_at, excerpt: 'Now with an excerpt' });
  });

  it('archives a draft and a published post with DELETE (204), keeping them for the admin', async () => {
    for (const post of [await createPost(api, { title: 'Draft to archive' }), await publish(api, (await createPost(api, { title: 'Published to archive' })).id)]) {
      const res = await api('DELETE', `${BASE}/${post.id}`);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      const archived = (await api('GET', `${BASE}/${post.id}`)).json().data as PostJson;
      expect(archived).toMatchObject({ status: 'archived', published_at: post.published_at });
      expect(archived.archived_at).not.toBeNull();
      // Archiving again is a no-op: same archived_at.
      expect((await api('DELETE', `${BASE}/${post.id}`)).statusCode).toBe(204);
      expect((await api('GET', `${BASE}/${post.id}`)).json().data.archived_at).toBe(archived.archived_at);
      // An archived post cannot come back by publishing.
      const pub = await api('POST', `${BASE}/${post.id}/publish`);
      expect(pub.statusCode).toBe(409);
      expect(pub.json().error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', message: 'Cannot publish a post that is archived' });
    }
  });

  it('answers 404 for publishing or archiving an unknown post, 400 for a malformed id, 403 for a storefront key', async () => {
    expect((await api('POST', `${BASE}/${MISSING}/publish`)).json().error.code).toBe('BLOG_POST_NOT_FOUND');
    expect((await api('DELETE', `${BASE}/${MISSING}`)).statusCode).toBe(404);
    expect((await api('POST', `${BASE}/nope/publish`)).statusCode).toBe(400);
    expect((await api('DELETE', `${BASE}/nope`)).statusCode).toBe(400);
    const post = await createPost(api, { title: 'Guarded' });
    const sf = caller(t, shop, shop.storefrontToken);
    expect((await sf('POST', `${BASE}/${post.id}/publish`)).statusCode).toBe(403);
    expect((await sf('DELETE', `${BASE}/${post.id}`)).statusCode).toBe(403);
    expect((await api('GET', `${BASE}/${post.id}`)).json().data.status).toBe('draft');
  });

  it('publishes once when two publishes race: one 200, one 409', async () => {
    const post = await createPost(api, { title: 'Race to publish' });
    const answers = await Promise.all([api('POST', `${BASE}/${post.id}/publish`), api('POST', `${BASE}/${post.id}/publish`)]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await outbox(post.id)).filter((e) => e.type === 'blog.post.published')).toHaveLength(1);
  });
});

describe('GET /blog/posts', () => {
  let shop2: TestTenant;
  let api2: ReturnType<typeof caller>;
  const posts: PostJson[] = [];
  beforeAll(async () => {
    shop2 = await t.createTenant();
    api2 = caller(t, shop2);
    for (let i = 0; i < 7; i++) posts.push(await createPost(api2, { title: `Listed ${String.fromCharCode(71 - i)} ${i}` }));
    await publish(api2, posts[1].id);
    await publish(api2, posts[4].id);
    await publish(api2, posts[2].id);
    await api2('DELETE', `${BASE}/${posts[6].id}`);
  });

  const ids = (res: { json(): { data: PostJson[] } }) => res.json().data.map((p) => p.id);

  it('lists every post newest first by default: published ones by published_at, drafts by created_at', async () => {
    const res = await api2('GET', BASE);
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual([posts[2].id, posts[4].id, posts[1].id, posts[6].id, posts[5].id, posts[3].id, posts[0].id]);
    expect(res.json().meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25 });
  });

  it('filters by status', async () => {
    expect(ids(await api2('GET', `${BASE}?status=published`))).toEqual([posts[2].id, posts[4].id, posts[1].id]);
    expect(ids(await api2('GET', `${BASE}?status=draft`))).toEqual([posts[5].id, posts[3].id, posts[0].id]);
    expect(ids(await api2('GET', `${BASE}?status=archived`))).toEqual([posts[6].id]);
  });

  it('pages with cursor and limit in every sort, stable under inserts', async () => {
    for (const sort of ['-published_at', 'published_at', 'created_at', '-created_at', 'title', '-title']) {
      const all = ids(await api2('GET', `${BASE}?sort=${sort}&limit=100`));
      expect(all).toHaveLength(7);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await api2('GET', `${BASE}?sort=${sort}&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.statusCode).toBe(200);
        seen.push(...ids(res));
        cursor = res.json().meta.pagination.cursor;
        expect(res.json().meta.pagination.has_next).toBe(cursor !== null);
      } while (cursor);
      expect(seen, sort).toEqual(all);
    }
    expect(ids(await api2('GET', `${BASE}?sort=title`))).toEqual([...posts].reverse().map((p) => p.id));
    const first = await api2('GET', `${BASE}?sort=created_at&limit=2`);
    await createPost(api2, { title: 'Inserted meanwhile' });
    const next = await api2('GET', `${BASE}?sort=created_at&limit=2&cursor=${first.json().meta.pagination.cursor}`);
    expect(ids(next)).toEqual([posts[2].id, posts[3].id]);
  });

  it('searches title words with q, accents folded, the last word as a prefix', async () => {
    const a = await createPost(api2, { title: 'Recetas de Año Nuevo' });
    const b = await createPost(api2, { title: 'Nuevos productos andinos' });
    expect(ids(await api2('GET', `${BASE}?q=ano nuevo`))).toEqual([a.id]);
    expect(ids(await api2('GET', `${BASE}?q=AÑO`))).toEqual([a.id]);
    expect(ids(await api2('GET', `${BASE}?q=nuev&sort=created_at`))).toEqual([a.id, b.id]);
    expect(ids(await api2('GET', `${BASE}?q=${encodeURIComponent("nuevo' & !(")}&sort=created_at`))).toEqual([a.id, b.id]);
    expect(ids(await api2('GET', `${BASE}?q=${encodeURIComponent('!!! ???')}`))).toEqual([]);
    expect(ids(await api2('GET', `${BASE}?q=andinos&status=draft`))).toEqual([b.id]);
    expect(ids(await api2('GET', `${BASE}?q=andinos&status=published`))).toEqual([]);
  });

  it('clamps limit at 100 and refuses bad parameters (400)', async () => {
    expect((await api2('GET', `${BASE}?limit=500`)).json().meta.pagination.limit).toBe(100);
    for (const query of ['status=live', 'limit=0', 'limit=abc', 'sort=author', 'cursor=not-a-cursor', 'filter[status]=draft', 'unknown=1']) {
      const res = await api2('GET', `${BASE}?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const cursor = (await api2('GET', `${BASE}?sort=title&limit=1`)).json().meta.pagination.cursor;
    const other = await api2('GET', `${BASE}?sort=created_at&cursor=${cursor}`);
    expect(other.statusCode).toBe(400);
    expect(other.json().error.message).toBe('The cursor was made for another sort order');
  });
});

describe('events through the outbox', () => {
  it('publishes blog.post.created, updated, published and archived with the post’s summary', async () => {
    const post = await createPost(api, { title: 'Eventful', author: 'Luis', tags: ['news'], content: '<p>not in events</p>' });
    await api('PATCH', `${BASE}/${post.id}`, { title: 'Eventful, edited' });
    const published = await publish(api, post.id);
    await api('DELETE', `${BASE}/${post.id}`);
    await api('DELETE', `${BASE}/${post.id}`);
    await api('POST', `${BASE}/${post.id}/publish`); // refused: no event
    const events = await outbox(post.id);
    expect(events.map((e) => e.type)).toEqual(['blog.post.created', 'blog.post.updated', 'blog.post.published', 'blog.post.archived']);
    expect(events.every((e) => e.source === '/qhatu/blog')).toBe(true);
    expect(Object.keys(events[0].data).sort()).toEqual(['author', 'id', 'published_at', 'slug', 'status', 'tags', 'title', 'updated_at']);
    expect(events[2].data).toEqual({
      id: post.id, title: 'Eventful, edited', slug: 'eventful', status: 'published', author: 'Luis', tags: ['news'],
      published_at: published.published_at, updated_at: published.updated_at,
    });
    expect(events[3].data).toMatchObject({ status: 'archived', published_at: published.published_at });
  });

  it('writes nothing and publishes nothing when a write is refused', async () => {
    const before = await t.app.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from core_outbox where type like 'blog.%'`);
    await api('POST', BASE, { title: '' });
    await api('PATCH', `${BASE}/${MISSING}`, { title: 'x' });
    const after = await t.app.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from core_outbox where type like 'blog.%'`);
    expect(after[0].n).toBe(before[0].n);
  });
});

describe('SQL statements per request', () => {
  let post: PostJson;
  beforeAll(async () => {
    for (let i = 0; i < 30; i++) post = await publish(api, (await createPost(api, { title: `Budget ${i}`, content: '<p>x</p>' })).id);
    await caller(t, shop, shop.storefrontToken)('GET', `${BASE}/${post.id}`); // the key is now cached
  });
  const count = (url: string, token?: string) => t.countQueries(() => caller(t, shop, token)('GET', url));

  it('reads a post by id or slug in 3: BEGIN with the tenant, the post, COMMIT', async () => {
    for (const url of [`${BASE}/${post.id}`, `${BASE}/slug/${post.slug}`]) {
      const { count: n, statements } = await count(url, shop.storefrontToken);
      expect(statements[0]).toMatch(/^BEGIN READ ONLY/);
      expect(n).toBe(3);
    }
  });

  it('writes a post in 5 (BEGIN with the tenant, slug turn and look-up, insert, COMMIT with the outbox row) and publishes one in 4 (the post locked, its update and outbox row with COMMIT)', async () => {
    const created = await t.countQueries(() => api('POST', BASE, { title: 'Budget write', content: '<p>x</p>' }));
    expect(created.result.statusCode).toBe(201);
    expect(created.count).toBe(5);
    // The outbox row, prepared on the connection (shown after its name), rides on COMMIT.
    expect(created.statements.at(-1)).toMatch(/^\/\* qhatu_[0-9a-f]{24} \*\/ insert into core_outbox .*; COMMIT;$/s);
    const published = await t.countQueries(() => api('POST', `${BASE}/${created.result.json().data.id}/publish`));
    expect(published.result.statusCode).toBe(200);
    expect(published.statements[1]).toMatch(/ for update$/);
    expect(published.count).toBe(4);
  });

  it('lists 25 posts (filtered, searched) in 3', async () => {
    for (const url of [`${BASE}?limit=25`, `${BASE}?status=published&sort=title`, `${BASE}?q=budget`]) {
      const { count: n, result } = await count(url, shop.storefrontToken);
      expect(result.statusCode).toBe(200);
      expect(n, url).toBe(3);
    }
  });
});

describe('the OpenAPI document', () => {
  it('describes the ten blog operations with their schemas', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    const ops = Object.entries<Record<string, unknown>>(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/blog/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(ops).toEqual([
      'DELETE /api/v1/blog/posts/{id}', 'DELETE /api/v1/blog/posts/{id}/translations/{locale}', 'GET /api/v1/blog/posts', 'GET /api/v1/blog/posts/slug/{slug}', 'GET /api/v1/blog/posts/{id}',
      'GET /api/v1/blog/posts/{id}/translations', 'PATCH /api/v1/blog/posts/{id}', 'POST /api/v1/blog/posts', 'POST /api/v1/blog/posts/{id}/publish',
      'PUT /api/v1/blog/posts/{id}/translations/{locale}',
    ]);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['BlogPost', 'BlogPostCreate', 'BlogPostTranslation', 'BlogPostTranslationReplace']));
  });
});
