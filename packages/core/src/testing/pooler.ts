/**
 * Test apps through a connection pooler: with `TEST_POOLER_URL` (a PgBouncer in transaction mode
 * in front of the test server, say `postgres://postgres@127.0.0.1:6432`), every test app's
 * connections go through it without prepared statements, as production behind PgBouncer does
 * (docs/scale-out.md); the session work (LISTEN, the job queue, migrations) goes direct.
 */
export function poolerEnvironment(databaseUrl: string, poolerUrl = process.env.TEST_POOLER_URL): Record<string, string> {
  if (!poolerUrl) return {};
  const through = new URL(poolerUrl);
  through.pathname = new URL(databaseUrl).pathname;
  return { DATABASE_URL: through.toString(), DATABASE_DIRECT_URL: databaseUrl, DATABASE_PREPARE: 'off' };
}
