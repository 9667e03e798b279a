import Fastify from 'fastify';
import pg from 'pg';
import { APP_ROLE } from '../packages/core/src/db/migrations.js';

/**
 * The floor to compare the app with: bare fastify (no plugins, no schemas, no auth, no logger) and
 * a `pg.Pool` of the same size as the app's. The baseline route answers on the app's product-read
 * path, so one scenario request list works against both servers; the reference route, under a
 * prefix, runs the app's statements without the app, to split the gap between SQL and framework.
 */
export const REFERENCE_PREFIX = '/reference';

/**
 * The ceiling: fastify answering the app's own storefront answers (loaded once through
 * CEILING_LOAD after seeding) from memory, with no database, no auth and no logger; the most this
 * machine and load generator allow for a JSON read of that size.
 */
export const CEILING_PREFIX = '/ceiling';
export const CEILING_LOAD = '/ceiling-load';

const READ_TITLE_SQL = 'select id, title from catalog_product where tenant_id = $1 and id = $2';

// The statements the app runs for GET /catalog/products/:id (checked with countQueries), as raw pg:
// BEGIN with the tenant context, the read and COMMIT in one simple query (the ids are checked UUIDs,
// written into the statement), one round trip.
const asTenant = (tenantId: string, read: string) =>
  `BEGIN READ ONLY; select set_config('role', '${APP_ROLE}', true), set_config('app.tenant_id', '${tenantId}', true); ${read}; COMMIT`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// The product with its variants as JSON, in one statement, as the app reads it.
const READ_PRODUCT_SQL = `select p.*, coalesce((select json_agg(v order by v.position) from catalog_variant v
  where v.tenant_id = p.tenant_id and v.product_id = p.id), '[]') as variants
  from catalog_product p where tenant_id = $1 and id = $2`;
const inline = (sql: string, tenantId: string, id: string) => sql.replace('$1', `'${tenantId}'`).replace('$2', `'${id}'`);

/**
 * The write floor: one transaction of one UPDATE and one INSERT (BEGIN, UPDATE, INSERT, COMMIT),
 * on tables of the baseline's own, so add-to-cart and order placement are judged against a write.
 */
export const WRITE_PATH = '/baseline/write';
export const WRITE_ROWS = 250;
const WRITE_SETUP = [
  `create table if not exists bench_counter (id int primary key, n bigint not null default 0, updated_at timestamptz not null default now())`,
  `create table if not exists bench_log (id bigserial primary key, counter_id int not null, n bigint not null, body jsonb not null, created_at timestamptz not null default now())`,
  `insert into bench_counter (id) select g from generate_series(0, ${WRITE_ROWS - 1}) g on conflict do nothing`,
];
const WRITE_UPDATE_SQL = 'update bench_counter set n = n + 1, updated_at = now() where id = $1 returning n';
const WRITE_INSERT_SQL = 'insert into bench_log (counter_id, n, body) values ($1, $2, $3) returning id';

/**
 * The placing floor: one transaction that reads a cart's lines and inserts an order, its lines and
 * the stock they reserve (BEGIN, the read, three INSERTs, COMMIT), on tables of the baseline's own:
 * 250 carts of two lines each, request n reading cart n mod 250. Order numbers come from a
 * sequence, so that placements never wait for each other. The tables start with a history of
 * `HISTORY_ROWS` orders, as the app's store does, so that neither is planned as an empty table.
 */
export const PLACE_PATH = '/baseline/place';
export const HISTORY_ROWS = 1000;
const PLACE_SETUP = [
  `create table if not exists bench_cart_line (cart_id int not null, position int not null, variant_id uuid not null, quantity int not null,
     unit_price bigint not null, primary key (cart_id, position))`,
  `insert into bench_cart_line (cart_id, position, variant_id, quantity, unit_price)
     select c, p, gen_random_uuid(), 1, 1990 + p * 100 from generate_series(0, ${WRITE_ROWS - 1}) c, generate_series(0, 1) p on conflict do nothing`,
  `create sequence if not exists bench_order_number`,
  `create table if not exists bench_order (id uuid primary key, number bigint not null unique, cart_id int not null, total bigint not null,
     created_at timestamptz not null default now())`,
  `create table if not exists bench_order_line (order_id uuid not null references bench_order (id), position int not null, variant_id uuid not null,
     quantity int not null, unit_price bigint not null, primary key (order_id, position))`,
  `create table if not exists bench_reservation (id bigserial primary key, order_id uuid not null references bench_order (id), variant_id uuid not null,
     quantity int not null, created_at timestamptz not null default now())`,
  `with history as (
     insert into bench_order (id, number, cart_id, total)
     select gen_random_uuid(), nextval('bench_order_number'), n % ${WRITE_ROWS}, 4180 from generate_series(0, ${HISTORY_ROWS - 1}) n
      where not exists (select 1 from bench_order)
     returning id, cart_id),
   lines as (
     insert into bench_order_line (order_id, position, variant_id, quantity, unit_price)
     select h.id, l.position, l.variant_id, l.quantity, l.unit_price from history h join bench_cart_line l on l.cart_id = h.cart_id)
   insert into bench_reservation (order_id, variant_id, quantity)
   select h.id, l.variant_id, l.quantity from history h join bench_cart_line l on l.cart_id = h.cart_id`,
];
const PLACE_READ_SQL = 'select position, variant_id, quantity, unit_price from bench_cart_line where cart_id = $1 order by position';
const PLACE_ORDER_SQL = `insert into bench_order (id, number, cart_id, total) values (gen_random_uuid(), nextval('bench_order_number'), $1, $2) returning id, number`;
const PLACE_LINES_SQL = `insert into bench_order_line (order_id, position, variant_id, quantity, unit_price)
  select $1, l.position, l.variant_id, l.quantity, l.unit_price from jsonb_to_recordset($2::jsonb) as l (position int, variant_id uuid, quantity int, unit_price bigint)`;
