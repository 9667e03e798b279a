import { createApp } from '@qhatu/core';
import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { themesPlugin } from '../src/index.js';
import { caller, catalogTheme, platform, SETTINGS, STORE, storeWithActiveTheme, themesApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await themesApp();
});
afterAll(async () => t?.close());

const sql = (text: string, params: unknown[] = []) => t.app.orm.em.getConnection().execute(text, params);

/** A settings body with `raw` as the JSON of the hero section's settings, sent as written. */
const withSettings = (raw: string) => `{"section_order":["hero"],"sections":{"hero":{"type":"hero","settings":${raw}}}}`;

describe('reserved keys', () => {
  it('refuses __proto__, constructor and prototype anywhere in the settings with 422 naming each, and changes nothing', async () => {
    const theme = await catalogTheme(t, 0);
    const { tenant, admin } = await storeWithActiveTheme(t, theme.id);
    const put = (payload: string) => t.request({ method: 'PUT', url: '/admin/themes/draft', headers: { ...tenant.headers(), 'content-type': 'application/json' }, payload });
    const cases: Array<[string, string[]]> = [
      [withSettings('{"__proto__":{"polluted":1},"heading":"Hi"}'), ['body.sections.hero.settings.__proto__']],
      [withSettings('{"\\u005f_proto__":{"polluted":1}}'), ['body.sections.hero.settings.__proto__']],
      [withSettings('{"menu":[{"constructor":{"prototype":{"polluted":1}}}]}'), ['body.sections.hero.settings.menu.0.constructor']],
      [withSettings('{"prototype":"x","nested":{"a":{"constructor":1}}}'), ['body.sections.hero.settings.nested.a.constructor', 'body.sections.hero.settings.prototype']],
      ['{"section_order":["__proto__"],"sections":{"__proto__":{"type":"hero","settings":{}}}}', ['body.sections.__proto__']],
      ['{"section_order":["x"],"sections":{"x":{"type":"hero","settings":{},"blocks":{"constructor":{"type":"b","settings":{}}},"block_order":["constructor"]}}}', ['body.sections.x.blocks.constructor']],
      ['{"__proto__":{"polluted":1},"section_order":[],"sections":{}}', ['body.__proto__']],
    ];
    for (const [payload, paths] of cases) {
      const res = await put(payload);
      expect(res.statusCode, payload).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'THEME_SETTING_KEY_RESERVED', details: paths.map((path) => ({ path, message: 'is a reserved key' })) });
    }
    expect((await admin('GET', '/admin/themes/draft')).json()).toEqual(SETTINGS);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The words themselves are fine as values, and as text inside a key.
    const fine = await put(withSettings('{"heading":"__proto__ constructor prototype","my_constructor":1}'));
    expect(fine.statusCode).toBe(200);
    expect(fine.json().sections.hero.settings).toEqual({ heading: '__proto__ constructor prototype', my_constructor: 1 });
  });

  it('refuses them in a catalog theme too, and leaves other plugins to read JSON as core does', async () => {
    const res = await t.request({
      method: 'POST', url: STORE, headers: { authorization: `Bearer ${t.platformToken}`, 'content-type': 'application/json' },
      payload: `{"name":"proto-theme","display_name":"P","price":0,"author":"x","settings":${withSettings('{"__proto__":{"polluted":1}}')}}`,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details).toEqual([{ path: 'body.settings.sections.hero.settings.__proto__', message: 'is a reserved key' }]);
    const core = await t.request({ method: 'POST', url: '/api/v1/tenants', headers: { authorization: `Bearer ${t.platformToken}`, 'content-type': 'application/json' }, payload: '{"name":"P","__proto__":{"x":1}}' });
    expect(core.statusCode).toBe(400);
    // Theme bodies are still read as core reads them otherwise.
    const theme = await catalogTheme(t, 0);
    const { tenant } = await storeWithActiveTheme(t, theme.id);
    const send = (payload: string) => t.request({ method: 'PUT', url: '/admin/themes/draft', headers: { ...tenant.headers(), 'content-type': 'application/json' }, payload });
    expect((await send('{"section_order":')).json().error.code).toBe('VALIDATION_ERROR');
    expect((await send('')).json().error.details).toEqual([expect.objectContaining({ path: 'body' })]);
  });
});

