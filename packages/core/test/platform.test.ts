import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [notesPlugin] });
  a = await t.createTenant({ name: 'Tenant A' });
  b = await t.createTenant({ name: 'Tenant B' });
});
afterAll(async () => t?.close());

const note = (tenant: TestTenant, body: string) =>
  t.request({ method: 'POST', url: '/api/v1/notes', headers: tenant.headers(), payload: { body } });

describe('tenant routes', () => {
  it('need X-Tenant-ID, then a token', async () => {
    const noTenant = await t.request({ method: 'GET', url: '/api/v1/notes', headers: { authorization: `Bearer ${a.adminToken}` } });
    expect(noTenant.statusCode).toBe(400);
    expect(noTenant.json().error.code).toBe('TENANT_REQUIRED');
    const badTenant = await t.request({ method: 'GET', url: '/api/v1/notes', headers: { authorization: `Bearer ${a.adminToken}`, 'x-tenant-id': 'abc' } });
    expect(badTenant.statusCode).toBe(400);
    expect(badTenant.json().error.code).toBe('TENANT_REQUIRED');
    const noToken = await t.request({ method: 'GET', url: '/api/v1/notes', headers: { 'x-tenant-id': a.id } });
    expect(noToken.statusCode).toBe(401);
    expect(noToken.json().error.code).toBe('UNAUTHENTICATED');
    const forged = await t.request({ method: 'GET', url: '/api/v1/notes', headers: a.headers(a.adminToken.slice(0, -4) + 'AAAA') });
    expect(forged.statusCode).toBe(401);
  });

  it('refuse the platform credential and tokens of the wrong kind', async () => {
    const platform = await t.request({ method: 'GET', url: '/api/v1/notes', headers: a.headers(t.platformToken) });
    expect(platform.statusCode).toBe(403);
    const storefrontWrite = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(a.storefrontToken), payload: { body: 'x' } });
    expect(storefrontWrite.statusCode).toBe(403);
    expect(storefrontWrite.json().error.code).toBe('FORBIDDEN');
  });
});

describe('tenant isolation', () => {
  it("refuses tenant A's key for tenant B", async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/notes', headers: { authorization: `Bearer ${a.adminToken}`, 'x-tenant-id': b.id } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('FORBIDDEN');
  });

  it("never shows B's rows to A, even with the ORM filter off (row-level security)", async () => {
    await note(a, 'a-1');
    await note(b, 'b-1');
    const listed = (await t.request({ method: 'GET', url: '/api/v1/notes', headers: a.headers() })).json().data;
    expect(listed.map((n: { body: string }) => n.body)).toEqual(['a-1']);
    const unfiltered = (await t.request({ method: 'GET', url: '/api/v1/notes-unfiltered', headers: a.headers() })).json().data;
    expect(unfiltered.map((n: { body: string }) => n.body)).toEqual(['a-1']);
    // The superuser sees both: the rows are there, RLS is what hides them.
    const { rows } = await t.app.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from test_note').then((r) => ({ rows: r }));
    expect(rows[0].n).toBeGreaterThanOrEqual(2);
  });

  it("cannot move B's rows through A's context", async () => {
    const bNote = (await note(b, 'b-2')).json().data;
    const res = await t.request({ method: 'POST', url: `/api/v1/notes/${bNote.id}/close`, headers: a.headers() });
    expect(res.statusCode).toBe(404);
  });

  it('rejects a write of another tenant id at the database (RLS WITH CHECK)', async () => {
    const { Database } = await import('../src/index.js');
    const db = t.app.container.resolve(Database);
    await expect(
      db.tenant(async ({ em }) => em.execute(`insert into test_note (tenant_id, id, body, status, created_at) values (?, gen_random_uuid(), 'x', 'open', now())`, [b.id]), a.id),
    ).rejects.toThrow(/row-level security/);
  });

  it('fails closed without a tenant: a tenant query outside any context throws', async () => {
    const { Database } = await import('../src/index.js');
    await expect(t.app.container.resolve(Database).tenant(async () => 1)).rejects.toMatchObject({ code: 'TENANT_REQUIRED' });
  });
});

describe('suspension', () => {
  it("blocks a suspended tenant's API with 403 TENANT_SUSPENDED until activated", async () => {
    const c = await t.createTenant({ name: 'Tenant C' });
    const platform = { authorization: `Bearer ${t.platformToken}` };
    expect((await t.request({ method: 'GET', url: '/api/v1/notes', headers: c.headers() })).statusCode).toBe(200);
    await t.request({ method: 'POST', url: `/api/v1/tenants/${c.id}/suspend`, headers: platform });
    const blocked = await t.request({ method: 'GET', url: '/api/v1/notes', headers: c.headers() });
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json().error.code).toBe('TENANT_SUSPENDED');
    const gql = await t.request({ method: 'POST', url: '/graphql', headers: c.headers(), payload: { query: '{ apiVersion }' } });
    expect(gql.json().errors[0].extensions.code).toBe('TENANT_SUSPENDED');
    await t.request({ method: 'POST', url: `/api/v1/tenants/${c.id}/activate`, headers: platform });
    expect((await t.request({ method: 'GET', url: '/api/v1/notes', headers: c.headers() })).statusCode).toBe(200);
  });
});

