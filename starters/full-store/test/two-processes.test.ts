import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@qhatu/core/testing';
import { StripeDouble } from '@qhatu/plugin-gateway-stripe/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../qhatu.config.js';

/**
 * Scale-out as an operator runs it (docs/scale-out.md): two API processes (`qhatu start`) on one
 * PostgreSQL database behind nginx (Debian's package) balancing them round robin, and one
 * `qhatu worker` on Redis. A checkout's steps land on both processes; what one process revokes
 * or suspends, the other refuses at once.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((bin) => spawnSync(bin, ['-v']).status === 0);
const stripeKey = 'sk_test_two_processes';
const children: Array<{ name: string; child: ChildProcess; output: () => string }> = [];
let stripe: StripeDouble;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dir: string;
let balancer: string;
const api: string[] = [];
const platformToken = `qhp_${randomBytes(24).toString('base64url')}`;
const platform = { authorization: `Bearer ${platformToken}` };

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function run(name: string, command: string, args: string[], env: Record<string, string>): void {
  const child = spawn(command, args, { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output = (output + d).slice(-4000)));
  child.stderr!.on('data', (d) => (output = (output + d).slice(-4000)));
  children.push({ name, child, output: () => output });
}

async function ready(url: string, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const answer = await fetch(url).then((r) => r.status, () => 0);
    if (answer === 200) return;
    const dead = children.find((c) => c.child.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited:\n${dead.output()}`);
    if (Date.now() > end) throw new Error(`${url} not ready:\n${children.map((c) => `${c.name}: ${c.output()}`).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  if (!NGINX) throw new Error('nginx is not installed (Debian: apt-get install nginx-light); .ci/run installs it');
  dir = await mkdtemp(path.join(tmpdir(), 'qhatu-two-processes-'));
  [stripe, database] = await Promise.all([new StripeDouble(new Set([stripeKey])).start(), createTestDatabase(project.plugins)]);
  const env = {
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: '4',
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    QHATU_QUEUE_PREFIX: `qhatu-test-${randomBytes(4).toString('hex')}`,
    QHATU_PLATFORM_TOKEN: platformToken,
    QHATU_ENV: 'production',
    QHATU_TRUST_PROXY: '127.0.0.1',
    QHATU_DATA_DIR: dir,
    QHATU_GATEWAY_STRIPE_BASE_URL: stripe.url,
    LOG_LEVEL: 'warn',
  };
  const cli = ['packages/cli/bin/qhatu.js'];
  const config = ['--config', 'starters/full-store/qhatu.config.ts'];
  const ports = [await freePort(), await freePort(), await freePort()];
  for (const port of ports.slice(0, 2)) {
    run(`api :${port}`, process.execPath, [...cli, 'start', ...config], { ...env, PORT: String(port), HOST: '127.0.0.1' });
    api.push(`http://127.0.0.1:${port}`);
  }
  run('worker', process.execPath, [...cli, 'worker', ...config], { ...env, PORT: String(await freePort()) });
  // nginx in the foreground with a prefix of its own: an upstream of both processes, round robin.
  await writeFile(
    path.join(dir, 'nginx.conf'),
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # max_fails=0: a process slow to accept once (a loaded machine) stays in the rotation instead of being set aside for 10 s.
  upstream qhatu { ${api.map((url) => `server ${url.slice('http://'.length)} max_fails=0;`).join(' ')} }
  server {
    listen 127.0.0.1:${ports[2]};
    location / {
      proxy_pass http://qhatu;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`,
  );
  run('nginx', NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], {});
  balancer = `http://127.0.0.1:${ports[2]}`;
  await Promise.all([...api.map((url) => ready(`${url}/health/ready`)), ready(`${balancer}/health/live`)]);
}, 120_000);

afterAll(async () => {
  for (const { child } of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await stripe?.close();
  await database?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A request to `base`: the answer, and the API process that served it (nginx's `X-Upstream`). */
async function call(base: string, method: string, url: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, upstream: res.headers.get('x-upstream') };
}

