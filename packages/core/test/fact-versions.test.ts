import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, definePlugin, expectSql, FactCache, factVersionSql, factVersionTrigger, isExpectationFailure, tenantTable, type KeptFacts } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';

/**
 * Fact versions (decision 0049): a plugin declares which tables' changes bump a store's version of a
 * topic; the bump is in the change's transaction, once per transaction and store, whoever writes.
 */
const notes = definePlugin({
  name: 'fact-notes',
  migrations: [
    {
      id: '0001_notes',
      up: [
        `CREATE TABLE fact_note (tenant_id uuid NOT NULL, id serial, body text NOT NULL, PRIMARY KEY (tenant_id, id))`,
        tenantTable('fact_note'),
        `GRANT USAGE ON SEQUENCE fact_note_id_seq TO qhatu_app`,
        factVersionTrigger('notes.body', 'fact_note'),
      ],
    },
  ],
});

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let db: Database;
let owner: pg.Client;

beforeAll(async () => {
  t = await createTestApp({ plugins: [notes] });
  a = await t.createTenant();
  b = await t.createTenant();
  db = t.app.container.resolve(Database);
  owner = await t.owner();
});
afterAll(async () => t?.close());

/** The store's version of the topic, read as a caller's statement would, in the store's own transaction. */
const versionOf = (tenantId: string) =>
  db.write(async (sql) => (await sql.query<{ v: string | null }>(`select ${factVersionSql('?', 'notes.body')} as v`, [tenantId]))[0].v, tenantId);

describe('fact versions', () => {
  it('start unset, and each transaction that changes rows bumps them once, for its store only', async () => {
    expect(await versionOf(a.id)).toBeNull();
    await db.write(async (sql) => {
      sql.later(`insert into fact_note (tenant_id, body) values (?, 'one'), (?, 'two')`, [a.id, a.id]);
      sql.later(`update fact_note set body = body || '!' where tenant_id = ?`, [a.id]);
    }, a.id);
    expect(await versionOf(a.id)).toBe('1');
    await db.write(async (sql) => sql.later(`delete from fact_note where tenant_id = ? and body = 'one!'`, [a.id]), a.id);
    expect(await versionOf(a.id)).toBe('2');
    expect(await versionOf(b.id)).toBeNull();
  });

  it('a rolled-back change bumps nothing; a statement that touches no row bumps nothing', async () => {
    const before = await versionOf(a.id);
    await expect(
      db.write(async (sql) => {
        sql.later(`insert into fact_note (tenant_id, body) values (?, 'gone')`, [a.id]);
        sql.later(`select 1/0`);
      }, a.id),
    ).rejects.toThrow();
    await db.write(async (sql) => sql.later(`update fact_note set body = 'x' where tenant_id = ? and false`, [a.id]), a.id);
    expect(await versionOf(a.id)).toBe(before);
  });

  it('bumps the store a row names also when the change is made outside any store (the owner)', async () => {
    const before = Number(await versionOf(b.id));
    await owner.query(`insert into fact_note (tenant_id, body) values ($1, 'by the platform')`, [b.id]);
    expect(Number(await versionOf(b.id))).toBe(before + 1);
  });

  it('a store reads only its own versions (row-level security)', async () => {
    const seen = await db.write(async (sql) => sql.query<{ tenant_id: string }>(`select tenant_id from core_fact_version`), a.id);
    expect(seen.map((r) => r.tenant_id)).toEqual([a.id]);
    const other = await db.write(async (sql) => (await sql.query<{ v: string | null }>(`select ${factVersionSql('?', 'notes.body')} as v`, [b.id]))[0].v, a.id);
    expect(other).toBeNull();
  });

  it('refuses a topic that is not a plain name (it is written into SQL)', () => {
    expect(() => factVersionSql('?', "x'; drop table y; --")).toThrow(/topic/);
    expect(() => factVersionTrigger('Bad Topic', 'fact_note')).toThrow(/topic/);
  });
});