const PLACE_RESERVE_SQL = `insert into bench_reservation (order_id, variant_id, quantity)
  select $1, l.variant_id, l.quantity from jsonb_to_recordset($2::jsonb) as l (variant_id uuid, quantity int)`;

export interface BaselineServer {
  url: string;
  close(): Promise<void>;
}

type ProductRequest = { Params: { id: string }; Headers: { 'x-tenant-id'?: string } };

/** The app's read, minus the framework: one read-only transaction as the RLS role, one select, plain JSON. */
async function readProductLikeTheApp(pool: pg.Pool, tenantId: string | undefined, id: string) {
  if (!tenantId || !UUID.test(tenantId) || !UUID.test(id)) return undefined;
  const client = await pool.connect();
  try {
    const results = (await client.query(asTenant(tenantId, inline(READ_PRODUCT_SQL, tenantId, id)))) as unknown as pg.QueryResult[];
    return results[2].rows[0];
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export async function startBaseline(options: { databaseUrl: string; port: number; poolMax: number }): Promise<BaselineServer> {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolMax });
  // An idle client's error (the server closing it) would otherwise be an unhandled 'error' event.
  pool.on('error', (error) => console.error(`baseline pool: ${error.message}`));
  const http = Fastify({ logger: false });

  http.get<ProductRequest>('/api/v1/catalog/products/:id', async (request, reply) => {
    const { rows } = await pool.query(READ_TITLE_SQL, [request.headers['x-tenant-id'], request.params.id]);
    if (rows.length === 0) return reply.code(404).send({ error: 'not found' });
    return { data: rows[0] };
  });

  http.get<ProductRequest>(`${REFERENCE_PREFIX}/api/v1/catalog/products/:id`, async (request, reply) => {
    const product = await readProductLikeTheApp(pool, request.headers['x-tenant-id'], request.params.id);
    if (!product) return reply.code(404).send({ error: 'not found' });
    return { data: product };
  });

  const answers = new Map<string, string>();
  http.post<{ Body: Record<string, string> }>(CEILING_LOAD, { bodyLimit: 64 * 2 ** 20 }, async (request) => {
    for (const [url, body] of Object.entries(request.body ?? {})) answers.set(url, body);
    return { loaded: answers.size };
  });
  http.get(`${CEILING_PREFIX}/*`, async (request, reply) => {
    const body = answers.get(request.url.slice(CEILING_PREFIX.length));
    if (body === undefined) return reply.code(404).send({ error: 'not loaded' });
    return reply.type('application/json; charset=utf-8').send(body);
  });

  type WriteRequest = { Body: { counter: number; body: unknown } };
  http.post<WriteRequest>(WRITE_PATH, async (request, reply) => {
    const counter = Number(request.body?.counter);
    if (!Number.isInteger(counter) || counter < 0 || counter >= WRITE_ROWS) return reply.code(400).send({ error: 'bad counter' });
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query(WRITE_UPDATE_SQL, [counter]);
      const inserted = await client.query(WRITE_INSERT_SQL, [counter, rows[0].n, JSON.stringify(request.body.body ?? null)]);
      await client.query('commit');
      return reply.code(201).send({ data: { id: inserted.rows[0].id, n: rows[0].n } });
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  });

  type PlaceRequest = { Body: { cart: number } };
  http.post<PlaceRequest>(PLACE_PATH, async (request, reply) => {
    const cart = Number(request.body?.cart);
    if (!Number.isInteger(cart) || cart < 0 || cart >= WRITE_ROWS) return reply.code(400).send({ error: 'bad cart' });
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows: lines } = await client.query(PLACE_READ_SQL, [cart]);
      const total = lines.reduce((sum, l) => sum + Number(l.unit_price) * l.quantity, 0);
      const { rows } = await client.query(PLACE_ORDER_SQL, [cart, total]);
      await client.query(PLACE_LINES_SQL, [rows[0].id, JSON.stringify(lines)]);
      await client.query(PLACE_RESERVE_SQL, [rows[0].id, JSON.stringify(lines)]);
      await client.query('commit');
      return reply.code(201).send({ data: { id: rows[0].id, number: rows[0].number, total } });
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  });

  try {
    for (const statement of [...WRITE_SETUP, ...PLACE_SETUP]) await pool.query(statement);
    await http.listen({ host: '127.0.0.1', port: options.port });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${options.port}`,
    async close() {
      await http.close();
      await pool.end();
    },
  };
}
