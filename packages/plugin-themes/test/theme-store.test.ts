import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '@qhatu/core';
import { ThemeCatalog } from '../src/index.js';
import { caller, catalogTheme, MISSING, outbox, platform, STORE, themesApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await themesApp();
});
afterAll(async () => t?.close());

describe('the platform catalog', () => {
  it('takes a theme from the platform credential only, and every store reads it', async () => {
    const res = await platform(t)('POST', STORE, {
      name: 'quipu',
      display_name: 'Quipu',
      description: 'Knots and colours',
      preview_url: 'https://themes.example.com/quipu',
      thumbnail_url: 'https://themes.example.com/quipu.png',
      price: 3900,
      currency: 'PEN',
      author: 'Andes Studio',
      tags: ['colourful'],
    });
    expect(res.statusCode).toBe(201);
    const theme = res.json().data;
    expect(theme).toMatchObject({ name: 'quipu', display_name: 'Quipu', price: 3900, currency: 'PEN', is_free: false, tags: ['colourful'], author: 'Andes Studio' });

    const a = caller(t, await t.createTenant());
    const b = caller(t, await t.createTenant());
    for (const store of [a, b]) {
      const one = await store('GET', `${STORE}/${theme.id}`);
      expect(one.statusCode).toBe(200);
      expect(one.json().data).toEqual(theme);
      expect((await store('GET', `${STORE}?limit=100`)).json().data.map((x: { id: string }) => x.id)).toContain(theme.id);
    }

    const tenant = await t.createTenant();
    const byStore = await t.request({ method: 'POST', url: STORE, headers: tenant.headers(), payload: { name: 'nope', display_name: 'No', price: 0, author: 'x' } });
    expect(byStore.statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: STORE, payload: { name: 'nope' } })).statusCode).toBe(401);
  });

  it('refuses a taken name, a price that disagrees with is_free, and bad settings', async () => {
    const taken = await platform(t)('POST', STORE, { name: 'quipu', display_name: 'Again', price: 0, author: 'x' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('THEME_NAME_TAKEN');

    const mismatch = await platform(t)('POST', STORE, { name: 'mismatch', display_name: 'M', price: 100, is_free: true, author: 'x' });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().error.details[0].path).toBe('body.is_free');

    const badOrder = await platform(t)('POST', STORE, {
      name: 'bad-order', display_name: 'B', price: 0, author: 'x',
      settings: { section_order: ['hero', 'ghost'], sections: { hero: { type: 'hero', settings: {} } } },
    });
    expect(badOrder.statusCode).toBe(400);
    expect(badOrder.json().error.code).toBe('VALIDATION_ERROR');

    for (const body of [{}, { name: 'Upper Case', display_name: 'x', price: 0, author: 'x' }, { name: 'neg', display_name: 'x', price: -1, author: 'x' }, { name: 'url', display_name: 'x', price: 0, author: 'x', preview_url: 'javascript:alert(1)' }]) {
      const res = await platform(t)('POST', STORE, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('lists with pages, filters and sorts', async () => {
    const store = caller(t, await t.createTenant());
    const free = await catalogTheme(t, 0);
    const paid = await catalogTheme(t, 100);
    const freeOnly = (await store('GET', `${STORE}?filter[is_free]=true&limit=100`)).json().data;
    expect(freeOnly.every((x: { is_free: boolean }) => x.is_free)).toBe(true);
    expect(freeOnly.map((x: { id: string }) => x.id)).toContain(free.id);
    const paidOnly = (await store('GET', `${STORE}?filter[is_free]=false&limit=100`)).json().data;
    expect(paidOnly.map((x: { id: string }) => x.id)).toContain(paid.id);
    expect(paidOnly.map((x: { id: string }) => x.id)).not.toContain(free.id);
    const tagged = (await store('GET', `${STORE}?filter[tag]=premium&limit=100`)).json().data;
    expect(tagged.length).toBeGreaterThan(0);
    expect(tagged.every((x: { tags: string[] }) => x.tags.includes('premium'))).toBe(true);

    const byPrice = (await store('GET', `${STORE}?sort=-price&limit=100`)).json().data.map((x: { price: number }) => x.price);
    expect(byPrice).toEqual([...byPrice].sort((x, y) => y - x));

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await store('GET', `${STORE}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.statusCode).toBe(200);
      seen.push(...page.json().data.map((x: { id: string }) => x.id));
      cursor = page.json().meta.pagination.cursor;
    } while (cursor);
    const all = (await store('GET', `${STORE}?limit=100`)).json().data.map((x: { id: string }) => x.id);
    expect(seen).toEqual(all);

    for (const qs of ['filter[is_free]=maybe', 'sort=author', 'limit=0', 'filter[status]=x', 'cursor=%%%']) {
      expect((await store('GET', `${STORE}?${qs}`)).statusCode, qs).toBe(400);
    }
  });

  it('answers THEME_NOT_FOUND for an unknown theme and 400 for a malformed id', async () => {
    const store = caller(t, await t.createTenant());
    for (const path of ['', '/purchase', '/install', '/activate']) {
      const res = await store(path ? 'POST' : 'GET', `${STORE}/${MISSING}${path}`);
      expect(res.statusCode, path).toBe(404);
      expect(res.json().error.code).toBe('THEME_NOT_FOUND');
    }
    expect((await store('GET', `${STORE}/not-a-uuid`)).statusCode).toBe(400);
  });

  it("is read-only to a store's transactions, which see it whole", async () => {
    const theme = await catalogTheme(t, 0);
    const tenant = await t.createTenant();
    const db = t.app.container.resolve(Database);
    const seen = await db.tenant((tx) => tx.em.execute(`select count(*)::int as n from themes_catalog where id = ?`, [theme.id]), tenant.id);
    expect(seen[0].n).toBe(1);
    for (const sql of [`update themes_catalog set price = 0 where id = ?`, `delete from themes_catalog where id = ?`]) {
      await expect(db.tenant((tx) => tx.em.execute(sql, [theme.id]), tenant.id)).rejects.toThrow(/permission denied/);
    }
  });

  it('lists a page in one statement besides BEGIN and COMMIT', async () => {
    const tenant = await t.createTenant();
    const list = () => t.request({ method: 'GET', url: `${STORE}?limit=100&filter[is_free]=false&sort=-price`, headers: tenant.headers() });
    await list();
    const { count, result } = await t.countQueries(list);
    expect(result.statusCode).toBe(200);
    expect(count).toBe(3);
  });

  it('seeds its themes once, however often it starts', async () => {
    const seed = [{ id: '8e5a1d0c-7b2f-4c3e-9d1a-000000000001', name: 'seeded', display_name: 'Seeded', price: 0, author: 'Qhatu', currency: 'USD' }];
    const catalog = t.app.container.resolve(ThemeCatalog);
    await catalog.seed(seed);
    await Promise.all([catalog.seed(seed), catalog.seed(seed)]);
    const rows = await t.app.orm.em.getConnection().execute(`select count(*)::int as n from themes_catalog where name = 'seeded'`);
    expect(rows[0].n).toBe(1);
  });
});

describe('purchases and installs', () => {
  it('installs a free theme inactive, once', async () => {
    const theme = await catalogTheme(t, 0);
    const tenant = await t.createTenant();
    const store = caller(t, tenant);
    const res = await store('POST', `${STORE}/${theme.id}/install`);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ theme_catalog_id: theme.id, theme_name: theme.name, is_active: false, activated_at: null, published_at: null });
    expect(res.json().data.installed_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const again = await store('POST', `${STORE}/${theme.id}/install`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('THEME_ALREADY_INSTALLED');

    const free = await store('POST', `${STORE}/${theme.id}/purchase`);
    expect(free.statusCode).toBe(422);
    expect(free.json().error.code).toBe('THEME_IS_FREE');

    const events = await outbox(t, tenant.id, 'themes.theme.installed');
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ theme_catalog_id: theme.id, is_active: false });
  });

  it('installs a paid theme only once purchased (402 before), and a purchase is made once', async () => {
    const theme = await catalogTheme(t, 2500);
    const tenant = await t.createTenant();
    const store = caller(t, tenant);
    const before = await store('POST', `${STORE}/${theme.id}/install`);
    expect(before.statusCode).toBe(402);
    expect(before.json().error.code).toBe('THEME_NOT_PURCHASED');

    const bought = await store('POST', `${STORE}/${theme.id}/purchase`);
    expect(bought.statusCode).toBe(201);
    expect(bought.json().data).toMatchObject({ theme_catalog_id: theme.id, price: 2500, currency: 'USD' });
    const again = await store('POST', `${STORE}/${theme.id}/purchase`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('THEME_ALREADY_PURCHASED');

    expect((await store('POST', `${STORE}/${theme.id}/install`)).statusCode).toBe(201);
    const events = await outbox(t, tenant.id, 'themes.theme.purchased');
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ theme_catalog_id: theme.id, price: 2500, currency: 'USD' })]);
  });

  it('records one purchase and one install when the same request comes four times at once', async () => {
    const theme = await catalogTheme(t, 900);
    const store = caller(t, await t.createTenant());
    const purchases = await Promise.all([1, 2, 3, 4].map(() => store('POST', `${STORE}/${theme.id}/purchase`)));
    expect(purchases.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409]);
    const installs = await Promise.all([1, 2, 3, 4].map(() => store('POST', `${STORE}/${theme.id}/install`)));
    expect(installs.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409]);
    expect(installs.filter((r) => r.statusCode === 409).every((r) => r.json().error.code === 'THEME_ALREADY_INSTALLED')).toBe(true);
  });

  it('lists the installed themes of the store only', async () => {
    const one = await catalogTheme(t, 0);
    const two = await catalogTheme(t, 0);
    const a = caller(t, await t.createTenant());
    const b = caller(t, await t.createTenant());
    await a('POST', `${STORE}/${one.id}/install`);
    await a('POST', `${STORE}/${two.id}/install`);
    await b('POST', `${STORE}/${two.id}/install`);
    const listed = await a('GET', `${STORE}/installed`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.map((x: { theme_catalog_id: string }) => x.theme_catalog_id)).toEqual([one.id, two.id]);
    expect((await b('GET', `${STORE}/installed`)).json().data.map((x: { theme_catalog_id: string }) => x.theme_catalog_id)).toEqual([two.id]);
    const page = (await a('GET', `${STORE}/installed?limit=1`)).json();
    expect(page.data).toHaveLength(1);
    expect(page.meta.pagination.has_next).toBe(true);
    const next = (await a('GET', `${STORE}/installed?limit=1&cursor=${page.meta.pagination.cursor}`)).json();
    expect(next.data[0].theme_catalog_id).toBe(two.id);
  });

  it("keeps a store's purchase to itself", async () => {
    const theme = await catalogTheme(t, 5000);
    const a = caller(t, await t.createTenant());
    const b = caller(t, await t.createTenant());
    expect((await a('POST', `${STORE}/${theme.id}/purchase`)).statusCode).toBe(201);
    expect((await b('POST', `${STORE}/${theme.id}/install`)).statusCode).toBe(402);
    expect((await b('POST', `${STORE}/${theme.id}/purchase`)).statusCode).toBe(201);
  });

  it('needs an admin key', async () => {
    const theme = await catalogTheme(t, 0);
    const tenant = await t.createTenant();
    const store = caller(t, tenant, tenant.storefrontToken);
    for (const [method, path] of [['GET', ''], ['GET', '/installed'], ['GET', `/${theme.id}`], ['POST', `/${theme.id}/install`], ['POST', `/${theme.id}/activate`], ['POST', `/${theme.id}/purchase`]] as const) {
      expect((await store(method, `${STORE}${path}`)).statusCode, path).toBe(403);
    }
    expect((await t.request({ method: 'GET', url: STORE, headers: { authorization: `Bearer ${t.platformToken}`, 'x-tenant-id': tenant.id } })).statusCode).toBe(403);
  });
});

describe('activation', () => {
  it('activates by catalog id, leaving exactly one active theme', async () => {
    const one = await catalogTheme(t, 0);
    const two = await catalogTheme(t, 0);
    const tenant = await t.createTenant();
    const store = caller(t, tenant);

    const notInstalled = await store('POST', `${STORE}/${one.id}/activate`);
    expect(notInstalled.statusCode).toBe(404);
    expect(notInstalled.json().error.code).toBe('THEME_NOT_INSTALLED');

    await store('POST', `${STORE}/${one.id}/install`);
    await store('POST', `${STORE}/${two.id}/install`);
    const first = await store('POST', `${STORE}/${one.id}/activate`);
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ status: 'activated', theme_catalog_id: one.id });

    const second = await store('POST', `${STORE}/${two.id}/activate`);
    expect(second.json().data.status).toBe('activated');
    const installed = (await store('GET', `${STORE}/installed`)).json().data;
    expect(installed.map((x: { theme_catalog_id: string; is_active: boolean }) => [x.theme_catalog_id, x.is_active])).toEqual([[one.id, false], [two.id, true]]);

    // Activating the active theme again changes nothing.
    expect((await store('POST', `${STORE}/${two.id}/activate`)).statusCode).toBe(200);
    const events = await outbox(t, tenant.id, 'themes.theme.activated');
    expect(events.map((e) => [e.data.theme_catalog_id, e.data.previous_theme_catalog_id])).toEqual([[one.id, null], [two.id, one.id]]);
    expect(events[0].source).toBe('/qhatu/themes');
  });

  it('leaves exactly one active theme when activations race', async () => {
    const themes = await Promise.all([0, 0, 0, 0].map(() => catalogTheme(t, 0)));
    const tenant = await t.createTenant();
    const store = caller(t, tenant);
    for (const theme of themes) await store('POST', `${STORE}/${theme.id}/install`);
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([...themes, ...themes].map((theme) => store('POST', `${STORE}/${theme.id}/activate`)));
      expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 200));
      const rows = await t.app.orm.em.getConnection().execute(`select count(*)::int as n from themes_installed where tenant_id = ? and is_active`, [tenant.id]);
      expect(rows[0].n).toBe(1);
    }
  });

  it("cannot activate another store's installation", async () => {
    const theme = await catalogTheme(t, 0);
    const a = caller(t, await t.createTenant());
    const b = caller(t, await t.createTenant());
    await a('POST', `${STORE}/${theme.id}/install`);
    const res = await b('POST', `${STORE}/${theme.id}/activate`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('THEME_NOT_INSTALLED');
  });

  it('refuses a second active theme at the database, whatever the code does', async () => {
    const one = await catalogTheme(t, 0);
    const two = await catalogTheme(t, 0);
    const tenant = await t.createTenant();
    const store = caller(t, tenant);
    await store('POST', `${STORE}/${one.id}/install`);
    await store('POST', `${STORE}/${two.id}/install`);
    await store('POST', `${STORE}/${one.id}/activate`);
    await expect(
      t.app.orm.em.getConnection().execute(`update themes_installed set is_active = true where tenant_id = ? and theme_catalog_id = ?`, [tenant.id, two.id]),
    ).rejects.toThrow(/themes_installed_active/);
  });
});
