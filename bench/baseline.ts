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

const READ_TITLE_SQL = 'select id, title from catalog_product where tenant_id = $1 and id = $2';

// The statements the app runs for GET /catalog/products/:id (checked with countQueries), as raw pg:
// BEGIN carries the tenant context (the id is a checked UUID, written into the statement).
const beginAsTenant = (tenantId: string) =>
  `BEGIN READ ONLY; select set_config('role', '${APP_ROLE}', true), set_config('app.tenant_id', '${tenantId}', true)`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const READ_PRODUCT_SQL = 'select * from catalog_product where tenant_id = $1 and id = $2 limit 1';
const READ_VARIANTS_SQL = 'select * from catalog_variant where tenant_id = $1 and product_id = $2 order by position';

export interface BaselineServer {
  url: string;
  close(): Promise<void>;
}

type ProductRequest = { Params: { id: string }; Headers: { 'x-tenant-id'?: string } };

/** The app's read, minus the framework: one read-only transaction as the RLS role, two selects, plain JSON. */
async function readProductLikeTheApp(pool: pg.Pool, tenantId: string | undefined, id: string) {
  if (!tenantId || !UUID.test(tenantId)) return undefined;
  const client = await pool.connect();
  try {
    await client.query(beginAsTenant(tenantId));
    const product = await client.query(READ_PRODUCT_SQL, [tenantId, id]);
    const variants = await client.query(READ_VARIANTS_SQL, [tenantId, id]);
    await client.query('commit');
    return product.rows[0] ? { ...product.rows[0], variants: variants.rows } : undefined;
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

  try {
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
