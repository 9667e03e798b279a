import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, caller, catalogTheme, MISSING, outbox, SETTINGS, STORE, storeWithActiveTheme, TestClock, themesApp } from './helpers.js';

// 24 November 2026, 21:35 UTC: 16:35 in Lima, 06:35 the next day in Tokyo.
const clock = new TestClock(Date.UTC(2026, 10, 24, 21, 35, 0));
let t: TestApp;
beforeAll(async () => {
  t = await themesApp({ clock });
});
afterAll(async () => t?.close());

const DRAFT = {
  section_order: ['hero', 'header'],
  sections: {
    header: { type: 'header', settings: { sticky: false } },
    hero: {
      type: 'hero',
      settings: { heading: 'Sale' },
      blocks: { a: { type: 'button', settings: { label: 'Go' } } },
      block_order: ['a'],
    },
  },
};

describe('without an active theme', () => {
  it('answers NO_ACTIVE_THEME on every settings endpoint and on the storefront', async () => {
    const theme = await catalogTheme(t, 0);
    const tenant = await t.createTenant();
    const admin = caller(t, tenant);
    await admin('POST', `${STORE}/${theme.id}/install`);
    const calls = [
      admin('GET', '/admin/themes/draft'),
      admin('PUT', '/admin/themes/draft', SETTINGS),
      admin('GET', '/admin/themes/versions'),
      admin('POST', '/admin/themes/versions', { label: 'x' }),
      admin('GET', `/admin/themes/versions/${MISSING}`),
      admin('POST', `/admin/themes/versions/${MISSING}/restore`),
      admin('POST', '/admin/themes/publish'),
      caller(t, tenant, tenant.storefrontToken)('GET', '/api/v1/theme'),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('NO_ACTIVE_THEME');
    }
  });
});