describe('state machines', () => {
  it('move an entity, run guards and answer 409 INVALID_STATE_TRANSITION for an illegal move', async () => {
    const n = (await note(a, 'to close')).json().data;
    const closed = await t.request({ method: 'POST', url: `/api/v1/notes/${n.id}/close`, headers: a.headers() });
    expect(closed.json().data.status).toBe('closed');
    const again = await t.request({ method: 'POST', url: `/api/v1/notes/${n.id}/close`, headers: a.headers() });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', message: 'Cannot close a note that is closed' });
    const locked = (await note(a, 'locked')).json().data;
    const guarded = await t.request({ method: 'POST', url: `/api/v1/notes/${locked.id}/close`, headers: a.headers() });
    expect(guarded.statusCode).toBe(409);
    expect(guarded.json().error.message).toBe('This note is locked');
  });

  it('refuse a definition that names an unknown state', async () => {
    const { defineMachine } = await import('../src/index.js');
    expect(() => defineMachine({ name: 'x', field: 'status' as never, states: ['a'], transitions: { go: { from: ['a'], to: 'b' as 'a' } } })).toThrow(/unknown state "b"/);
  });
});

describe('outbox', () => {
  it('writes events in the same transaction as the change, and only on commit', async () => {
    const n = (await note(a, 'evented')).json().data;
    const rows = await t.app.orm.em.getConnection().execute<{ type: string; data: { id: string }; tenant_id: string; source: string }[]>(
      `select type, data, tenant_id, source from core_outbox where data->>'id' = ?`, [n.id]);
    expect(rows).toEqual([{ type: 'notes.note.created', data: { id: n.id }, tenant_id: a.id, source: '/qhatu/notes' }]);
    const before = await t.app.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from core_outbox');
    const bad = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: '' } });
    expect(bad.statusCode).toBe(400);
    const after = await t.app.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from core_outbox');
    expect(after[0].n).toBe(before[0].n);
  });
});

