import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError, Database, defineMachine, definePlugin, OrmRequired, ormOf, tenantTable, Tx, type BeforeStatement, type SqlTx } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';

/**
 * `Database.sqlFirst` (decision 0114): work runs on an ORM-free transaction, and a part that needs
 * the ORM starts it on that transaction's connection, in it, at no round trip of its own.
 */
const notes = definePlugin({
  name: 'sql-first-notes',
  migrations: [
    {
      id: '0001_notes',
      up: [
        `CREATE TABLE sf_note (tenant_id uuid NOT NULL, id serial, body text NOT NULL, PRIMARY KEY (tenant_id, id))`,
        tenantTable('sf_note'),
        `GRANT USAGE ON SEQUENCE sf_note_id_seq TO qhatu_app`,
        `CREATE TABLE sf_counter (tenant_id uuid PRIMARY KEY, n int NOT NULL)`,
        tenantTable('sf_counter'),
      ],
    },
  ],
});

let t: TestApp;
let shop: TestTenant;
let db: Database;
let owner: pg.Client;

beforeAll(async () => {
  t = await createTestApp({ plugins: [notes] });
  shop = await t.createTenant();
  db = t.app.container.resolve(Database);
  owner = await t.owner();
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await owner.query('delete from sf_note');
  await owner.query('delete from sf_counter');
});

/** The store's next number, as the orders plugin takes one before its transaction. */
function numberBefore(taken: number[]): BeforeStatement {
  return {
    sql: `insert into sf_counter (tenant_id, n) values (?, 1) on conflict (tenant_id) do update set n = sf_counter.n + 1 returning n`,
    params: [shop.id],
    rows: (rows: Array<{ n: number }>) => void taken.push(Number(rows[0].n)),
  };
}

/** A note written as each kind of transaction writes: queued on an ORM-free one, at once on the ORM's. */
async function note(tx: Tx | SqlTx, body: string): Promise<void> {
  if (tx instanceof Tx) await tx.query('insert into sf_note (tenant_id, body) values (?, ?)', [tx.tenantId, body]);
  else tx.later('insert into sf_note (tenant_id, body) values (?, ?)', [tx.tenantId, body]);
}

async function notesWritten(): Promise<string[]> {
  return (await owner.query<{ body: string }>('select body from sf_note order by id')).rows.map((r) => r.body);
}

/** Runs `work` through `sqlFirst`, noting the kind of transaction it was handed; the statements sent too. */
async function attempts(work: (tx: Tx | SqlTx) => Promise<void>, before?: BeforeStatement) {
  const kinds: string[] = [];
  const { statements } = await t.countQueries(() =>
    db.sqlFirst(async (tx) => {
      kinds.push(tx instanceof Tx ? 'orm' : 'sql');
      await work(tx);
    }, shop.id, { before }),
  );
  return { kinds, statements };
}

/** The notes as this transaction sees them. */
async function seen(tx: Tx | SqlTx): Promise<string[]> {
  return (await tx.query<{ body: string }>('select body from sf_note order by id')).map((r) => r.body);
}

