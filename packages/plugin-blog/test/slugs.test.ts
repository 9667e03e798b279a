import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, blogApp, caller, createPost } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await blogApp();
  shop = await t.createTenant();
  api = caller(t, shop);
});
afterAll(async () => t?.close());

describe('slugs made from titles', () => {
  it.each([
    ['Año Nuevo!', 'ano-nuevo'],
    ['  ¿Qué es el "pisco sour"?  ', 'que-es-el-pisco-sour'],
    ['Crème brûlée & café au lait', 'creme-brulee-cafe-au-lait'],
    ['Straße, Øresund, Łódź, Æsir, Œuvre', 'strasse-oresund-lodz-aesir-oeuvre'],
    ['ＦＵＬＬ ｗｉｄｔｈ １２３', 'full-width-123'],
    ['10% off — today only...', '10-off-today-only'],
    ['日本語のタイトル', 'post'],
    [`${'word '.repeat(30)}end`, `${'word-'.repeat(15)}word`],
    ['x'.repeat(120), 'x'.repeat(80)],
  ])('folds %j into %s', async (title, slug) => {
    const post = await createPost(api, { title });
    expect(post.slug).toMatch(new RegExp(`^${slug}(-\\d+)?$`));
    expect(post.slug.length).toBeLessThanOrEqual(80);
    expect((await api('GET', `${BASE}/slug/${post.slug}`)).json().data.id).toBe(post.id);
  });

  it('gives a made slug that is taken the next free number', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await createPost(api, { title: 'Fiesta de la Candelaria' })).slug);
    expect(made).toEqual(['fiesta-de-la-candelaria', 'fiesta-de-la-candelaria-2', 'fiesta-de-la-candelaria-3']);
    // A number freed in the middle is used again; a longer slug that only starts alike is no obstacle.
    await createPost(api, { title: 'Other', slug: 'inti-raymi-festival' });
    expect((await createPost(api, { title: 'Inti Raymi' })).slug).toBe('inti-raymi');
  });

  it('treats an empty or null slug as absent', async () => {
    expect((await createPost(api, { title: 'Empty slug', slug: '' })).slug).toBe('empty-slug');
    expect((await createPost(api, { title: 'Null slug', slug: null })).slug).toBe('null-slug');
  });

  it('keeps slugs of archived posts taken: a permalink never moves to another post', async () => {
    const old = await createPost(api, { title: 'Retired' });
    await api('DELETE', `${BASE}/${old.id}`);
    expect((await createPost(api, { title: 'Retired' })).slug).toBe('retired-2');
    expect((await api('POST', BASE, { title: 'x', slug: 'retired' })).statusCode).toBe(409);
  });
});

describe('explicit slugs', () => {
  it('keeps one that is free and refuses one that is taken with 409 CONFLICT naming body.slug', async () => {
    expect((await createPost(api, { title: 'Anything', slug: 'my-own-slug' })).slug).toBe('my-own-slug');
    const res = await api('POST', BASE, { title: 'Another', slug: 'my-own-slug' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toEqual({ code: 'CONFLICT', message: 'The slug "my-own-slug" is already used by another post of this store', details: [{ path: 'body.slug', message: 'is taken' }] });
  });

  it('refuses a slug that is not lower-case words and dashes, and one over 80 characters', async () => {
    for (const slug of ['Año', 'with space', 'UPPER', 'trailing-', 'a_b', 'x'.repeat(81)]) {
      const res = await api('POST', BASE, { title: 't', slug });
      expect(res.statusCode, slug).toBe(400);
      expect(res.json().error.details[0].path).toBe('body.slug');
    }
  });
});

describe('creates at the same moment', () => {
  it('gives ten posts with one title ten different slugs', async () => {
    const made = await Promise.all(Array.from({ length: 10 }, () => api('POST', BASE, { title: 'Día de la Canción Criolla' })));
    expect(made.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    const base = 'dia-de-la-cancion-criolla';
    expect(made.map((r) => r.json().data.slug).sort()).toEqual([base, ...Array.from({ length: 9 }, (_, i) => `${base}-${i + 2}`)].sort());
  });

  it('gives one explicit slug to exactly one of several racing creates; the others are a precise 409', async () => {
    const raced = await Promise.all(Array.from({ length: 5 }, (_, i) => api('POST', BASE, { title: `Racer ${i}`, slug: 'raced-slug' })));
    expect(raced.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const r of raced.filter((x) => x.statusCode === 409)) {
      expect(r.json().error).toEqual({ code: 'CONFLICT', message: 'The slug "raced-slug" is already used by another post of this store', details: [{ path: 'body.slug', message: 'is taken' }] });
    }
    const list = (await api('GET', `${BASE}?q=racer&limit=100`)).json().data;
    expect(list).toHaveLength(1);
  });

  it('never lets a made slug take an explicit one: whoever writes first keeps it, the made one steps aside', async () => {
    for (let round = 0; round < 5; round++) {
      const slug = `chicha-morada-round${round}`;
      const [explicit, made] = await Promise.all([
        api('POST', BASE, { title: 'Whatever', slug }),
        api('POST', BASE, { title: `Chicha morada round${round}` }),
      ]);
      expect(made.statusCode).toBe(201);
      if (explicit.statusCode === 201) {
        expect(explicit.json().data.slug).toBe(slug);
        expect(made.json().data.slug).toBe(`${slug}-2`);
      } else {
        // The made one committed first: the explicit one is refused, precisely.
        expect(explicit.statusCode).toBe(409);
        expect(explicit.json().error.details).toEqual([{ path: 'body.slug', message: 'is taken' }]);
        expect(made.json().data.slug).toBe(slug);
      }
    }
  });

  it('gives racing renames to one slug one winner', async () => {
    const a = await createPost(api, { title: 'Rename A' });
    const b = await createPost(api, { title: 'Rename B' });
    const answers = await Promise.all([api('PATCH', `${BASE}/${a.id}`, { slug: 'renamed' }), api('PATCH', `${BASE}/${b.id}`, { slug: 'renamed' })]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });
});
