import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

// A list sorted by a column that may be null pages through every row, whichever way it is
// sorted and wherever a page ends: `paginate` (ORM) and `keyset` (hand-written SQL) alike.

let t: TestApp;
let a: TestTenant;
const due = ['2026-03-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', null, '2026-02-01T00:00:00.000Z', null, '2026-01-01T00:00:00.000Z', null];
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ plugins: [notesPlugin] });
  a = await t.createTenant({ name: 'Nulls' });
  for (const [n, at] of due.entries()) {
    const res = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: `note ${n}`, ...(at ? { due_at: at } : {}) } });
    expect(res.statusCode).toBe(201);
    ids.push(res.json().data.id);
  }
});
afterAll(async () => t?.close());

/** Every page of `path` sorted by `sort`, `limit` at a time: the ids in the order answered. */
async function walk(path: string, sort: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 20; pages++) {
    const res = await t.request({ method: 'GET', url: `/api/v1/${path}?sort=${sort}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, headers: a.headers() });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    seen.push(...body.data.map((n: { id: string }) => n.id));
    cursor = body.meta.pagination.cursor;
    if (!body.meta.pagination.has_next) return seen;
  }
  throw new Error('the list did not end');
}

/** The order PostgreSQL sorts (due_at, id) in: nulls last ascending, first descending. */
function expected(desc: boolean): string[] {
  const rows = ids.map((id, n) => ({ id, at: due[n] }));
  const sign = desc ? -1 : 1;
  return rows
    .sort((x, y) => {
      if (x.at === y.at) return sign * (x.id < y.id ? -1 : 1);
      if (x.at === null) return sign;
      if (y.at === null) return -sign;
      return sign * (x.at < y.at ? -1 : 1);
    })
    .map((r) => r.id);
}

describe('paging by a nullable sort column', () => {
  for (const path of ['notes', 'notes-by-sql']) {
    for (const sort of ['due_at', '-due_at']) {
      it(`${path}?sort=${sort} answers every row once, in order, at any page size`, async () => {
        const all = expected(sort.startsWith('-'));
        for (const limit of [1, 2, 3, 7]) expect(await walk(path, sort, limit)).toEqual(all);
      });
    }
  }

  it('a cursor holding null on a column that cannot be null is a 400, not an error of the database', async () => {
    const forged = Buffer.from(JSON.stringify({ s: 'created_at', v: null, i: ids[0] })).toString('base64url');
    const res = await t.request({ method: 'GET', url: `/api/v1/notes?sort=created_at&cursor=${forged}`, headers: a.headers() });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('a cursor with a value of the wrong type on the nullable column is a 400', async () => {
    const forged = Buffer.from(JSON.stringify({ s: 'due_at', v: 'tomorrow', i: ids[0] })).toString('base64url');
    for (const path of ['notes', 'notes-by-sql']) {
      const res = await t.request({ method: 'GET', url: `/api/v1/${path}?sort=due_at&cursor=${forged}`, headers: a.headers() });
      expect(res.statusCode).toBe(400);
    }
  });
});
