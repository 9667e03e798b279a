import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, EventBus, Jobs, OUTBOX_DISPATCH_JOB, OutboxRelay } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';
import { followUps, probePlugin } from './fixtures/probe-plugin.js';

/**
 * A job queued on an event (`OutboxRelay.queueOn`) is queued with the relay's transaction: the
 * event counts as published only once the job is queued, and a queue that refuses the job leaves
 * the event to a later dispatch (decision 0050). On both queues.
 */
async function eventually<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Setup {
  t: TestApp;
  a: TestTenant;
  admin: pg.Client;
  failedDispatches: number;
}

async function setUp(env: Record<string, string> = {}): Promise<Setup> {
  const t = await createTestApp({ plugins: [notesPlugin, probePlugin], workers: true, env });
  const setup: Setup = { t, a: await t.createTenant(), admin: new pg.Client({ connectionString: t.databaseUrl }), failedDispatches: 0 };
  t.app.jobs.onRun((name, outcome) => {
    if (name === OUTBOX_DISPATCH_JOB && outcome === 'failed') setup.failedDispatches++;
  });
  await setup.admin.connect();
  return setup;
}

async function publishedAt(s: Setup, eventId: string): Promise<Date | null> {
  const { rows } = await s.admin.query<{ published_at: Date | null }>('select published_at from core_outbox where id = $1', [eventId]);
  return rows[0]!.published_at;
}

/** A note created over HTTP, and the id of its `notes.note.created` event. */
async function createNote(s: Setup): Promise<{ noteId: string; eventId: string }> {
  const res = await s.t.request({ method: 'POST', url: '/api/v1/probe/notes', headers: s.a.headers(), payload: { body: 'follow me' } });
  expect(res.statusCode).toBe(201);
  const noteId = res.json().data.id as string;
  const { rows } = await s.admin.query<{ id: string }>(`select id from core_outbox where data->>'id' = $1`, [noteId]);
  return { noteId, eventId: rows[0]!.id };
}

/** An event of a note committed as a writer commits it: its outbox row, then the bus's hand-off to the relay. */
async function commitEvent(s: Setup, eventId: string): Promise<{ noteId: string; eventId: string }> {
  const noteId = randomUUID();
  await s.admin.query(
    `insert into core_outbox (tenant_id, id, type, source, data, occurred_at) values ($1, $2, 'notes.note.created', '/qhatu/notes', $3, now())`,
    [s.a.id, eventId, JSON.stringify({ id: noteId })],
  );
  await s.t.app.container.resolve(EventBus).committed([{ id: eventId, type: 'notes.note.created', source: '/qhatu/notes', tenantId: s.a.id, time: new Date(), data: { id: noteId } }]);
  return { noteId, eventId };
}

/** The PostgreSQL queue refuses (a trigger raises) every follow-up job until told otherwise. */
async function refuseFollowUps(s: Setup, refuse: boolean): Promise<void> {
  await s.admin.query(refuse
    ? `create function refuse_follow_up() returns trigger language plpgsql as $$ begin raise exception 'the queue refuses this job'; end $$;
       create trigger refuse_follow_up before insert on bullmq.job for each row when (new.name = 'probe.follow-up') execute function refuse_follow_up();`
    : 'drop trigger refuse_follow_up on bullmq.job; drop function refuse_follow_up()');
}

