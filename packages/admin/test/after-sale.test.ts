import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createQhatuClient, type QhatuClient } from '@qhatu/client';
import { createTestApp, startMailbox, type Mailbox, type TestApp, type TestTenant } from '@qhatu/core/testing';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../../../starters/full-store/qhatu.config.js';
import { adminUiPlugin } from '../src/index.js';

const PACKAGE = path.resolve(import.meta.dirname, '..');
const ARTIFACTS = path.join(tmpdir(), 'qhatu-test-artifacts', 'admin');
const PASSWORD = 'a long enough secret';
/** How long a poll waits for what the page or the store does in the background (CI shares two cores). */
const POLL = { timeout: 15_000, interval: 200 };
const ADDRESS = { first_name: 'Lucía', last_name: 'Huamán', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' };

/** A port nobody listens on: the store's public address (e-mailed links) must be known before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let t: TestApp;
let mailbox: Mailbox;
let a: TestTenant;
let api: QhatuClient;
let browser: Browser;
let origin: string;
let variantId: string;
let warehouseId: string;
let customerId: string;
/** An order paid and shipped (to be returned), and one awaiting payment (to be edited). */
let shipped: { id: string; number: number; total: number };
let pending: { id: string; number: number; total: number };

async function placeOrder(email: string, quantity: number) {
  const placed = (await api.POST('/api/v1/orders', { body: { customer_email: email, line_items: [{ variant_id: variantId, quantity }], shipping_address: ADDRESS } })).data;
  return { id: placed.id, number: placed.number, total: placed.total };
}

beforeAll(async () => {
  // The dashboard built by Vite into a folder of this file's own (another test file may be building
  // the package's dist/ui meanwhile), and the full store on PostgreSQL serving it.
  const built = mkdtempSync(path.join(tmpdir(), 'qhatu-admin-ui-'));
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  mailbox = await startMailbox();
  const [, app] = await Promise.all([
    promisify(execFile)('pnpm', ['exec', 'vite', 'build', '--config', 'ui/vite.config.ts', '--outDir', built], { cwd: PACKAGE }),
    createTestApp({ plugins: [...project.plugins.filter((p) => p.name !== 'admin'), adminUiPlugin({ root: built })], workers: true, env: { QHATU_PUBLIC_URL: origin, SMTP_URL: mailbox.url } }),
  ]);
  t = app;
  a = await t.createTenant({ name: 'Tienda Inti', currency: 'PEN' });
  await t.app.http.listen({ port, host: '127.0.0.1' });
  api = createQhatuClient({ baseUrl: origin, token: a.adminToken, tenantId: a.id });

  // An owner, and a member of the sales desk who reads orders and drafts only.
  const roles = (await api.GET('/api/v1/roles', { params: { query: { limit: 100 } } })).data;
  await api.POST('/api/v1/staff', { body: { email: 'rosa@inti.pe', first_name: 'Rosa', last_name: 'Quispe', role_id: roles.find((r) => r.name === 'owner')!.id, password: PASSWORD } });
  const desk = (await api.POST('/api/v1/roles', { body: { name: 'Sales desk', permissions: ['orders.read', 'draft-orders.read'] } })).data;
  await api.POST('/api/v1/staff', { body: { email: 'pedro@inti.pe', first_name: 'Pedro', last_name: 'Ccori', role_id: desk.id, password: PASSWORD } });

  // A product in stock, an offline payment method, a customer account.
  const product = (await api.POST('/api/v1/catalog/products', { body: { title: 'Chompa de alpaca', status: 'active', variants: [{ title: 'Gris', sku: 'CHOMPA-GRIS', price: 15900 }] } as never })).data;
  variantId = product.variants[0].id;
  warehouseId = (await api.POST('/api/v1/inventory/warehouses', { body: { name: 'Cusco', code: 'CUSCO' } })).data.id;
  await api.POST('/api/v1/inventory/warehouses/{id}/stock/adjust', { params: { path: { id: warehouseId } }, body: { variant_id: variantId, delta: 20, reason: 'received' } });
  await api.PUT('/api/v1/payments/gateways/{id}', { params: { path: { id: 'offline' } }, body: { enabled: true } });
  const method = (await api.POST('/api/v1/payments/offline/methods', { body: { name: 'Yape', kind: 'wallet', instructions: 'Yape al 999 888 777', currencies: ['PEN'], enabled: true, position: 0 } })).data;
  customerId = (await api.POST('/api/v1/customers', { body: { email: 'carmen@example.pe', first_name: 'Carmen', last_name: 'Apaza' } })).data.id;

  // The order to return: paid by its offline receipt, then shipped whole.
  shipped = await placeOrder('lucia@example.pe', 2);
  const payment = (await api.POST('/api/v1/payments', { body: { order_id: shipped.id, gateway: 'offline', amount: shipped.total, currency: 'PEN', method_id: method.id } as never })).data;
  await api.POST('/api/v1/payments/offline/receipts', { body: { payment_id: payment.id, amount: shipped.total, reference: 'Yape op. 1' } });
  // The receipt pays the order in the background.
  for (let tries = 0; (await api.GET('/api/v1/orders/{id}', { params: { path: { id: shipped.id } } })).data.status !== 'paid'; tries++) {
    if (tries > 75) throw new Error('the order was not paid by its receipt');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await api.POST('/api/v1/orders/{id}/fulfillments', { params: { path: { id: shipped.id } }, body: { carrier: 'Olva', tracking_number: 'OLVA-9' } });

  // The order to edit: placed, awaiting payment.
  pending = await placeOrder('jorge@example.pe', 1);

  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await mailbox?.close();
});

/** axe-core in the page: no serious or critical violation; then a screenshot kept as an artifact. */
async function accessible(page: Page, name: string): Promise<void> {
  // Evaluated through the browser's protocol: the page's CSP (script-src 'self') would refuse an injected script tag.
  await page.evaluate(axe.source);
  const found = await page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
  expect(found, name).toEqual([]);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${origin}/admin/ui/`);
  await page.getByLabel('Store ID').fill(a.id);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

async function ownerPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
  await signIn(page, 'rosa@inti.pe');
  return page;
}

describe('the dashboard after the sale: draft orders, order edits, returns, store credit', () => {
  it('builds a draft order with a catalog item, a custom item and an address, marks it paid by an offline method, which places its order', async () => {
    const page = await ownerPage();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(expect.arrayContaining(['Orders', 'Draft orders', 'Returns']));
    await nav.getByRole('link', { name: 'Draft orders', exact: true }).click();
    await page.getByText('No draft order yet.').waitFor();
    await accessible(page, 'drafts-empty');

    await page.getByRole('link', { name: 'New draft order' }).click();
    const start = page.getByRole('form', { name: 'New draft order' });
    await start.getByLabel('E-mail').fill('carmen@example.pe');
    await start.getByRole('button', { name: 'Start the draft' }).click();
    await page.getByRole('heading', { name: /Draft D\d+ open/ }).waitFor();
    await page.getByText('No items yet').waitFor();

    // A catalog item, found by its product, at the customer's price.
    await page.getByRole('searchbox', { name: 'Find a product (Enter)' }).fill('Chompa');
    await page.getByRole('searchbox', { name: 'Find a product (Enter)' }).press('Enter');
    const add = page.getByRole('form', { name: 'Add item' });
    await expect.poll(() => add.locator('select[name="variant_id"] option').allTextContents(), POLL).toEqual([expect.stringMatching(/^Chompa de alpaca · Gris \(CHOMPA-GRIS\)/)]);
    await add.getByLabel('Qty').fill('2');
    await add.getByRole('button', { name: 'Add item' }).click();
    await page.getByRole('row', { name: /Chompa de alpaca Gris CHOMPA-GRIS/ }).waitFor();

    // A custom item, then the quantity of the catalog one changed from the keyboard.
    await page.getByRole('button', { name: 'Add custom item' }).click();
    const custom = page.getByRole('form', { name: 'Add custom item' });
    await custom.getByLabel('Title').fill('Bordado a mano');
    await custom.getByLabel('Unit price (cents)').fill('3000');
    await custom.getByRole('button', { name: 'Add custom item' }).click();
    await page.getByRole('row', { name: /Bordado a mano \(custom\)/ }).waitFor();
    const quantity = page.getByRole('spinbutton', { name: 'Qty Chompa de alpaca' });
    await quantity.fill('3');
    await quantity.press('Enter');
    // Every change prices the whole draft again: 3 × 159.00 + 30.00.
    await page.getByRole('region', { name: 'Summary' }).getByText(/507\.00/).first().waitFor();

    // The shipping address.
    const address = page.getByRole('form', { name: 'Shipping address' });
    for (const [label, value] of [['First name', 'Carmen'], ['Last name', 'Apaza'], ['Address', 'Jr. Puno 456'], ['City', 'Cusco'], ['Postal code', '08002'], ['Country (2 letters)', 'pe']]) await address.getByLabel(label, { exact: true }).fill(value);
    await address.getByRole('button', { name: 'Save' }).click();
    await address.getByText('Saved').waitFor();
    const [draft] = (await api.GET('/api/v1/draft-orders', { params: { query: { q: 'carmen@example.pe' } as never } })).data;
    expect(draft).toMatchObject({ status: 'open', email: 'carmen@example.pe', subtotal: 3 * 15900 + 3000, shipping_address: { city: 'Cusco', country_code: 'PE' } });
    expect(draft.line_items.map((l) => [l.title, l.quantity, l.unit_price])).toEqual([['Chompa de alpaca', 3, 15900], ['Bordado a mano', 1, 3000]]);
    await accessible(page, 'draft-open');

    // Marked paid by Yape: the order is placed and paid at once.
    await page.getByRole('button', { name: 'Mark as paid' }).click();
    const paid = page.getByRole('form', { name: 'Mark as paid' });
    await paid.getByLabel('Payment method').selectOption({ label: 'Yape' });
    await paid.getByLabel('Reference').fill('Yape op. 7781');
    await paid.getByRole('button', { name: 'Mark as paid' }).click();
    await page.getByRole('heading', { name: /Draft D\d+ completed/ }).waitFor();
    const done = (await api.GET('/api/v1/draft-orders/{id}', { params: { path: { id: draft.id } } })).data;
    expect(done.order_id).not.toBeNull();
    const order = (await api.GET('/api/v1/orders/{id}', { params: { path: { id: done.order_id! } } })).data;
    expect(order).toMatchObject({ customer_email: 'carmen@example.pe', total: done.total });
    // The receipt recorded with it pays the order in the background.
    await expect.poll(async () => (await api.GET('/api/v1/orders/{id}', { params: { path: { id: order.id } } })).data.amount_paid, POLL).toBe(done.total);
    const [payment] = (await api.GET('/api/v1/payments', { params: { query: { 'filter[order_id]': order.id } } })).data;
    expect(payment).toMatchObject({ gateway: 'offline', amount: done.total });
    await accessible(page, 'draft-completed');
    await page.getByRole('link', { name: 'Its order' }).click();
    await page.getByRole('heading', { name: new RegExp(`Order #${order.number}`) }).waitFor();

    // The list finds it by its number, filtered by status.
    await nav.getByRole('link', { name: 'Draft orders', exact: true }).click();
    await page.getByLabel('Status').selectOption('completed');
    await page.getByRole('searchbox', { name: 'Search' }).fill(done.name);
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await page.getByRole('row', { name: new RegExp(`${done.name} carmen@example\\.pe completed`) }).waitFor();
    await accessible(page, 'drafts');
    await page.close();
  }, 150_000);

  it('edits an order awaiting payment: a preview with the new totals, then confirmed as its first version', async () => {
    const page = await ownerPage();
    await page.goto(`${origin}/admin/ui/orders/${pending.id}`);
    const edits = page.getByRole('region', { name: 'Edits and versions' });
    await edits.getByText('This order was never edited.').waitFor();
    await edits.getByRole('button', { name: 'Edit this order' }).click();
    await edits.getByRole('spinbutton', { name: /Chompa de alpaca · Gris/ }).fill('2');
    await edits.getByRole('button', { name: 'Preview' }).click();
    const preview = edits.getByRole('region', { name: /Preview/ });
    const figure = (cents: number) => (cents / 100).toFixed(2).replace('.', '\\.');
    await preview.getByRole('row', { name: new RegExp(`^Total .*${figure(pending.total)}.*${figure(pending.total * 2)}$`) }).waitFor();
    await accessible(page, 'order-edit-preview');
    // Nothing changed yet.
    expect((await api.GET('/api/v1/orders/{id}', { params: { path: { id: pending.id } } })).data.line_items[0].quantity).toBe(1);
    await preview.getByRole('checkbox', { name: 'E-mail the customer the payment link' }).uncheck();
    await preview.getByRole('button', { name: 'Confirm edit' }).click();
    await edits.getByRole('row', { name: /^1 confirmed/ }).waitFor();
    const order = (await api.GET('/api/v1/orders/{id}', { params: { path: { id: pending.id } } })).data;
    expect(order.line_items[0].quantity).toBe(2);
    expect(order.total).toBe(pending.total * 2);
    const versions = (await api.GET('/api/v1/orders/{id}/edits', { params: { path: { id: pending.id } } })).data;
    expect(versions).toMatchObject([{ status: 'confirmed', version: 1, difference: pending.total }]);
    await accessible(page, 'order-edited');
    await page.close();
  }, 120_000);

  it('takes a return from the order page through approval, receipt into a warehouse and the refund; manages the return reasons', async () => {
    const page = await ownerPage();
    const nav = page.getByRole('navigation', { name: 'Main' });

    // A reason to offer, added on the reasons page.
    await nav.getByRole('link', { name: 'Returns', exact: true }).click();
    await page.getByText('No return yet.').waitFor();
    await page.getByRole('navigation', { name: 'Returns sections' }).getByRole('link', { name: 'Return reasons' }).click();
    const reason = page.getByRole('form', { name: 'New return reason' });
    await reason.getByLabel('Code').fill('wrong_size');
    await reason.getByLabel('Label').fill('Wrong size');
    await reason.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('row', { name: /wrong_size Wrong size Yes/ }).waitFor();
    await accessible(page, 'return-reasons');

    // Asked for from the shipped order: one of its two units.
    await page.goto(`${origin}/admin/ui/orders/${shipped.id}`);
    const returns = page.getByRole('region', { name: 'Returns of this order' });
    await returns.getByRole('button', { name: 'Ask for a return' }).click();
    const ask = returns.getByRole('form', { name: 'Ask for a return' });
    await ask.getByRole('spinbutton', { name: /Chompa de alpaca · Gris/ }).fill('1');
    await expect.poll(() => ask.locator('select[name="reason_code"] option').allTextContents(), POLL).toEqual(['Wrong size']);
    await ask.getByRole('button', { name: 'Ask for a return' }).click();
    await returns.getByRole('row', { name: /R\d+ Return requested/ }).getByRole('link').click();

    // Approved, received into Cusco, refunded through the order's own payment.
    await page.getByRole('heading', { name: /Return R\d+ requested/ }).waitFor();
    await accessible(page, 'return-requested');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('form', { name: 'Approve' }).getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: /approved/ }).waitFor();
    const receive = page.getByRole('form', { name: 'Receive items' });
    await receive.getByLabel('Units received').fill('1');
    await receive.getByLabel('Warehouse').selectOption({ label: 'Cusco' });
    await receive.getByRole('button', { name: 'Receive items' }).click();
    await page.getByRole('heading', { name: /received/ }).waitFor();
    await page.getByRole('row', { name: /CHOMPA-GRIS 1 1 \(1 restocked, 0 written off\)/ }).waitFor();
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('form', { name: 'Refund' }).getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('heading', { name: /refunded/ }).waitFor();
    await accessible(page, 'return-refunded');

    const [ret] = (await api.GET('/api/v1/returns', { params: { query: { 'filter[order_id]': shipped.id } as never } })).data;
    expect(ret).toMatchObject({ status: 'refunded', refund_method: 'original_payments', lines: [{ quantity: 1, received_quantity: 1, restocked_quantity: 1, warehouse_id: warehouseId }] });
    expect(ret.refund_amount).toBeGreaterThan(0);
    expect(ret.refunds.reduce((sum, r) => sum + r.amount, 0)).toBe(ret.refund_amount);
    await expect.poll(async () => (await api.GET('/api/v1/orders/{id}', { params: { path: { id: shipped.id } } })).data.amount_refunded, POLL).toBe(ret.refund_amount);
    const [level] = (await api.GET('/api/v1/inventory/warehouses/{id}/stock', { params: { path: { id: warehouseId }, query: { 'filter[variant_id]': variantId } } })).data;
    // 20 received, 2 shipped and 1 back (the edited order holds 2 more, not yet shipped).
    expect(level.on_hand).toBe(19);

    // The list, filtered by status.
    await nav.getByRole('link', { name: 'Returns', exact: true }).click();
    await page.getByLabel('Status').selectOption('refunded');
    await page.getByRole('row', { name: new RegExp(`${ret.name} lucia@example\\.pe Return refunded`) }).waitFor();
    await accessible(page, 'returns');
    await page.close();
  }, 150_000);

  it('gives a customer store credit with a reason and refuses taking back more than the balance', async () => {
    const page = await ownerPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers', exact: true }).click();
    await page.getByRole('link', { name: 'carmen@example.pe' }).click();
    const credit = page.getByRole('region', { name: 'Store credit' });
    await credit.getByText('No store credit yet.').waitFor();
    const adjust = credit.getByRole('form', { name: 'Adjust store credit' });
    await adjust.getByLabel('Currency').fill('PEN');
    await adjust.getByLabel('Amount (cents)').fill('2500');
    await adjust.getByLabel('Reason').fill('Compensación por la demora');
    await adjust.getByRole('button', { name: 'Save adjustment' }).click();
    await credit.getByText(/Balance \(PEN\)/).waitFor();
    await credit.getByRole('row', { name: /grant .*25\.00 .*25\.00 Compensación por la demora/ }).waitFor();
    await accessible(page, 'customer-store-credit');

    // Taking back more than there is: refused, nothing changes.
    await adjust.getByLabel('Movement').selectOption('deduct');
    await adjust.getByLabel('Currency').fill('PEN');
    await adjust.getByLabel('Amount (cents)').fill('5000');
    await adjust.getByLabel('Reason').fill('Error');
    await adjust.getByRole('button', { name: 'Save adjustment' }).click();
    await adjust.getByRole('alert').waitFor();
    const balances = (await api.GET('/api/v1/store-credit/customers/{customer_id}', { params: { path: { customer_id: customerId } } })).data.balances;
    expect(balances).toMatchObject([{ currency: 'PEN', balance: 2500 }]);
    const entries = (await api.GET('/api/v1/store-credit/customers/{customer_id}/entries', { params: { path: { customer_id: customerId } } })).data;
    expect(entries).toMatchObject([{ kind: 'grant', amount: 2500, balance_after: 2500, reason: 'Compensación por la demora' }]);
    await page.close();
  }, 120_000);

  it('adds a wholesale company, a price list and a vendor from their pages, and activates the vendor', async () => {
    const page = await ownerPage();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Wholesale companies', exact: true }).click();
    const company = page.getByRole('form', { name: 'Add company' });
    await company.getByLabel('Company').fill('Hotel Sol SAC');
    await company.getByLabel('RUC').fill('20100070970');
    await company.getByLabel('E-mail').fill('compras@hotelsol.pe');
    await company.getByLabel('Credit limit (cents)').fill('500000');
    await company.getByRole('button', { name: 'Add company' }).click();
    await page.getByRole('row', { name: /Hotel Sol SAC 20100070970 compras@hotelsol\.pe 500000 active/ }).waitFor();
    await accessible(page, 'wholesale-companies');

    await nav.getByRole('link', { name: 'Price lists', exact: true }).click();
    const list = page.getByRole('form', { name: 'Add price list' });
    await list.getByLabel('Name').fill('Hoteles');
    await list.getByLabel('Currency').fill('PEN');
    await list.getByRole('button', { name: 'Add price list' }).click();
    await page.getByRole('row', { name: /Hoteles PEN/ }).waitFor();

    await nav.getByRole('link', { name: 'Vendors', exact: true }).click();
    const vendor = page.getByRole('form', { name: 'Add vendor' });
    await vendor.getByLabel('Vendor').fill('Tejidos Q’ero');
    await vendor.getByLabel('E-mail').fill('qero@example.pe');
    await vendor.getByLabel('Country').fill('PE');
    await vendor.getByLabel('Commission %').fill('12.5');
    await vendor.getByRole('button', { name: 'Add vendor' }).click();
    await page.getByRole('row', { name: /Tejidos Q’ero qero@example\.pe PE 12\.5 pending/ }).getByRole('button', { name: 'Activate' }).click();
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('row', { name: /Tejidos Q’ero .* active/ }).waitFor();
    expect((await api.GET('/api/v1/marketplace/vendors', {})).data).toMatchObject([{ name: 'Tejidos Q’ero', status: 'active', default_commission_pct: 12.5 }]);
    expect((await api.GET('/api/v1/b2b/customers', {})).data).toMatchObject([{ company_name: 'Hotel Sol SAC', credit_limit: 500000 }]);
    await accessible(page, 'marketplace-vendors-active');
    await page.close();
  }, 120_000);

  it('shows a member who only reads drafts the drafts, without the means to change them', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    page.setDefaultTimeout(15_000);
    await signIn(page, 'pedro@inti.pe');
    await page.getByRole('button', { name: 'Menu' }).click();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Home', 'Orders', 'Draft orders']);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Draft orders', exact: true }).click();
    await page.getByRole('row', { name: /carmen@example\.pe completed/ }).getByRole('link').click();
    await page.getByRole('heading', { name: /Draft D\d+ completed/ }).waitFor();
    expect(await page.getByRole('button').allTextContents()).toEqual(['Menu', 'Sign out']);
    await accessible(page, 'draft-narrow-phone');
    await page.goto(`${origin}/admin/ui/returns`);
    await page.getByRole('alert').getByText('Your role does not allow this page.').waitFor();
    await page.close();
  });
});
