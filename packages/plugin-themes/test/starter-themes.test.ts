import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { STARTER_THEMES, ThemeCatalog } from '../src/index.js';
import { caller, STORE, themesApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await themesApp({ seed: STARTER_THEMES });
});
afterAll(async () => t?.close());

it('starts with a free and a paid theme that a store can use at once', async () => {
  // A second start (another process, a restart) adds nothing.
  await t.app.container.resolve(ThemeCatalog).seed(STARTER_THEMES);
  const tenant = await t.createTenant();
  const admin = caller(t, tenant);
  const themes = (await admin('GET', STORE)).json().data;
  expect(themes.map((x: { name: string; is_free: boolean }) => [x.name, x.is_free])).toEqual([['andes', true], ['inti', false]]);
  const [andes, inti] = themes;

  expect((await admin('POST', `${STORE}/${andes.id}/install`)).statusCode).toBe(201);
  expect((await admin('POST', `${STORE}/${andes.id}/activate`)).statusCode).toBe(200);
  const live = (await caller(t, tenant, tenant.storefrontToken)('GET', '/api/v1/theme')).json().data;
  expect(live.settings.section_order).toEqual(['header', 'hero', 'featured', 'footer']);

  expect((await admin('POST', `${STORE}/${inti.id}/install`)).statusCode).toBe(402);
  expect((await admin('POST', `${STORE}/${inti.id}/purchase`)).json().data).toMatchObject({ price: 4900, currency: 'USD' });
  expect((await admin('POST', `${STORE}/${inti.id}/install`)).statusCode).toBe(201);
});
