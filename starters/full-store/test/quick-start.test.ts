import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestApp, type TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import project from '../qhatu.config.js';

// The README's quick start, run as a reader runs it: its shell block through bash and curl against
// a store on a real port. Where the reader copies a value from an answer (`TENANT=<the id above>`),
// the value is taken from the last answer by what the placeholder says.
const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** What each placeholder of the README means, as a path into the last answer. */
const PLACEHOLDERS: Record<string, string> = {
  'the id above': 'data.id',
  'the token above': 'data.token',
  'the id of its variant (data.variants[0].id)': 'data.variants[0].id',
  'its order_id; status payment_pending': 'data.order_id',
  'the id above; status pending': 'data.id',
};
/** Values the reader reads off an earlier answer, inside a request body. */
const INLINE: Record<string, string> = { "the order's total": 'TOTAL', 'the same total': 'TOTAL' };

let t: TestApp;
let base: string;
let dir: string;
beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins, workers: true });
  base = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  dir = await mkdtemp(path.join(tmpdir(), 'qhatu-quick-start-'));
  await mkdir(path.join(dir, '.qhatu'));
  await writeFile(path.join(dir, '.qhatu/platform-token'), `${t.platformToken}\n`);
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The quick start's first shell block that talks to the store, made runnable. */
function script(): string {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf('## Start a store');
  const block = /```sh\n(QHATU=[\s\S]*?)```/.exec(readme.slice(start))![1];
  const lines = block.split('\n').map((line) => {
    const assigned = /^(\w+)=<(.+)>$/.exec(line);
    if (assigned) {
      const where = PLACEHOLDERS[assigned[2]];
      if (!where) throw new Error(`The README's placeholder <${assigned[2]}> means nothing to this test: add it to PLACEHOLDERS`);
      // The order's total is read off the same answer as its id.
      const total = assigned[1] === 'ORDER' ? '\nTOTAL=$(pick data.total)' : '';
      return `${assigned[1]}=$(pick ${where})${total}`;
    }
    return line.replace(/<([^<>]+)>/g, (whole, text: string) => (INLINE[text] ? `'"$${INLINE[text]}"'` : whole));
  });
  return [
    'set -euo pipefail',
    // Every curl keeps its answer (and fails on an HTTP error) so that the next line can read it.
    'curl() { command curl --fail-with-body "$@" > "$ANSWER"; cat "$ANSWER"; echo; }',
    'pick() { node -e \'const v = process.argv[1].split(/[.[\\]]+/).filter(Boolean).reduce((o, k) => o?.[k], JSON.parse(require("fs").readFileSync(process.env.ANSWER, "utf8"))); if (v === undefined) { console.error("no " + process.argv[1] + " in the answer"); process.exit(1); } console.log(v)\' "$1"; }',
    ...lines,
    'echo "ORDER_ID=$ORDER CHECKOUT_ID=$CHECKOUT"',
  ].join('\n');
}

it('runs the README quick start, from a new store to a checkout paid by bank transfer', async () => {
  const port = new URL(base).port;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', ['-c', script()], { cwd: dir, env: { ...process.env, PORT: port, ANSWER: path.join(dir, 'answer.json') } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  const [, orderId, checkoutId] = /ORDER_ID=(\S+) CHECKOUT_ID=(\S+)/.exec(run.stdout)!;
  const tenantId = /"tenant_id":"([0-9a-f-]{36})"/.exec(run.stdout)?.[1] ?? /"id":"([0-9a-f-]{36})","name":"Andean Crafts"/.exec(run.stdout)?.[1];
  expect(tenantId).toBeDefined();
  // The receipt paid the payment; the jobs then pay the order and complete the checkout.
  await t.settle();
  // The order is paid, and holds 2 of the 10 scarves received.
  const key = /"token":"([^"]+)"/.exec(run.stdout)![1];
  const headers = { authorization: `Bearer ${key}`, 'x-tenant-id': tenantId! };
  const order = (await t.request({ method: 'GET', url: `/api/v1/orders/${orderId}`, headers })).json().data;
  expect(order.status).toBe('paid');
  expect(order.amount_paid).toBe(order.total);
  expect((await t.request({ method: 'GET', url: `/api/v1/checkout/checkouts/${checkoutId}`, headers })).json().data.status).toBe('completed');
  const products = (await t.request({ method: 'GET', url: '/api/v1/catalog/products', headers })).json().data;
  expect(products[0].variants[0].inventory_quantity).toBe(8);
}, 60_000);