describe('two API processes behind nginx, a worker on Redis', () => {
  const served = new Set<string>();
  let tenantId: string;
  let admin: Record<string, string>;
  let shopper: Record<string, string>;
  let adminKeyId: string;

  /** Through the balancer; each answer must be `status`. */
  async function step(method: string, url: string, headers: Record<string, string>, body?: unknown, status = 200) {
    const res = await call(balancer, method, url, headers, body);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(status);
    expect(api.map((u) => u.slice('http://'.length))).toContain(res.upstream);
    served.add(res.upstream!);
    return res.body?.data;
  }

  it('sells through the balancer: the checkout steps land on both processes, the worker completes the order', async () => {
    const tenant = await step('POST', '/api/v1/tenants', platform, { name: 'Balanced Wool', currency: 'PEN' }, 201);
    tenantId = tenant.id;
    const adminKey = await step('POST', `/api/v1/tenants/${tenantId}/api-keys`, platform, { name: 'admin', scope: 'admin' }, 201);
    adminKeyId = adminKey.id;
    admin = { authorization: `Bearer ${adminKey.token}`, 'x-tenant-id': tenantId };
    const storefront = await step('POST', `/api/v1/tenants/${tenantId}/api-keys`, platform, { name: 'web', scope: 'storefront' }, 201);
    shopper = { authorization: `Bearer ${storefront.token}`, 'x-tenant-id': tenantId };

    await step('PUT', '/api/v1/payments/gateways/stripe', admin, { enabled: true, credentials: { secret_key: stripeKey, webhook_secret: 'whsec_two' } });
    const warehouse = await step('POST', '/api/v1/inventory/warehouses', admin, { name: 'Puno', code: 'PUN' }, 201);
    const product = await step('POST', '/api/v1/catalog/products', admin, { title: 'Vicuña shawl', variants: [{ title: 'One', price: 30000 }] }, 201);
    const variant = product.variants[0].id;
    await step('POST', `/api/v1/inventory/warehouses/${warehouse.id}/stock/adjust`, admin, { variant_id: variant, delta: 3, reason: 'received' });

    const cart = await step('POST', '/api/v1/checkout/carts', shopper, {}, 201);
    await step('POST', `/api/v1/checkout/carts/${cart.id}/items`, shopper, { variant_id: variant, quantity: 1 }, 201);
    const started = await step('POST', '/api/v1/checkout/checkouts', shopper, { cart_id: cart.id, email: 'ana@example.com' }, 201);
    const address = { first_name: 'Ana', last_name: 'Mamani', address1: 'Jr. Lima 12', city: 'Puno', province: 'Puno', country_code: 'PE', zip: '21001', phone: '+51987654321' };
    const checkout = await step('PUT', `/api/v1/checkout/checkouts/${started.id}/shipping`, shopper, {
      shipping_address: address, billing_address: address, shipping_rate: { carrier: 'Olva', service: 'Standard', price: 1000 },
    });
    expect(checkout).toMatchObject({ status: 'payment_pending', total: 31000 });
    const payment = await step('POST', '/api/v1/payments', { ...shopper, 'idempotency-key': 'pay-once' }, { order_id: checkout.order_id, gateway: 'stripe', amount: 31000, currency: 'PEN', payment_method_id: 'pm_card_visa' }, 201);
    expect(payment.status).toBe('paid');
    // The same payment sent again lands on the other process: the first answer, not a second charge.
    const again = await call(balancer, 'POST', '/api/v1/payments', { ...shopper, 'idempotency-key': 'pay-once' }, { order_id: checkout.order_id, gateway: 'stripe', amount: 31000, currency: 'PEN', payment_method_id: 'pm_card_visa' });
    expect(again.body.data.id).toBe(payment.id);
    expect(stripe.intents.size).toBe(1);

    // The API processes run no jobs: the worker takes the payment's event and completes the checkout.
    const end = Date.now() + 20_000;
    let status = '';
    while (Date.now() < end && status !== 'completed') {
      status = (await step('GET', `/api/v1/checkout/checkouts/${checkout.id}`, shopper)).status;
      if (status !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe('completed');
    expect((await step('GET', `/api/v1/orders/${checkout.order_id}`, admin)).status).toBe('paid');
    expect(served.size).toBe(2);
  });

  it('refuses at once on one process a key revoked, and a store suspended, on the other', async () => {
    const [first, second] = api;
    // Both processes know the key (each has it in its token cache).
    for (const base of api) expect((await call(base, 'GET', '/api/v1/catalog/products', admin)).status).toBe(200);
    expect((await call(first, 'DELETE', `/api/v1/tenants/${tenantId}/api-keys/${adminKeyId}`, platform)).status).toBe(204);
    const refused = await call(second, 'GET', '/api/v1/catalog/products', admin);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHENTICATED');

    for (const base of api) expect((await call(base, 'GET', '/api/v1/catalog/products', shopper)).status).toBe(200);
    expect((await call(second, 'POST', `/api/v1/tenants/${tenantId}/suspend`, platform)).body.data.status).toBe('suspended');
    const suspended = await call(first, 'GET', '/api/v1/catalog/products', shopper);
    expect(suspended.status).toBe(403);
    expect(suspended.body.error.code).toBe('TENANT_SUSPENDED');
  });
});
