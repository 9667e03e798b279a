import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexesOf, searchPlan, seqScans, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { caller, COUPONS, createCoupon, discountsApp } from './helpers.js';

/** Coupon search with 30,000 coupons in the store: the answers, and the plans under row-level security. */

const COUPON_COUNT = 30_000;
let t: TestApp;
let store: TestTenant;
let other: TestTenant;
let client: pg.Client;

beforeAll(async () => {
  t = await discountsApp();
  store = await t.createTenant();
  other = await t.createTenant();
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await client.query(
    `insert into discounts_coupon (tenant_id, id, code, type, value, currency, applicable_to, created_at, updated_at)
     select $1, gen_random_uuid(), 'PROMO' || i, 'percentage', 1000, 'PEN', 'all',
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${COUPON_COUNT}) as i`,
    [store.id],
  );
  // As autovacuum leaves it: the trigram index's pending list merged, statistics fresh.
  await client.query('vacuum analyze discounts_coupon');
  await createCoupon(caller(t, store), { code: 'VERANO-2027' });
  await createCoupon(caller(t, other), { code: 'VERANO-SECRETO' });
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

const codes = async (q: string) => ((await caller(t, store)('GET', `${COUPONS}?q=${encodeURIComponent(q)}&sort=code`)).json().data as Array<{ code: string }>).map((c) => c.code);

describe(`coupon search with ${COUPON_COUNT.toLocaleString('en')} coupons in the store`, () => {
  it('finds parts of a code whatever their case, only in the caller’s store', async () => {
    expect(await codes('verano')).toEqual(['VERANO-2027']);
    expect(await codes('o-20')).toEqual(['VERANO-2027']);
    expect(await codes('promo29999')).toEqual(['PROMO29999']);
    expect(await codes('secreto')).toEqual([]);
    expect(await codes('nadie-asi')).toEqual([]);
  });

  it('reads the trigram index under row-level security, whatever the sort', async () => {
    for (const words of ['nadie-asi', 'verano', 've']) {
      for (const sort of ['-created_at', 'code']) {
        const plan = await searchPlan(t, { table: 'discounts_coupon', tenantId: store.id, words, request: () => caller(t, store)('GET', `${COUPONS}?q=${encodeURIComponent(words)}&sort=${sort}`) });
        const where = `${words} ${sort}`;
        expect(seqScans(plan.list), where).toEqual([]);
        expect(seqScans(plan.matches), where).toEqual([]);
        expect(indexesOf(plan.matches), where).toContain('discounts_coupon_search');
      }
    }
  }, 60_000);
});