describe('catalog themes', () => {
  it('cleans what the platform adds as a draft is cleaned: text without markup, HTML sanitized, URLs checked', async () => {
    const settings = {
      section_order: ['hero'],
      sections: { hero: { type: 'hero', settings: { heading: '<b>Welcome</b>', intro_html: '<p onclick="alert(1)">Hi<script>alert(1)</script></p>', image: '/hero.png' } } },
    };
    const add = (over: Record<string, unknown>) => platform(t)('POST', STORE, { name: `clean-${Math.random().toString(36).slice(2, 8)}`, display_name: '<i>Clean</i>', price: 0, author: '<b>Studio</b>', tags: ['<b>new</b>'], description: 'A <em>clean</em> theme', settings, ...over });
    const created = await add({});
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ display_name: 'Clean', author: 'Studio', tags: ['new'], description: 'A clean theme' });
    const { tenant } = await storeWithActiveTheme(t, created.json().data.id);
    const live = (await caller(t, tenant, tenant.storefrontToken)('GET', '/api/v1/theme')).json().data;
    expect(live.display_name).toBe('Clean');
    expect(live.settings.sections.hero.settings).toEqual({ heading: 'Welcome', intro_html: '<p>Hi</p>', image: '/hero.png' });

    const bad = await add({ settings: { ...settings, sections: { hero: { type: 'hero', settings: { image: 'javascript:alert(1)' } } } } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toMatchObject({ code: 'THEME_SETTING_URL_INVALID', details: [{ path: 'body.settings.sections.hero.settings.image' }] });
    expect((await add({ display_name: '<script>x</script>' })).statusCode).toBe(400);
  });
});

describe('settings stored before markup was checked', () => {
  it('are cleaned when the plugin next starts: HTML sanitized, text without markup, bad URLs blanked', async () => {
    const theme = await catalogTheme(t, 0);
    const { tenant, admin } = await storeWithActiveTheme(t, theme.id);
    const version = (await admin('POST', '/admin/themes/versions', { label: 'old' })).json();
    const legacy = {
      section_order: ['hero'],
      sections: {
        hero: {
          type: '<b>hero</b>',
          settings: { heading: '<img src=x onerror=alert(1)>Hello', body_html: '<p>Hi</p><script>alert(1)</script>', button_url: 'javascript:alert(1)', constructor: { x: 1 } },
          blocks: { a: { type: 'slide', settings: { link: '/ok', cta: 'vbscript:msgbox(1)' } } },
          block_order: ['a'],
        },
      },
    };
    const cleaned = {
      section_order: ['hero'],
      sections: {
        hero: {
          type: 'hero',
          settings: { heading: 'Hello', body_html: '<p>Hi</p>', button_url: '' },
          blocks: { a: { type: 'slide', settings: { link: '/ok', cta: '' } } },
          block_order: ['a'],
        },
      },
    };
    const json = JSON.stringify(legacy);
    await sql(`update themes_installed set draft = ?::jsonb, published = ?::jsonb, display_name = ?, markup_checked = false where tenant_id = ?`, [json, json, '<b>Old</b>', tenant.id]);
    await sql(`update themes_version set snapshot = ?::jsonb, label = ?, markup_checked = false where tenant_id = ? and id = ?`, [json, '<i>old</i>', tenant.id, version.id]);
    await sql(`update themes_catalog set baseline = ?::jsonb, display_name = ?, markup_checked = false where id = ?`, [json, '<b>Cat</b>', theme.id]);

    // Another process of the same deployment starts.
    const restarted = await createApp({ plugins: [themesPlugin()], config: t.app.config });
    await restarted.close();

    const live = (await caller(t, tenant, tenant.storefrontToken)('GET', '/api/v1/theme')).json().data;
    expect(live).toMatchObject({ display_name: 'Old', settings: cleaned });
    expect((await admin('GET', '/admin/themes/draft')).json()).toEqual(cleaned);
    expect((await admin('GET', `/admin/themes/versions/${version.id}`)).json()).toMatchObject({ label: 'old', snapshot: cleaned });
    const [catalog] = await sql(`select display_name, baseline from themes_catalog where id = ?`, [theme.id]);
    expect(catalog).toEqual({ display_name: 'Cat', baseline: cleaned });
    const unchecked = await sql(`select (select count(*) from themes_installed where not markup_checked) + (select count(*) from themes_version where not markup_checked) + (select count(*) from themes_catalog where not markup_checked) as n`);
    expect(Number(unchecked[0].n)).toBe(0);
  });
});