describe('follow-up jobs on the PostgreSQL queue', () => {
  let s: Setup;
  beforeAll(async () => void (s = await setUp()), 60_000);
  afterAll(async () => {
    await s?.admin.end();
    await s?.t.close();
  });

  it('runs the job of a committed event in its tenant, the event marked published', async () => {
    const { noteId, eventId } = await createNote(s);
    const ran = await eventually(() => followUps.find((f) => f.noteId === noteId));
    expect(ran.tenantId).toBe(s.a.id);
    expect(await publishedAt(s, eventId)).not.toBeNull();
    const { rows } = await s.admin.query('select name from bullmq.job where id = $1', [`probe.follow-up-${eventId}`]);
    expect(rows).toEqual([{ name: 'probe.follow-up' }]);
  });

  it('leaves the event unpublished while the queue refuses its job, and runs the job once the queue takes it', async () => {
    await refuseFollowUps(s, true);
    const failedBefore = s.failedDispatches;
    let event: { noteId: string; eventId: string };
    try {
      event = await createNote(s);
      await eventually(() => s.failedDispatches > failedBefore);
      expect(await publishedAt(s, event.eventId)).toBeNull();
      expect(followUps.find((f) => f.noteId === event.noteId)).toBeUndefined();
    } finally {
      await refuseFollowUps(s, false);
    }
    // The dispatch job's next attempt (2 s later) queues it.
    await eventually(() => followUps.find((f) => f.noteId === event.noteId));
    expect(await publishedAt(s, event.eventId)).not.toBeNull();
  });

  it('leaves an event the sweep could not dispatch to the next sweep', async () => {
    const relay = s.t.app.container.resolve(OutboxRelay);
    await refuseFollowUps(s, true);
    const noteId = randomUUID();
    const eventId = randomUUID();
    // An event whose dispatch job was never queued (a crash right after its commit).
    await s.admin.query(
      `insert into core_outbox (tenant_id, id, type, source, data, occurred_at) values ($1, $2, 'notes.note.created', '/qhatu/notes', $3, now() - interval '1 minute')`,
      [s.a.id, eventId, JSON.stringify({ id: noteId })],
    );
    try {
      await expect(relay.dispatch()).rejects.toThrow(/the queue refuses this job/);
      expect(await publishedAt(s, eventId)).toBeNull();
    } finally {
      await refuseFollowUps(s, false);
    }
    expect(await relay.dispatch()).toBeGreaterThanOrEqual(1);
    expect(await publishedAt(s, eventId)).not.toBeNull();
    await eventually(() => followUps.find((f) => f.noteId === noteId));
  });

  it('queues a job with a transaction: only if it commits, and the waiting worker hears of it at the commit', async () => {
    const db = s.t.app.container.resolve(Database);
    const jobs = s.t.app.container.resolve(Jobs);
    // A job due in ten minutes: a worker that missed the commit's notification would sleep until then.
    await jobs.add('notes.echo', { text: 'later' }, { delayMs: 600_000 });
    await new Promise((r) => setTimeout(r, 300));
    const rolledBack = randomUUID();
    await expect(db.platform(async (tx) => {
      await jobs.addIn(tx, 'probe.follow-up', { id: rolledBack }, { jobId: `probe.follow-up-${rolledBack}` });
      throw new Error('changed my mind');
    })).rejects.toThrow('changed my mind');
    const committed = randomUUID();
    await db.platform((tx) => jobs.addIn(tx, 'probe.follow-up', { id: committed }, { jobId: `probe.follow-up-${committed}` }));
    const at = Date.now();
    const ran = await eventually(() => followUps.find((f) => f.noteId === committed));
    expect(ran.at - at).toBeLessThan(1000);
    expect((await s.admin.query('select 1 from bullmq.job where id = $1', [`probe.follow-up-${rolledBack}`])).rows).toEqual([]);
    expect(followUps.find((f) => f.noteId === rolledBack)).toBeUndefined();
  });
});

describe('follow-up jobs on Redis', () => {
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `qhatu-test-${randomBytes(4).toString('hex')}`;
  let s: Setup;
  let redis: Redis;
  beforeAll(async () => {
    s = await setUp({ REDIS_URL: redisUrl, QHATU_QUEUE_PREFIX: prefix });
    redis = new Redis(redisUrl);
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await s?.admin.end();
    await s?.t.close();
  });

  it('runs the job of a committed event, the event marked published', async () => {
    const { noteId, eventId } = await createNote(s);
    await eventually(() => followUps.find((f) => f.noteId === noteId));
    // Queued before the relay commits: the job may run first.
    await eventually(async () => (await publishedAt(s, eventId)) !== null);
    expect(await redis.exists(`${prefix}:qhatu:probe.follow-up-${eventId}`)).toBe(1);
  });

  it('leaves the event unpublished while Redis refuses its job, and runs the job once Redis takes it', async () => {
    const failedBefore = s.failedDispatches;
    // A key of the wrong type where the job would be stored: Redis refuses the job (WRONGTYPE) until it goes.
    const eventId = randomUUID();
    const blocker = `${prefix}:qhatu:probe.follow-up-${eventId}`;
    await redis.set(blocker, 'in the way');
    let noteId: string;
    try {
      ({ noteId } = await commitEvent(s, eventId));
      await eventually(() => s.failedDispatches > failedBefore);
      expect(await publishedAt(s, eventId)).toBeNull();
      expect(followUps.find((f) => f.noteId === noteId)).toBeUndefined();
    } finally {
      await redis.del(blocker);
    }
    await eventually(() => followUps.find((f) => f.noteId === noteId));
    await eventually(async () => (await publishedAt(s, eventId)) !== null);
  });
});
