import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexesOf, searchPlan, seqScans, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { BASE, blogApp, caller, createPost, type PostJson } from './helpers.js';

/** Title search with 30,000 posts in the store: the answers, and the plans under row-level security. */

const POSTS = 30_000;
let t: TestApp;
let store: TestTenant;
let client: pg.Client;

beforeAll(async () => {
  t = await blogApp();
  store = await t.createTenant();
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await client.query(
    `insert into blog_post (tenant_id, id, title, slug, status, search_words, created_at, updated_at)
     select $1, gen_random_uuid(), 'Nota ' || i, 'nota-' || i, 'draft', 'nota ' || i,
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${POSTS}) as i`,
    [store.id],
  );
  // As autovacuum leaves it: the trigram index's pending list merged, statistics fresh.
  await client.query('vacuum analyze blog_post');
  await createPost(caller(t, store), { title: 'Tejidos de la Cordillera Blanca' });
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

const titles = async (q: string) => ((await caller(t, store)('GET', `${BASE}?q=${encodeURIComponent(q)}`)).json().data as PostJson[]).map((p) => p.title);

describe(`post search with ${POSTS.toLocaleString('en')} posts in the store`, () => {
  it('finds words of the title, parts of them and beginnings', async () => {
    expect(await titles('CORDILLERA tejidos')).toEqual(['Tejidos de la Cordillera Blanca']);
    expect(await titles('dillera')).toEqual(['Tejidos de la Cordillera Blanca']);
    expect(await titles('bl')).toEqual(['Tejidos de la Cordillera Blanca']);
    expect(await titles('nota 29999')).toEqual(['Nota 29999']);
    expect(await titles('nadie asi')).toEqual([]);
  });

  it('reads the trigram index under row-level security, whatever the sort', async () => {
    for (const words of ['nadie-asi', 'cordillera', 'bl']) {
      for (const sort of ['-published_at', '-created_at', 'title']) {
        const plan = await searchPlan(t, { table: 'blog_post', tenantId: store.id, words: words.replace('-', ' '), request: () => caller(t, store)('GET', `${BASE}?q=${encodeURIComponent(words)}&sort=${sort}`) });
        const where = `${words} ${sort}`;
        expect(seqScans(plan.list), where).toEqual([]);
        expect(seqScans(plan.matches), where).toEqual([]);
        expect(indexesOf(plan.matches), where).toContain('blog_post_search');
      }
    }
  }, 60_000);
});