describe('a write sent on what a process kept, behind a guard', () => {
  it('hands a queued statement its rows once the writes went through, prepared or not, nested or not', async () => {
    const seen: unknown[] = [];
    await db.write(async (sql) => {
      sql.later(`select ${expectSql('true', 'holds')} as ok, 41 + 1 as n`, [], { prepare: true, rows: (rows) => seen.push(rows) });
      sql.later(`insert into fact_note (tenant_id, body) values (?, 'guarded')`, [a.id]);
      sql.later(`select ?::text as said`, ['after'], { rows: (rows) => seen.push(rows) });
    }, a.id);
    expect(seen).toEqual([[{ ok: true, n: 42 }], [{ said: 'after' }]]);
    // Inside an open tenant transaction the queued statements go when the work ends: the same rows.
    const nested: unknown[] = [];
    await db.tenant(() => db.write(async (sql) => sql.later(`select ${expectSql('1 = 1', 'holds')} as ok`, [], { rows: (rows) => nested.push(rows) })), a.id);
    expect(nested).toEqual([[{ ok: true }]]);
  });

  it('a guard that does not hold aborts the round trip: nothing after it is written, and the failure is told apart', async () => {
    const failure = await db
      .write(async (sql) => {
        sql.later(`insert into fact_note (tenant_id, body) values (?, 'before the guard')`, [a.id]);
        sql.later(`select ${expectSql('1 = 2', "the row's version moved")}`, [], { prepare: true });
        sql.later(`insert into fact_note (tenant_id, body) values (?, 'after the guard')`, [a.id]);
      }, a.id)
      .catch((error: unknown) => error);
    expect(isExpectationFailure(failure)).toBe(true);
    expect((failure as Error).message).toBe("the row's version moved");
    expect(isExpectationFailure(new Error('other'))).toBe(false);
    const { rows } = await owner.query(`select body from fact_note where body in ('before the guard', 'after the guard')`);
    expect(rows).toEqual([]);
    // The connection went back clean: the next write works.
    await db.write(async (sql) => sql.later(`insert into fact_note (tenant_id, body) values (?, 'next')`, [a.id]), a.id);
    expect((await owner.query(`select count(*)::int as n from fact_note where body = 'next'`)).rows[0].n).toBe(1);
  });
});

/** Facts of words by id: the column is an object of the ids found. */
const WORDS: KeptFacts<Record<string, string>> = {
  topic: 'words',
  versionSql: () => 'null',
  split: (column, ids) => ids.map((id) => [id, (column as Record<string, string>)[id] ?? null] as const),
  join(entry, ids) {
    const out: Record<string, string> = {};
    for (const id of ids) {
      const kept = entry(id) as string | null | undefined;
      if (kept === undefined) return undefined;
      if (kept !== null) out[id] = kept;
    }
    return out;
  },
};

describe('FactCache', () => {
  it('answers what was kept at a version, nothing at another version, store or missing id', () => {
    const cache = new FactCache({ enabled: true, maxBytes: 1 << 20 });
    cache.keep('s1', WORDS, '3', ['a', 'b', 'c'], { a: 'alpha', b: 'beta' });
    expect(cache.known('s1', WORDS, '3', ['a', 'c'])).toEqual({ a: 'alpha' });
    expect(cache.known('s1', WORDS, '4', ['a'])).toBeUndefined();
    expect(cache.known('s2', WORDS, '3', ['a'])).toBeUndefined();
    expect(cache.known('s1', WORDS, '3', ['a', 'd'])).toBeUndefined();
    cache.keep('s1', WORDS, '3', ['d'], { d: 'delta' });
    expect(cache.known('s1', WORDS, '3', ['a', 'd'])).toEqual({ a: 'alpha', d: 'delta' });
  });

  it('remembers the latest value of a key with its version', () => {
    const cache = new FactCache({ enabled: true, maxBytes: 1 << 20 });
    expect(cache.recall('s1', 'rows', 'r1')).toBeUndefined();
    cache.remember('s1', 'rows', 'r1', '10/1', ['x']);
    cache.remember('s1', 'rows', 'r1', '11/2', ['x', 'y']);
    expect(cache.recall('s1', 'rows', 'r1')).toMatchObject({ version: '11/2', value: ['x', 'y'] });
    expect(cache.recall('s2', 'rows', 'r1')).toBeUndefined();
  });

  it('stays within its byte budget, the least recently used out', () => {
    const cache = new FactCache({ enabled: true, maxBytes: 20_000 });
    for (let n = 0; n < 200; n++) cache.keep('s1', WORDS, String(n), ['a'], { a: 'x'.repeat(200) });
    expect(cache.known('s1', WORDS, '199', ['a'])).toEqual({ a: 'x'.repeat(200) });
    expect(cache.known('s1', WORDS, '0', ['a'])).toBeUndefined();
    expect(cache.size).toBeLessThan(50);
  });

  it('keeps nothing when off', () => {
    const cache = new FactCache({ enabled: false, maxBytes: 1 << 20 });
    cache.keep('s1', WORDS, '1', ['a'], { a: 'alpha' });
    cache.remember('s1', 'rows', 'r1', '1', []);
    expect(cache.known('s1', WORDS, '1', ['a'])).toBeUndefined();
    expect(cache.recall('s1', 'rows', 'r1')).toBeUndefined();
    expect(cache.enabled).toBe(false);
  });
});
