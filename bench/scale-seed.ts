/**
 * Seeding for `pnpm bench:scale`, in SQL (generate_series), not through the API: a million rows
 * through HTTP would take hours. Stores and their keys are made through the API (keys are hashed
 * there); rows go straight into the tables, as the plugins would write them, in batches.
 *
 * The seeding session runs with `session_replication_role = replica` (the benchmark database's
 * owner is a superuser): triggers and foreign-key checks are skipped, which the rows, made
 * consistent here, do not need. Every table is vacuumed and analysed afterwards, as autovacuum
 * would leave it.
 */
import pg from 'pg';

const BATCH = 100_000;

export interface SeedTarget {
  tenantId: string;
  /** Rows already in the store: the next batch numbers from there. */
  from: number;
  to: number;
}

type Log = (line: string) => void;

async function inBatches(client: pg.Client, what: string, target: SeedTarget, log: Log, insert: (from: number, to: number) => Promise<unknown>) {
  const started = Date.now();
  for (let from = target.from; from <= target.to; from += BATCH) {
    await insert(from, Math.min(from + BATCH - 1, target.to));
  }
  log(`${what}: ${(target.to - target.from + 1).toLocaleString('en')} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Products with two variants each; titles, handles and SKUs (ALP-<n>-S, ALP-<n>-M) unique, dates one second apart. */
export async function seedProducts(client: pg.Client, target: SeedTarget, log: Log): Promise<void> {
  await inBatches(client, 'products', target, log, (from, to) =>
    client.query(
      `with made as (
         insert into catalog_product (tenant_id, id, title, handle, description_html, status, tags, created_at, updated_at)
         select $1, gen_random_uuid(), 'Producto ' || i || ' de alpaca', 'producto-' || i, '<p>Hecho a mano.</p>', 'active', '["bench"]',
                timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
         from generate_series($2::int, $3::int) as i
         returning tenant_id, id, handle, created_at)
       insert into catalog_variant (tenant_id, id, product_id, title, sku, price, currency, position, inventory_quantity, created_at, updated_at)
       select made.tenant_id, gen_random_uuid(), made.id, size.title, 'ALP-' || substr(made.handle, 10) || '-' || size.title, 1990 + size.position * 100, 'USD', size.position, 10, made.created_at, made.created_at
       from made cross join (values ('S', 0), ('M', 1)) as size (title, position)`,
      [target.tenantId, from, to],
    ),
  );
}

/** Customers with an e-mail, names and a phone. */
export async function seedCustomers(client: pg.Client, target: SeedTarget, log: Log): Promise<void> {
  await inBatches(client, 'customers', target, log, (from, to) =>
    client.query(
      `insert into customers_customer (tenant_id, id, email, first_name, last_name, phone, status, created_at, updated_at)
       select $1, gen_random_uuid(), 'cliente' || i || '@correo.pe', 'Nombre' || (i % 997), 'Apellido' || i, '+51' || (900000000 + i), 'active',
              timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
       from generate_series($2::int, $3::int) as i`,
      [target.tenantId, from, to],
    ),
  );
}

/** Orders of one line each, numbered from 1,001. */
export async function seedOrders(client: pg.Client, target: SeedTarget, log: Log): Promise<void> {
  await inBatches(client, 'orders', target, log, (from, to) =>
    client.query(
      `with made as (
         insert into orders_order (tenant_id, id, number, status, customer_email, customer_name, currency, subtotal, total, created_at, updated_at)
         select $1, gen_random_uuid(), 1000 + i, 'pending', 'cliente' || i || '@correo.pe', 'Nombre' || (i % 997) || ' Apellido' || i, 'USD', 1990 + i % 5000, 1990 + i % 5000,
                timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
         from generate_series($2::int, $3::int) as i
         returning tenant_id, id, subtotal)
       insert into orders_line_item (tenant_id, id, order_id, position, variant_id, product_id, title, variant_title, quantity, unit_price_amount, total_amount, requires_shipping)
       select tenant_id, gen_random_uuid(), id, 0, gen_random_uuid(), gen_random_uuid(), 'Producto de alpaca', 'M', 1, subtotal, subtotal, true
       from made`,
      [target.tenantId, from, to],
    ),
  );
  await client.query(
    `insert into orders_counter (tenant_id, last_number) values ($1, $2)
     on conflict (tenant_id) do update set last_number = excluded.last_number`,
    [target.tenantId, 1000 + target.to],
  );
}

/** `count` stores made in SQL (no keys: nobody calls them), each with `products` products. */
export async function seedStores(client: pg.Client, count: number, products: number, log: Log): Promise<void> {
  const started = Date.now();
  for (let from = 1; from <= count; from += 1000) {
    const to = Math.min(from + 999, count);
    await client.query(
      `with stores as (
         insert into core_tenant (id, name, slug, status, currency, default_locale, created_at, updated_at)
         select gen_random_uuid(), 'Tienda ' || s, 'tienda-' || s || '-' || substr(md5(random()::text), 1, 6), 'active', 'USD', 'es-PE', now(), now()
         from generate_series($1::int, $2::int) as s
         returning id),
       made as (
         insert into catalog_product (tenant_id, id, title, handle, status, created_at, updated_at)
         select stores.id, gen_random_uuid(), 'Producto ' || i, 'producto-' || i, 'active',
                timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
         from stores cross join generate_series(1, $3::int) as i
         returning tenant_id, id, created_at)
       insert into catalog_variant (tenant_id, id, product_id, title, price, currency, position, created_at, updated_at)
       select tenant_id, gen_random_uuid(), id, 'Única', 1990, 'USD', 0, created_at, created_at from made`,
      [from, to, products],
    );
  }
  log(`stores: ${count.toLocaleString('en')} with ${products} products each in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** As autovacuum would leave the tables: visibility maps set, GIN pending lists merged, statistics fresh. */
export async function settle(client: pg.Client, tables: string[], log: Log): Promise<void> {
  const started = Date.now();
  for (const table of tables) await client.query(`vacuum analyze ${table}`);
  log(`vacuum analyze ${tables.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export async function seedingClient(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`set session_replication_role = replica`);
  return client;
}