describe('Database.sqlFirst', () => {
  it('runs work that needs no ORM on an ORM-free transaction, its before riding on BEGIN', async () => {
    const taken: number[] = [];
    const { kinds, statements } = await attempts(async (tx) => {
      await tx.query('select 1');
      await note(tx, 'plain');
    }, numberBefore(taken));
    expect(kinds).toEqual(['sql']);
    expect(taken).toEqual([1]);
    expect(await notesWritten()).toEqual(['plain']);
    // The number in a transaction of its own, then BEGIN, the tenant and the first statement: one round trip; the note with COMMIT: another.
    expect(statements).toHaveLength(2);
    expect(statements[0]).toMatch(/^BEGIN; select set_config.*; SET LOCAL synchronous_commit = off; insert into sf_counter .*returning n; COMMIT; BEGIN; select set_config.*; select 1$/s);
    expect(statements[1]).toMatch(/insert into sf_note .*; COMMIT$/s);
  });

  it('starts the ORM on the same transaction when a part needs it, at no round trip of its own; queued writes still go with COMMIT', async () => {
    const taken: number[] = [];
    let later = false;
    const { statements } = await attempts(async (tx) => {
      await tx.query('select 1');
      await note(tx, 'queued');
      const orm = await ormOf(tx);
      expect(orm).toBeInstanceOf(Tx);
      expect(await ormOf(tx)).toBe(orm);
      // The same transaction: the ORM's statement sees what the ORM-free one wrote, not what waits for COMMIT.
      await tx.query(`insert into sf_note (tenant_id, body) values (?, 'written')`, [tx.tenantId]);
      expect(await seen(orm)).toEqual(['written']);
      await note(orm, 'by the ORM');
      orm.afterCommit(() => void (later = true));
      orm.publish('notes.note.added', { body: 'by the ORM' });
      await note(tx, 'queued after');
    }, numberBefore(taken));
    expect(taken).toEqual([1]);
    expect(later).toBe(true);
    expect(await notesWritten()).toEqual(['written', 'by the ORM', 'queued', 'queued after']);
    // BEGIN with the number and `select 1`; the ORM-free insert; the ORM's read and insert; the queued notes, the event's row and COMMIT.
    expect(statements.filter((s) => /^BEGIN/.test(s))).toHaveLength(1);
    expect(statements, statements.map((x) => x.slice(0, 90)).join('\n')).toHaveLength(5);
    expect(statements[4]).toMatch(/'queued'[\s\S]*'queued after'[\s\S]*insert into core_outbox[\s\S]*; COMMIT$/);
    const events = await owner.query(`select type from core_outbox where tenant_id = $1 and type = 'notes.note.added'`, [shop.id]);
    expect(events.rowCount).toBe(1);
  });

  it('rolls back what the ORM wrote with the rest when the work fails after it started', async () => {
    await expect(
      attempts(async (tx) => {
        await note(tx, 'queued');
        await note(await ormOf(tx), 'by the ORM');
        throw AppError.conflict('No', 'REFUSED');
      }),
    ).rejects.toMatchObject({ code: 'REFUSED' });
    expect(await notesWritten()).toEqual([]);
    // The connection went back clean: the next transaction sees no open one.
    await attempts(async (tx) => note(tx, 'next'));
    expect(await notesWritten()).toEqual(['next']);
  });

  it('runs again, and writes once, when its connection is lost after the ORM started and before COMMIT', async () => {
    const retried: string[] = [];
    db.onRetry((reason) => void retried.push(reason));
    const runs: number[] = [];
    const killed = (async () => {
      for (let n = 0; n < 1000; n++) {
        const { rows } = await owner.query<{ pid: number }>(
          `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and wait_event = 'PgSleep' limit 1`,
        );
        if (rows[0]) return (await owner.query('select pg_terminate_backend($1)', [rows[0].pid])).rowCount;
        await new Promise((r) => setTimeout(r, 5));
      }
      throw new Error('nothing slept');
    })();
    await attempts(async (tx) => {
      runs.push(runs.length);
      await note(tx, 'once');
      const orm = await ormOf(tx);
      await orm.query('select pg_sleep(0.3)');
      await note(orm, 'once by the ORM');
    });
    expect(await killed).toBe(1);
    expect(runs).toHaveLength(2);
    expect(retried).toContain('connection');
    expect((await notesWritten()).sort()).toEqual(['once', 'once by the ORM']);
  });

  it('joins a transaction opened inside the work (a read, a write, a tenant transaction) to its own, on the ORM started there', async () => {
    for (const open of [
      () => db.read(async (sql) => (await sql.query<{ body: string }>('select body from sf_note')).map((r) => r.body), shop.id),
      () => db.readOne(async (sql) => (await sql.query<{ body: string }>('select body from sf_note')).map((r) => r.body), shop.id),
      () => db.write(async (sql) => (await sql.query<{ body: string }>('select body from sf_note')).map((r) => r.body), shop.id),
      () => db.tenant(async (tx) => (await tx.query<{ body: string }>('select body from sf_note')).map((r) => r.body), shop.id),
    ]) {
      await owner.query('delete from sf_note');
      const { kinds, statements } = await attempts(async (tx) => {
        await tx.query(`insert into sf_note (tenant_id, body) values (?, 'inside')`, [tx.tenantId]);
        // It sees the uncommitted note: the same transaction.
        expect(await open()).toEqual(['inside']);
      });
      expect(kinds).toEqual(['sql']);
      expect(statements.filter((s) => /^BEGIN/.test(s))).toHaveLength(1);
      expect(await notesWritten()).toEqual(['inside']);
    }
  });

  it('moves a machine whose move has a guard on the ORM started on the transaction', async () => {
    let guarded: unknown;
    const doors = defineMachine<{ id: string; state: 'shut' | 'open' }, 'shut' | 'open'>({
      name: 'door',
      field: 'state',
      states: ['shut', 'open'],
      transitions: {
        open: { from: ['shut'], to: 'open', guard: ({ tx }) => void (guarded = tx) },
        shut: { from: ['open'], to: 'shut' },
      },
    });
    await attempts(async (tx) => {
      await doors.apply(tx, { id: 'a', state: 'open' }, 'shut');
      expect(guarded).toBeUndefined();
      await doors.apply(tx, { id: 'b', state: 'shut' }, 'open');
      expect(guarded).toBeInstanceOf(Tx);
    });
  });

  it('joins a tenant transaction open in the scope, running on its Tx', async () => {
    const kinds: string[] = [];
    await db.tenant(async () => {
      await db.sqlFirst(async (tx) => {
        kinds.push(tx instanceof Tx ? 'orm' : 'sql');
        await note(tx, 'joined');
      }, shop.id);
    }, shop.id);
    expect(kinds).toEqual(['orm']);
    expect(await notesWritten()).toEqual(['joined']);
  });

  it('refuses the ORM on a plain ORM-free write: the transaction fails and writes nothing, even when the refusal is swallowed', async () => {
    await expect(
      db.write(async (sql) => {
        await note(sql, 'never');
        await ormOf(sql);
      }, shop.id),
    ).rejects.toBeInstanceOf(OrmRequired);
    await expect(
      db.write(async (sql) => {
        await note(sql, 'never either');
        await ormOf(sql).catch(() => undefined);
      }, shop.id),
    ).rejects.toBeInstanceOf(OrmRequired);
    expect(await notesWritten()).toEqual([]);
  });
});