describe('GraphQL', () => {
  it('lists with the Connection pattern and pages by endCursor', async () => {
    const tenant = await t.createTenant();
    for (const body of ['g1', 'g2', 'g3']) await note(tenant, body);
    const q = (cursor?: string) => t.request({
      method: 'POST', url: '/graphql', headers: tenant.headers(tenant.storefrontToken),
      payload: { query: 'query($c: String) { notes(limit: 2, cursor: $c) { edges { node { body } cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }', variables: { c: cursor } },
    });
    const first = (await q()).json().data.notes;
    expect(first.edges.map((e: { node: { body: string } }) => e.node.body)).toEqual(['g1', 'g2']);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(first.pageInfo.endCursor).toBe(first.edges[1].cursor);
    const second = (await q(first.pageInfo.endCursor)).json().data.notes;
    expect(second.edges.map((e: { node: { body: string } }) => e.node.body)).toEqual(['g3']);
    expect(second.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('answers UNAUTHENTICATED, FORBIDDEN and VALIDATION_ERROR with extensions {code, path}', async () => {
    const none = (await t.request({ method: 'POST', url: '/graphql', headers: { 'x-tenant-id': a.id }, payload: { query: '{ apiVersion }' } })).json();
    expect(none.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(none.data).toBeNull();
    const bad = (await t.request({ method: 'POST', url: '/graphql', headers: a.headers('qha_nope'), payload: { query: '{ apiVersion }' } })).json();
    expect(bad.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const forbidden = (await t.request({ method: 'POST', url: '/graphql', headers: a.headers(a.storefrontToken), payload: { query: '{ adminSecret }' } })).json();
    expect(forbidden.errors[0].extensions).toEqual({ code: 'FORBIDDEN', path: ['adminSecret'] });
    const admin = (await t.request({ method: 'POST', url: '/graphql', headers: a.headers(), payload: { query: '{ adminSecret }' } })).json();
    expect(admin.data.adminSecret).toBe('admins only');
    const invalid = (await t.request({ method: 'POST', url: '/graphql', headers: a.headers(), payload: { query: '{ nothingHere }' } })).json();
    expect(invalid.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });

  it('refuses queries that are too deep', async () => {
    const deep = '{ notes { edges { node { body } } pageInfo { hasNextPage } } }';
    expect((await t.request({ method: 'POST', url: '/graphql', headers: a.headers(), payload: { query: deep } })).json().errors).toBeUndefined();
    const nested = `{ ${'__schema { types { fields { type { ofType { ofType { ofType { ofType { name } } } } } } } }'} }`;
    const res = (await t.request({ method: 'POST', url: '/graphql', headers: a.headers(), payload: { query: nested } })).json();
    expect(res.errors[0].message).toMatch(/depth|exceeds/i);
  });

  it('serves the playground on GET /graphql', async () => {
    const res = await t.request({ method: 'GET', url: '/graphql' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('Qhatu GraphQL');
  });
});

describe('the write path (Database.tenant)', () => {
  it('enters the tenant on the round trip of BEGIN, and a transaction opened inside gets a BEGIN of its own', async () => {
    const { Database } = await import('../src/index.js');
    const db = t.app.container.resolve(Database);
    await note(a, 'write-a');
    await note(b, 'write-b');
    const { result, statements } = await t.countQueries(() =>
      db.tenant(async (tx) => {
        const who = await tx.em.execute<Array<{ role: string; tenant: string }>>(`select current_user as role, current_setting('app.tenant_id') as tenant`);
        // No tenant condition in the SQL: only RLS keeps B's rows out.
        const bodies = await tx.em.execute<Array<{ body: string }>>(`select body from test_note where body like 'write-%'`);
        // The platform's own transaction, opened inside, runs as the owner: all stores' rows.
        const all = await db.platform(async (p) => p.em.execute<Array<{ n: number }>>(`select count(*)::int as n from test_note where body like 'write-%'`));
        return { who: who[0], bodies: bodies.map((r) => r.body), all: all[0].n };
      }, a.id),
    );
    expect(result).toEqual({ who: { role: 'qhatu_app', tenant: a.id }, bodies: ['write-a'], all: 2 });
    // BEGIN with the tenant (going out before the first select: the ORM's statements take parameters), two selects, then the platform's BEGIN, select, COMMIT, and COMMIT.
    expect(statements.filter((s) => /set_config/.test(s))).toEqual([expect.stringMatching(/^BEGIN; select set_config\('role', 'qhatu_app', true\), set_config\('app.tenant_id', '[0-9a-f-]{36}', true\)$/)]);
    expect(statements[0]).toMatch(/^BEGIN; select set_config/);
    expect(statements).toHaveLength(7);
  });
});

describe('the read path (Database.read)', () => {
  it('enters the tenant with BEGIN, is read-only, and row-level security still holds', async () => {
    const { Database } = await import('../src/index.js');
    const db = t.app.container.resolve(Database);
    await note(a, 'read-a');
    await note(b, 'read-b');
    // No tenant condition in the SQL: only RLS keeps B's rows out.
    const bodies = await db.read((sql) => sql.query<{ body: string }>('select body from test_note where body like ?', ['read-%']), a.id);
    expect(bodies.map((r) => r.body)).toEqual(['read-a']);
    await expect(db.read((sql) => sql.query(`update test_note set body = 'x'`), a.id)).rejects.toThrow(/read-only transaction/);
    await expect(db.read(async () => 1, 'not-a-uuid')).rejects.toThrow(/UUID/);
  });

  it('readOne: one round trip for one query, with its parameters written in safely, row-level security and read-only kept', async () => {
    const { Database } = await import('../src/index.js');
    const db = t.app.container.resolve(Database);
    await note(a, "one-a it's \\ here");
    await note(b, 'one-b');
    const { result, statements } = await t.countQueries(() =>
      db.readOne((sql) => sql.query<{ body: string }>('select body from test_note where body like ? and ? and length(body) > ?', ['one-%', true, -1]), a.id),
    );
    // No tenant condition in the SQL: only RLS keeps B's rows out.
    expect(result.map((r) => r.body)).toEqual(["one-a it's \\ here"]);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^BEGIN READ ONLY; select set_config\('role'.*; select body from test_note .*; COMMIT$/s);
    // A quote or a backslash in a parameter stays data.
    const exact = await db.readOne((sql) => sql.query<{ body: string }>('select body from test_note where body = ?', ["one-a it's \\ here"]), a.id);
    expect(exact).toHaveLength(1);
    const injected = await db.readOne((sql) => sql.query<{ body: string }>('select body from test_note where body = ?', ["x' or '1'='1"]), a.id);
    expect(injected).toEqual([]);
    const escaped = await db.readOne((sql) => sql.query<{ body: string }>('select body from test_note where body = ? or body = ?', ["x\\' or '1'='1", "\\'; --"]), a.id);
    expect(escaped).toEqual([]);
    await expect(db.readOne((sql) => sql.query(`update test_note set body = 'x'`), a.id)).rejects.toThrow(/read-only transaction/);
    await expect(db.readOne(async (sql) => { await sql.query('select 1'); return sql.query('select 2'); }, a.id)).rejects.toThrow(/one query/);
    await expect(db.readOne((sql) => sql.query('select ?', [{ a: 1 }]), a.id)).rejects.toThrow(/cannot be written/);
    await expect(db.readOne((sql) => sql.query('select ?', [new Date(Number.NaN)]), a.id)).rejects.toThrow(/cannot be written/);
    // Prepared (once per connection, then run by name): the same answers, row-level security kept.
    const prepared = (tenant: string) => db.readOne((sql) => sql.query<{ body: string }>('select body from test_note where body like ? order by body', ['one-%'], { prepare: true }), tenant);
    const answers = await Promise.all(Array.from({ length: 24 }, (_, n) => prepared(n % 2 ? a.id : b.id)));
    answers.forEach((rows, n) => expect(rows.map((r) => r.body)).toEqual(n % 2 ? ["one-a it's \\ here"] : ['one-b']));
    const shown = await t.countQueries(() => prepared(a.id));
    expect(shown.statements[0]).toMatch(/^BEGIN READ ONLY; .*; \/\* qhatu_[0-9a-f]{24} \*\/ select body from test_note .*; COMMIT$/s);
    // The failures above gave their connections back clean: every pooled connection still reads.
    const again = await Promise.all(Array.from({ length: 12 }, () => db.readOne((sql) => sql.query<{ n: number }>('select count(*)::int as n from test_note'), a.id)));
    expect(again.every(([row]) => row.n === again[0][0].n)).toBe(true);
  });

  it('reads inside an open tenant transaction on that transaction', async () => {
    const { Database, Note } = await import('./fixtures/notes-plugin.js').then(async (m) => ({ ...(await import('../src/index.js')), Note: m.Note }));
    const db = t.app.container.resolve(Database);
    const seen = await db.tenant(async (tx) => {
      tx.em.create(Note, { id: crypto.randomUUID(), tenantId: a.id, body: 'uncommitted', status: 'open', createdAt: new Date() });
      await tx.em.flush();
      return db.read((sql) => sql.query<{ body: string }>(`select body from test_note where body = 'uncommitted'`));
    }, a.id);
    expect(seen).toEqual([{ body: 'uncommitted' }]);
  });
});

describe('the ORM-free write path (Database.write)', () => {
  const insertNote = `insert into test_note (tenant_id, id, body, status, created_at) values (?, ?, ?, 'open', ?)`;
  const outboxOf = (id: string) => t.app.container.resolve(Database).query<{ type: string; data: { id: string } }>(`select type, data from core_outbox where data->>'id' = ?`, [id]);
  let Database: typeof import('../src/index.js').Database;
  let EventBus: typeof import('../src/index.js').EventBus;
  beforeAll(async () => ({ Database, EventBus } = await import('../src/index.js')));

  it('reads on the round trip of BEGIN, then sends the queued writes, the outbox rows and COMMIT in one, and emits after commit', async () => {
    const db = t.app.container.resolve(Database);
    await note(a, 'sqltx-a');
    await note(b, 'sqltx-b');
    const id = crypto.randomUUID();
    const seen: string[] = [];
    const off = t.app.container.resolve(EventBus).on('notes.note.created', (event) => void seen.push(String(event.data.id)));
    const after: string[] = [];
    const { result, statements } = await t.countQueries(() =>
      db.write(async (sql) => {
        // No tenant condition: row-level security alone keeps B's rows out.
        const before = await sql.query<{ body: string }>(`select body from test_note where body like ? order by body`, ['sqltx-%']);
        const [{ n }] = await sql.query<{ n: number }>('select count(*)::int as n from test_note where body = ?', ["it's \\ here"]);
        sql.later(insertNote, [sql.tenantId, id, "it's \\ here", sql.now()]);
        sql.publish('notes.note.created', { id });
        sql.afterCommit(() => void after.push(id));
        return { before: before.map((r) => r.body), n };
      }, a.id),
    );
    off();
    expect(result).toEqual({ before: ['sqltx-a'], n: 0 });
    expect(statements).toHaveLength(3);
    expect(statements[0]).toMatch(/^BEGIN; select set_config\('role'.*; select body from test_note where body like 'sqltx-%' order by body$/s);
    expect(statements[1]).toMatch(/^select count\(\*\)::int as n from test_note where body = +E?'it''s /);
    expect(statements[2]).toMatch(/^insert into test_note .*; \/\* qhatu_[0-9a-f]{24} \*\/ insert into core_outbox .*; COMMIT$/s);
    const [row] = await db.read((sql) => sql.query<{ body: string }>('select body from test_note where id = ?', [id]), a.id);
    expect(row.body).toBe("it's \\ here");
    expect(await outboxOf(id)).toEqual([{ type: 'notes.note.created', data: { id } }]);
    await vi.waitFor(() => expect(seen).toContain(id));
    expect(after).toEqual([id]);
  });

  it('runs a query of several statements in order, each with its own snapshot, and answers the last one\'s rows', async () => {
    const db = t.app.container.resolve(Database);
    const [body] = await db.write((sql) => sql.query<{ body: string }>(`select 1 from test_note where body = ? for update; select body from test_note where body = ?`, ['sqltx-a', 'sqltx-a']), a.id);
    expect(body).toEqual({ body: 'sqltx-a' });
  });

  it('prepares a statement once per connection, runs it by name after, row-level security kept; a failed batch leaves no name half-known', async () => {
    const db = t.app.container.resolve(Database);
    const read = { sql: 'select body from test_note where body like ?', prepare: true };
    // Runs at once spread over the pool's connections: each prepares it once, then executes it.
    const rows = await Promise.all(Array.from({ length: 30 }, () => db.write((sql) => sql.batch<{ body: string }>([{ ...read, params: ['sqltx-%'] }]), a.id)));
    expect(rows.every((r) => r.length === 1 && r[0].body === 'sqltx-a')).toBe(true);
    expect(await db.write((sql) => sql.batch<{ body: string }>([{ ...read, params: ['sqltx-%'] }]), b.id)).toEqual([{ body: 'sqltx-b' }]);
    const prepared = await db.write((sql) => sql.query<{ name: string }>(`select name from pg_prepared_statements where name like ? and statement like ?`, ['qhatu_%', '%from test_note where body like $1; EXECUTE%']), a.id);
    // Prepared on this connection once, however many runs it served.
    expect(prepared).toHaveLength(1);
    const shown = await t.countQueries(() => db.write((sql) => sql.batch([{ ...read, params: ['sqltx-a'] }]), a.id));
    expect(shown.statements[0]).toMatch(/^BEGIN; .*; \/\* qhatu_[0-9a-f]{24} \*\/ select body from test_note where body like 'sqltx-a'$/s);
    // A batch that fails before its PREPARE runs, and one that fails after: the next runs prepare again and work.
    const count = { sql: 'select count(*)::int as n from test_note where body <> ?', prepare: true };
    await expect(db.write((sql) => sql.batch([{ sql: 'select 1/0' }, { ...count, params: ['x'] }]), a.id)).rejects.toThrow(/division by zero/);
    await expect(db.write((sql) => sql.batch([{ ...count, params: ['x'] }, { sql: 'select 1/0' }]), a.id)).rejects.toThrow(/division by zero/);
    const again = await Promise.all(Array.from({ length: 20 }, () => db.write((sql) => sql.batch<{ n: number }>([{ ...count, params: ['x'] }]), a.id)));
    expect(again.every(([r]) => r.n === again[0][0].n && r.n > 0)).toBe(true);
  });

  it('with DATABASE_PREPARE=off, sends a statement asked to be prepared as it is', async () => {
    const off = await createTestApp({ plugins: [notesPlugin], env: { DATABASE_PREPARE: 'off' } });
    try {
      const shop = await off.createTenant();
      await off.request({ method: 'POST', url: '/api/v1/notes', headers: shop.headers(), payload: { body: 'unprepared' } });
      const db = off.app.container.resolve(Database);
      const { result, statements } = await off.countQueries(() =>
        db.readOne((sql) => sql.query<{ body: string }>('select body from test_note where body = ?', ['unprepared'], { prepare: true }), shop.id),
      );
      expect(result).toEqual([{ body: 'unprepared' }]);
      expect(statements[0]).not.toMatch(/qhatu_[0-9a-f]{24}/);
      expect(await db.write((sql) => sql.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements'), shop.id)).toEqual([{ n: 0 }]);
    } finally {
      await off.close();
    }
  });

  it('tenant() with `before`: a short transaction of its own in the round trip of BEGIN (with the first statement), kept whatever the transaction does after', async () => {
    const db = t.app.container.resolve(Database);
    const [kept, rolled, nested] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const before = (id: string, got: string[]) => ({ sql: `${insertNote} returning id`, params: [a.id, id, 'before', new Date()], rows: (rows: Array<{ id: string }>) => void got.push(rows[0].id) });
    const got: string[] = [];
    const { result, statements } = await t.countQueries(() =>
      db.tenant(async (tx) => {
        // Nothing went out yet; its rows are there once the first statement answers (the statement's transaction committed already).
        const seen = [...got];
        const [row] = await tx.em.execute<Array<{ role: string }>>(`select current_user as role`);
        return { seen, then: [...got], role: row.role };
      }, a.id, { before: before(kept, got) }),
    );
    expect(result).toEqual({ seen: [], then: [kept], role: 'qhatu_app' });
    expect(statements[0]).toMatch(/^BEGIN; select set_config\('role'.*; SET LOCAL synchronous_commit = off; insert into test_note .* returning id; COMMIT; BEGIN; select set_config\('role'/s);
    expect(statements).toHaveLength(3);
    // With a prepared read first: one round trip for `before`, BEGIN and the read.
    const first = crypto.randomUUID();
    const sent = await t.countQueries(() =>
      db.tenant(async (tx) => {
        const [row] = await tx.query<{ n: number }>('select count(*)::int as n from test_note where id = ?', [first], { prepare: true });
        return row.n;
      }, a.id, { before: before(first, []) }),
    );
    expect(sent.result).toBe(1);
    expect(sent.statements).toHaveLength(2);
    expect(sent.statements[0]).toMatch(/^BEGIN; .*; insert into test_note .* returning id; COMMIT; BEGIN; select set_config\('role'.*; \/\* qhatu_[0-9a-f]{24} \*\/ select count/s);
    // The transaction rolled back after a statement: what `before` wrote stays.
    const lost: string[] = [];
    await expect(db.tenant(async (tx) => {
      await tx.em.execute('select 1');
      throw new Error('changed my mind');
    }, a.id, { before: before(rolled, lost) })).rejects.toThrow('changed my mind');
    expect(lost).toEqual([rolled]);
    expect(await db.query('select body from test_note where id = ?', [rolled])).toEqual([{ body: 'before' }]);
    // Ended before any statement: nothing went out, `before` neither (no number taken for an order never placed).
    const never = crypto.randomUUID();
    const untouched: string[] = [];
    const quiet = await t.countQueries(() => expect(db.tenant(async () => { throw new Error('changed my mind'); }, a.id, { before: before(never, untouched) })).rejects.toThrow('changed my mind'));
    expect(untouched).toEqual([]);
    expect(quiet.statements).toEqual([]);
    expect(await db.query('select body from test_note where id = ?', [never])).toEqual([]);
    // Inside an open transaction: on a connection of its own, committed before the work goes on.
    const inner: string[] = [];
    await db.tenant(async () => {
      await db.tenant(async () => expect(inner).toEqual([nested]), a.id, { before: before(nested, inner) });
      expect((await db.query('select 1 from test_note where id = ?', [nested])).length).toBe(1);
    }, a.id);
    // A `before` that fails (a repeated key) fails the transaction's first statement (or its COMMIT); the connection comes back clean.
    let ran = false;
    await expect(db.tenant(async (tx) => {
      await tx.query('select 1', [], { prepare: true });
      ran = true;
    }, a.id, { before: before(kept, []) })).rejects.toMatchObject({ code: '23505' });
    expect(ran).toBe(false);
    await expect(db.tenant(async () => undefined, a.id, { before: before(kept, []) })).rejects.toMatchObject({ code: '23505' });
    const again = await Promise.all(Array.from({ length: 12 }, () => db.tenant((tx) => tx.query<{ n: number }>('select count(*)::int as n from test_note where id = ?', [kept]), a.id)));
    expect(again.every(([row]) => row.n === 1)).toBe(true);
  });

  it("inside tenant(): the events' outbox rows go out with COMMIT, and deferred writes with COMMIT or before the next statement", async () => {
    const db = t.app.container.resolve(Database);
    const [first, second, third] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const seen: string[] = [];
    const off = t.app.container.resolve(EventBus).on('notes.note.created', (event) => void seen.push(String(event.data.id)));
    // Writes deferred, then the transaction's COMMIT: BEGIN, the read, then the writes, the outbox rows and COMMIT in one round trip.
    const last = await t.countQueries(() =>
      db.tenant(async (tx) => {
        await tx.query('select 1 from test_note where id = ?', [first], { prepare: true });
        tx.publish('notes.note.created', { id: first });
        await db.write(async (sql) => sql.later(insertNote, [sql.tenantId, first, "deferred it's", sql.now()]), a.id, { deferred: true });
      }, a.id),
    );
    // BEGIN went out with the prepared read.
    expect(last.statements).toHaveLength(2);
    expect(last.statements[0]).toMatch(/^BEGIN; select set_config.*; \/\* qhatu_[0-9a-f]{24} \*\/ select 1 from test_note/s);
    expect(last.statements[1]).toMatch(/^insert into test_note .*; COMMIT;$/s);
    expect(await db.query('select body from test_note where id = ?', [first])).toEqual([{ body: "deferred it's" }]);
    expect(await outboxOf(first)).toEqual([{ type: 'notes.note.created', data: { id: first } }]);
    await vi.waitFor(() => expect(seen).toContain(first));
    off();
    // A statement after them (the ORM's, a prepared read) finds them written.
    const later = await db.tenant(async (tx) => {
      await db.write(async (sql) => sql.later(insertNote, [sql.tenantId, second, 'then read', sql.now()]), a.id, { deferred: true });
      const [viaOrm] = await tx.em.execute<Array<{ n: number }>>('select count(*)::int as n from test_note where id = ?', [second]);
      await db.write(async (sql) => sql.later(insertNote, [sql.tenantId, third, 'then prepared', sql.now()]), a.id, { deferred: true });
      const viaPrepared = await tx.query<{ n: number }>('select count(*)::int as n from test_note where id = ?', [third], { prepare: true });
      return [viaOrm.n, viaPrepared[0].n];
    }, a.id);
    expect(later).toEqual([1, 1]);
    // Work that fails after them: nothing written.
    const dropped = crypto.randomUUID();
    await expect(
      db.tenant(async () => {
        await db.write(async (sql) => sql.later(insertNote, [sql.tenantId, dropped, 'dropped', sql.now()]), a.id, { deferred: true });
        throw new Error('changed my mind');
      }, a.id),
    ).rejects.toThrow('changed my mind');
    // A deferred write that fails fails the transaction at its COMMIT: nothing of it is saved.
    const other = crypto.randomUUID();
    await expect(
      db.tenant(async (tx) => {
        tx.publish('notes.note.created', { id: other });
        await db.write(async (sql) => {
          sql.later(insertNote, [sql.tenantId, other, 'other', sql.now()]);
          sql.later(insertNote, [sql.tenantId, first, 'a repeated key', sql.now()]);
        }, a.id, { deferred: true });
      }, a.id),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await db.query('select 1 from test_note where id = any(?::uuid[])', [`{${dropped},${other}}`])).toEqual([]);
    expect(await outboxOf(other)).toEqual([]);
    // The connections came back clean: every one still writes and reads.
    const again = await Promise.all(Array.from({ length: 12 }, () => db.tenant((tx) => tx.query<{ n: number }>('select count(*)::int as n from test_note where id = ?', [first], { prepare: true }), a.id)));
    expect(again.every(([row]) => row.n === 1)).toBe(true);
  });

  it('inside tenant(): deferred writes asked to be prepared ride on COMMIT as EXECUTE, prepared once per connection; a failed round trip that prepared leaves no name behind', async () => {
    const db = t.app.container.resolve(Database);
    const ids = Array.from({ length: 24 }, () => crypto.randomUUID());
    const place = (id: string, sql = insertNote) =>
      db.tenant(async (tx) => {
        tx.publish('notes.note.created', { id });
        await db.write(async (w) => w.later(sql, [w.tenantId, id, 'prepared', w.now()], { prepare: true }), a.id, { deferred: true });
      }, a.id);
    // At once, over the pool's connections: each prepares the insert (and the outbox's) the first time, then runs them by name.
    await Promise.all(ids.map((id) => place(id)));
    expect(await db.query('select count(*)::int as n from test_note where id = any(?::uuid[])', [`{${ids.join(',')}}`])).toEqual([{ n: ids.length }]);
    expect((await Promise.all(ids.map(outboxOf))).every((rows) => rows.length === 1)).toBe(true);
    // (A name's `statement` is the whole round trip that prepared it: the one whose PREPARE is the note's insert.)
    const named = await db.tenant(
      (tx) => tx.query<{ name: string }>(`select name from pg_prepared_statements where name like 'qhatu_%' and position('PREPARE ' || name || ' AS insert into test_note' in statement) > 0`),
      a.id,
    );
    expect(named).toHaveLength(1);
    // Shown as the statements they run, each after its name, with COMMIT.
    const one = crypto.randomUUID();
    const { statements } = await t.countQueries(() => place(one));
    // Nothing else went out: BEGIN with them too.
    expect(statements).toHaveLength(1);
    expect(statements.at(-1)).toMatch(new RegExp(`^BEGIN; select set_config.*; /\\* qhatu_[0-9a-f]{24} \\*/ insert into test_note .*'${one}'.*; /\\* qhatu_[0-9a-f]{24} \\*/ insert into core_outbox .*; COMMIT;$`, 's'));
    // A statement new to every connection, whose round trip fails after its PREPARE ran (a repeated key): that connection is not lent again.
    const fresh = `${insertNote} /* fresh */`;
    await expect(
      db.tenant(async () => {
        await db.write(async (w) => {
          w.later(fresh, [w.tenantId, crypto.randomUUID(), 'fine', w.now()], { prepare: true });
          w.later(fresh, [w.tenantId, ids[0], 'a repeated key', w.now()], { prepare: true });
        }, a.id, { deferred: true });
      }, a.id),
    ).rejects.toMatchObject({ code: '23505' });
    const after = Array.from({ length: 30 }, () => crypto.randomUUID());
    await Promise.all(after.map((id) => place(id, fresh)));
    expect(await db.query('select count(*)::int as n from test_note where id = any(?::uuid[])', [`{${after.join(',')}}`])).toEqual([{ n: after.length }]);
  });

  it('with writes only, is one round trip from BEGIN to COMMIT', async () => {
    const db = t.app.container.resolve(Database);
    const id = crypto.randomUUID();
    const { statements } = await t.countQueries(() => db.write(async (sql) => sql.later(insertNote, [sql.tenantId, id, 'only-writes', new Date()]), a.id));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^BEGIN; select set_config\('role'.*; insert into test_note .*; COMMIT$/s);
    expect(await db.read((sql) => sql.query('select 1 from test_note where id = ?', [id]), a.id)).toHaveLength(1);
  });

  it('builds a prepared text once (per variant), asking its parts on first use only', async () => {
    const { statementText, statementTexts } = await import('../src/index.js');
    let asked = 0;
    const one = statementText(() => `select ${++asked}`);
    expect(asked).toBe(0);
    expect([one(), one()]).toEqual(['select 1', 'select 1']);
    const each = statementTexts((lock: boolean) => `select ${++asked}${lock ? ' for update' : ''}`);
    expect([each(true), each(false), each(true), each(false)]).toEqual(['select 2 for update', 'select 3', 'select 2 for update', 'select 3']);
    expect(asked).toBe(3);
  });

  it('ends a statement that ends in a -- comment on its line: the statements after it in the same text still run', async () => {
    const db = t.app.container.resolve(Database);
    const [first, second, third] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await db.write(async (sql) => {
      sql.later(`${insertNote} -- the first note`, [sql.tenantId, first, 'commented', new Date()]);
      sql.later(`${insertNote} -- prepared, too`, [sql.tenantId, second, 'commented', new Date()], { prepare: true });
      sql.later(insertNote, [sql.tenantId, third, 'after the comments', new Date()]);
    }, a.id);
    // Joined to an ORM transaction, with its opening, and deferred to its COMMIT.
    const [fourth, fifth] = [crypto.randomUUID(), crypto.randomUUID()];
    await db.tenant(async (tx) => {
      await db.write(async (sql) => sql.query(`select 1 -- opened here`), a.id);
      await db.write(async (sql) => {
        sql.later(`${insertNote} -- deferred`, [sql.tenantId, fourth, 'commented', new Date()], { prepare: true });
        sql.later(insertNote, [sql.tenantId, fifth, 'after the comment', new Date()]);
      }, a.id, { deferred: true });
      tx.publish('notes.note.created', { id: fifth });
    }, a.id);
    const ids = [first, second, third, fourth, fifth];
    expect(await db.query('select count(*)::int as n from test_note where id = any(?::uuid[])', [`{${ids.join(',')}}`])).toEqual([{ n: 5 }]);
  });

  it('rolls everything back when a queued write or the work fails: no row, no outbox row, no event, no after-commit step', async () => {
    const db = t.app.container.resolve(Database);
    const id = crypto.randomUUID();
    const seen: string[] = [];
    const off = t.app.container.resolve(EventBus).on('notes.note.created', (event) => void seen.push(String(event.data.id)));
    const after: string[] = [];
    // The second insert repeats the primary key: the whole batch, COMMIT included, stops there.
    await expect(
      db.write(async (sql) => {
        await sql.query('select 1');
        sql.later(insertNote, [sql.tenantId, id, 'first', new Date()]);
        sql.publish('notes.note.created', { id });
        sql.later(insertNote, [sql.tenantId, id, 'again', new Date()]);
        sql.afterCommit(() => void after.push(id));
      }, a.id),
    ).rejects.toMatchObject({ code: '23505' });
    // RLS WITH CHECK refuses a row of another tenant.
    await expect(db.write(async (sql) => sql.later(insertNote, [b.id, id, 'elsewhere', new Date()]), a.id)).rejects.toThrow(/row-level security/);
    await expect(
      db.write(async (sql) => {
        await sql.query('select 1');
        sql.later(insertNote, [sql.tenantId, id, 'thrown', new Date()]);
        throw new Error('changed my mind');
      }, a.id),
    ).rejects.toThrow('changed my mind');
    off();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await db.query('select 1 from test_note where id = ?', [id])).toEqual([]);
    expect(await outboxOf(id)).toEqual([]);
    expect(seen).toEqual([]);
    expect(after).toEqual([]);
    // Every pooled connection came back clean (no transaction left open or aborted).
    const again = await Promise.all(Array.from({ length: 12 }, () => db.write((sql) => sql.query<{ n: number }>('select count(*)::int as n from test_note'), a.id)));
    expect(again.every(([r]) => r.n === again[0][0].n)).toBe(true);
  });

  it('joins an open tenant transaction, and rolls back with it', async () => {
    const db = t.app.container.resolve(Database);
    const id = crypto.randomUUID();
    await expect(
      db.tenant(async () => {
        await db.write(async (sql) => sql.later(insertNote, [sql.tenantId, id, 'joined', sql.now()]), a.id);
        const [seen] = await db.read((sql) => sql.query<{ body: string }>('select body from test_note where id = ?', [id]), a.id);
        expect(seen.body).toBe('joined');
        throw new Error('roll back');
      }, a.id),
    ).rejects.toThrow('roll back');
    expect(await db.query('select 1 from test_note where id = ?', [id])).toEqual([]);
  });
});