describe('the settings draft', () => {
  it("starts as the theme's own settings and is replaced whole", async () => {
    const theme = await catalogTheme(t, 0);
    const { admin } = await storeWithActiveTheme(t, theme.id);
    const initial = await admin('GET', '/admin/themes/draft');
    expect(initial.statusCode).toBe(200);
    expect(initial.json()).toEqual(SETTINGS);

    const put = await admin('PUT', '/admin/themes/draft', DRAFT);
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual(DRAFT);
    expect((await admin('GET', '/admin/themes/draft')).json()).toEqual(DRAFT);
  });

  it('refuses an order that names no section, twice the same one, or a missing block', async () => {
    const theme = await catalogTheme(t, 0);
    const { tenant, admin } = await storeWithActiveTheme(t, theme.id);
    const bad = [
      { section_order: ['hero', 'ghost'], sections: { hero: { type: 'hero', settings: {} } } },
      { section_order: ['hero', 'hero'], sections: { hero: { type: 'hero', settings: {} } } },
      { section_order: ['hero'], sections: { hero: { type: 'hero', settings: {}, blocks: {}, block_order: ['nope'] } } },
      { section_order: ['hero'], sections: { hero: { settings: {} } } },
      { section_order: ['bad id!'], sections: { 'bad id!': { type: 'hero', settings: {} } } },
      { section_order: [], sections: {}, extra: true },
      { sections: {} },
      { section_order: ['x'], sections: { x: { type: 'hero', settings: { big: 'x'.repeat(300 * 1024) } } } },
    ];
    for (const body of bad) {
      const res = await admin('PUT', '/admin/themes/draft', body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    // Values nested past any use, sent as the raw JSON: past 20 levels the draft says so; far past
    // what a recursive walk survives, the API refuses the body before anything reads it.
    const nested = (levels: number) => `{"section_order":["x"],"sections":{"x":{"type":"hero","settings":{"deep":${'['.repeat(levels)}${']'.repeat(levels)}}}}}`;
    const put = (payload: string) => t.request({ method: 'PUT', url: '/admin/themes/draft', headers: { ...tenant.headers(), 'content-type': 'application/json' }, payload });
    const tooDeep = await put(nested(30));
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json().error.details).toEqual([{ path: 'body.sections', message: 'nests more than 20 levels deep' }]);
    const farTooDeep = await put(nested(50_000));
    expect(farTooDeep.statusCode).toBe(400);
    expect(farTooDeep.json().error.details).toEqual([{ path: 'body', message: 'is nested too deeply' }]);

    const ghost = await admin('PUT', '/admin/themes/draft', bad[0]);
    expect(ghost.json().error.details).toEqual([expect.objectContaining({ path: 'body.section_order.1' })]);
    expect((await admin('GET', '/admin/themes/draft')).json()).toEqual(SETTINGS);
  });
});

describe('versions', () => {
  it('saves the draft with a label (empty when not given), by the caller, at the store time', async () => {
    const theme = await catalogTheme(t, 0);
    const { tenant } = await storeWithActiveTheme(t, theme.id);
    const key = await adminKey(t, tenant);
    const admin = caller(t, tenant, key.token);
    await admin('PUT', '/admin/themes/draft', DRAFT);

    const labelled = await admin('POST', '/admin/themes/versions', { label: 'Black Friday' });
    expect(labelled.statusCode).toBe(201);
    expect(labelled.json()).toEqual({ id: expect.any(String), label: 'Black Friday', created_by: key.id, created_at: '24/11/2026 16:35' });
    const bare = await t.request({ method: 'POST', url: '/admin/themes/versions', headers: tenant.headers(key.token) });
    expect(bare.statusCode).toBe(201);
    expect(bare.json().label).toBe('');

    const one = await admin('GET', `/admin/themes/versions/${labelled.json().id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ id: labelled.json().id, label: 'Black Friday', created_by: key.id, snapshot: DRAFT, created_at: '24/11/2026 16:35' });

    const list = (await admin('GET', '/admin/themes/versions')).json();
    expect(list.versions.map((v: { label: string }) => v.label)).toEqual(['', 'Black Friday', 'Original']);
    expect(list.versions[0]).toEqual({ id: bare.json().id, label: '', created_by: key.id, created_at: '24/11/2026 16:35' });
    expect(list.versions[0]).not.toHaveProperty('snapshot');
    expect(list.baseline).toMatchObject({ label: 'Original', created_by: null });

    const tooLong = await admin('POST', '/admin/themes/versions', { label: 'x'.repeat(101) });
    expect(tooLong.statusCode).toBe(400);
  });

  it("shows times in the store's time zone, America/Lima unless it chose another", async () => {
    const theme = await catalogTheme(t, 0);
    const { admin } = await storeWithActiveTheme(t, theme.id);
    expect((await admin('GET', '/admin/themes/time-zone')).json()).toEqual({ time_zone: 'America/Lima' });
    const saved = (await admin('POST', '/admin/themes/versions', {})).json();
    expect(saved.created_at).toBe('24/11/2026 16:35');

    expect((await admin('PUT', '/admin/themes/time-zone', { time_zone: 'asia/tokyo' })).json()).toEqual({ time_zone: 'Asia/Tokyo' });
    expect((await admin('GET', `/admin/themes/versions/${saved.id}`)).json().created_at).toBe('25/11/2026 06:35');
    expect((await admin('GET', '/admin/themes/versions')).json().versions[0].created_at).toBe('25/11/2026 06:35');

    for (const time_zone of ['Mars/Olympus', 'not a zone', '']) {
      const res = await admin('PUT', '/admin/themes/time-zone', { time_zone });
      expect(res.statusCode, time_zone).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await admin('GET', '/admin/themes/time-zone')).json()).toEqual({ time_zone: 'Asia/Tokyo' });
  });

  it('keeps the 50 newest of 60 saves, and the baseline', async () => {
    const theme = await catalogTheme(t, 0);
    const { tenant, admin } = await storeWithActiveTheme(t, theme.id);
    const baselineId = (await admin('GET', '/admin/themes/versions')).json().baseline.id;
    for (let i = 1; i <= 60; i++) {
      const res = await admin('POST', '/admin/themes/versions', { label: `v${i}` });
      expect(res.statusCode).toBe(201);
    }
    const list = (await admin('GET', '/admin/themes/versions')).json();
    expect(list.versions).toHaveLength(50);
    expect(list.versions.map((v: { label: string }) => v.label)).toEqual(Array.from({ length: 50 }, (_, i) => `v${60 - i}`));
    expect(list.baseline).toMatchObject({ id: baselineId, label: 'Original' });

    const rows = await t.app.orm.em.getConnection().execute(
      `select label, is_baseline from themes_version where tenant_id = ? order by seq`, [tenant.id]);
    expect(rows).toHaveLength(51);
    expect(rows[0]).toEqual({ label: 'Original', is_baseline: true });
    expect(rows[1].label).toBe('v11');

    const baseline = await admin('GET', `/admin/themes/versions/${baselineId}`);
    expect(baseline.statusCode).toBe(200);
    expect(baseline.json().snapshot).toEqual(SETTINGS);
  });

  it('numbers concurrent saves without losing one', async () => {
    const theme = await catalogTheme(t, 0);
    const { admin } = await storeWithActiveTheme(t, theme.id);
    const saves = await Promise.all(Array.from({ length: 6 }, (_, i) => admin('POST', '/admin/themes/versions', { label: `c${i}` })));
    expect(saves.map((r) => r.statusCode)).toEqual(saves.map(() => 201));
    expect((await admin('GET', '/admin/themes/versions')).json().versions).toHaveLength(7);
  });

  it('saves on whichever theme is active while activations switch it', async () => {
    const first = await catalogTheme(t, 0);
    const second = await catalogTheme(t, 0);
    const { tenant, admin } = await storeWithActiveTheme(t, first.id);
    await admin('POST', `${STORE}/${second.id}/install`);
    const answers = await Promise.all([
      ...[0, 1, 2, 3, 4, 5].map((i) => admin('POST', `${STORE}/${i % 2 ? first.id : second.id}/activate`)),
      ...[0, 1, 2, 3, 4, 5].map((i) => admin('POST', '/admin/themes/versions', { label: `race ${i}` })),
      ...[0, 1].map(() => admin('POST', '/admin/themes/publish')),
      ...[0, 1].map(() => admin('PUT', '/admin/themes/draft', DRAFT)),
    ]);
    expect(answers.map((r) => r.statusCode)).toEqual([...Array(6).fill(200), ...Array(6).fill(201), ...Array(4).fill(200)]);
    const rows = await t.app.orm.em.getConnection().execute(`select count(*)::int as n from themes_version where tenant_id = ?`, [tenant.id]);
    expect(rows[0].n).toBe(2 + 6 + 2);
  });

  it('answers THEME_VERSION_NOT_FOUND for an unknown version, one of another theme or of another store', async () => {
    const first = await catalogTheme(t, 0);
    const second = await catalogTheme(t, 0);
    const { admin } = await storeWithActiveTheme(t, first.id);
    const version = (await admin('POST', '/admin/themes/versions', { label: 'of the first theme' })).json();
    await admin('POST', `${STORE}/${second.id}/install`);
    await admin('POST', `${STORE}/${second.id}/activate`);

    const other = await storeWithActiveTheme(t, first.id);
    for (const [who, id] of [[admin, version.id], [admin, MISSING], [other.admin, version.id]] as const) {
      for (const res of [await who('GET', `/admin/themes/versions/${id}`), await who('POST', `/admin/themes/versions/${id}/restore`)]) {
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('THEME_VERSION_NOT_FOUND');
      }
    }
    // Back on the first theme, its versions are there again.
    await admin('POST', `${STORE}/${first.id}/activate`);
    expect((await admin('GET', `/admin/themes/versions/${version.id}`)).statusCode).toBe(200);
    expect((await admin('GET', '/admin/themes/versions/not-a-uuid')).statusCode).toBe(400);
  });
});

describe('restore and publish', () => {
  it('restores into the draft without publishing; publishing shows it and keeps a Publicado version', async () => {
    const theme = await catalogTheme(t, 0);
    const { tenant, admin } = await storeWithActiveTheme(t, theme.id);
    const storefront = caller(t, tenant, tenant.storefrontToken);
    const live = async () => (await storefront('GET', '/api/v1/theme')).json().data;

    expect(await live()).toMatchObject({ theme_catalog_id: theme.id, theme_name: theme.name, settings: SETTINGS, published_at: null });

    await admin('PUT', '/admin/themes/draft', DRAFT);
    const saved = (await admin('POST', '/admin/themes/versions', { label: 'Sale' })).json();
    expect((await live()).settings).toEqual(SETTINGS);

    const published = await admin('POST', '/admin/themes/publish');
    expect(published.statusCode).toBe(200);
    expect(published.json()).toMatchObject({ ok: true, label: 'Publicado', published_at: new Date(clock.now()).toISOString() });
    expect(await live()).toMatchObject({ settings: DRAFT, published_at: new Date(clock.now()).toISOString() });
    const afterPublish = (await admin('GET', '/admin/themes/versions')).json().versions;
    expect(afterPublish[0]).toMatchObject({ id: published.json().version_id, label: 'Publicado' });
    expect((await admin('GET', `/admin/themes/versions/${published.json().version_id}`)).json().snapshot).toEqual(DRAFT);

    // Restore the baseline: the draft changes, the storefront does not.
    const baseline = (await admin('GET', '/admin/themes/versions')).json().baseline;
    const restored = await admin('POST', `/admin/themes/versions/${baseline.id}/restore`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toEqual({ ok: true, label: 'Original' });
    expect((await admin('GET', '/admin/themes/draft')).json()).toEqual(SETTINGS);
    expect((await live()).settings).toEqual(DRAFT);

    // Edits to the draft never reach the storefront until published.
    const edited = { ...DRAFT, sections: { ...DRAFT.sections, hero: { type: 'hero', settings: { heading: 'Not yet' } } } };
    await admin('PUT', '/admin/themes/draft', edited);
    expect((await live()).settings).toEqual(DRAFT);

    expect((await admin('POST', `/admin/themes/versions/${saved.id}/restore`)).json()).toEqual({ ok: true, label: 'Sale' });
    expect((await admin('GET', '/admin/themes/draft')).json()).toEqual(DRAFT);

    const events = await outbox(t, tenant.id, 'themes.settings.published');
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ theme_catalog_id: theme.id, version_id: published.json().version_id });
    expect((await outbox(t, tenant.id, 'themes.version.restored')).map((e) => e.data.label)).toEqual(['Original', 'Sale']);
  });

  it('shows each store its own live theme, and follows activation', async () => {
    const one = await catalogTheme(t, 0);
    const two = await catalogTheme(t, 0, { settings: DRAFT });
    const a = await storeWithActiveTheme(t, one.id);
    const b = await storeWithActiveTheme(t, two.id);
    await a.admin('PUT', '/admin/themes/draft', DRAFT);
    await a.admin('POST', '/admin/themes/publish');
    expect((await caller(t, b.tenant, b.tenant.storefrontToken)('GET', '/api/v1/theme')).json().data).toMatchObject({ theme_catalog_id: two.id, published_at: null });
    expect((await b.admin('GET', '/admin/themes/draft')).json()).toEqual(DRAFT);
    expect((await b.admin('GET', '/admin/themes/versions')).json().versions).toHaveLength(1);

    await a.admin('POST', `${STORE}/${two.id}/install`);
    await a.admin('POST', `${STORE}/${two.id}/activate`);
    expect((await caller(t, a.tenant, a.tenant.storefrontToken)('GET', '/api/v1/theme')).json().data.theme_catalog_id).toBe(two.id);
    // A store's draft and versions stay with the theme they were made for.
    await a.admin('POST', `${STORE}/${one.id}/activate`);
    expect((await caller(t, a.tenant, a.tenant.storefrontToken)('GET', '/api/v1/theme')).json().data.settings).toEqual(DRAFT);
  });

  it('reads the live theme in one statement besides BEGIN and COMMIT', async () => {
    const theme = await catalogTheme(t, 0);
    const { tenant } = await storeWithActiveTheme(t, theme.id);
    const read = () => t.request({ method: 'GET', url: '/api/v1/theme', headers: tenant.headers(tenant.storefrontToken) });
    await read();
    const { count, result } = await t.countQueries(read);
    expect(result.statusCode).toBe(200);
    // BEGIN with the tenant, the active theme, COMMIT
    expect(count).toBe(3);
  });

  it('needs an admin key for the editor, and a tenant key for the storefront', async () => {
    const theme = await catalogTheme(t, 0);
    const { tenant } = await storeWithActiveTheme(t, theme.id);
    const storefront = caller(t, tenant, tenant.storefrontToken);
    expect((await storefront('GET', '/admin/themes/draft')).statusCode).toBe(403);
    expect((await storefront('POST', '/admin/themes/publish')).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: '/api/v1/theme', headers: { 'x-tenant-id': tenant.id } })).statusCode).toBe(401);
  });
});
