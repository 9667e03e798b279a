import type { QhatuClient } from '@qhatu/client';
import { CulqiDouble } from '@qhatu/plugin-gateway-culqi/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, accessible, POLL, startDashboard, type Dashboard } from './helpers.js';

let d: Dashboard;
let culqi: CulqiDouble;
/** The store's Culqi account at the double (a gateway that cannot repeat a refund). */
const CULQI = { secret_key: 'sk_test_admin0001', public_key: 'pk_test_admin0001', webhook_username: 'qhatu-admin', webhook_password: 'a webhook password' };
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
  culqi = await new CulqiDouble(new Set([CULQI.secret_key])).start();
  d = await startDashboard({ build: 'own', env: { QHATU_GATEWAY_CULQI_BASE_URL: culqi.url } });
  ({ api, browser, origin } = d);

  // An owner, and a member of the sales desk who reads orders and drafts only.
  await d.addMember('rosa@inti.pe', ['Rosa', 'Quispe'], 'owner');
  await d.addMember('pedro@inti.pe', ['Pedro', 'Ccori'], { name: 'Sales desk', permissions: ['orders.read', 'draft-orders.read'] });

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
}, 240_000);

afterAll(async () => {
  await d?.close();
  await culqi?.close();
});

const signIn = (page: Page, email: string) => d.signIn(page, email);
const ownerPage = () => d.signedIn('rosa@inti.pe');

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
    // Searched by the customer's e-mail, by the order's number (Enter in the box), and for nobody.
    await page.getByLabel('Status').selectOption('');
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('lucia');
    await search.press('Enter');
    await page.getByRole('row', { name: new RegExp(`${ret.name} lucia@example\\.pe`) }).waitFor();
    await search.fill(`#${shipped.number}`);
    await search.press('Enter');
    await page.getByRole('row', { name: new RegExp(`${ret.name} lucia@example\\.pe`) }).waitFor();
    await search.fill('nadie');
    await search.press('Enter');
    await page.getByText('No return yet.').waitFor();
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

    await nav.getByRole('link', { name: 'Wholesale', exact: true }).click();
    const list = page.getByRole('form', { name: 'New price list' });
    await list.getByLabel('Name').fill('Hoteles');
    await list.getByLabel('Currency').fill('PEN');
    await list.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('row', { name: /Hoteles PEN 0/ }).waitFor();

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

  it("settles a refund whose answer Culqi lost: shown unconfirmed, recorded refunded with Culqi's id from the order page", async () => {
    await api.PUT('/api/v1/payments/gateways/{id}', { params: { path: { id: 'culqi' } }, body: { credentials: CULQI } as never });
    const order = await placeOrder('ana@example.pe', 1);
    const paid = (await api.POST('/api/v1/payments', { body: { order_id: order.id, gateway: 'culqi', amount: order.total, currency: 'PEN', token_id: 'tkn_test_visa', email: 'ana@example.pe' } as never })).data;
    expect(paid).toMatchObject({ status: 'paid' });
    await expect.poll(async () => (await api.GET('/api/v1/orders/{id}', { params: { path: { id: order.id } } })).data!.status, POLL).toBe('paid');
    // Culqi refunds, and the answer never arrives: the refund stays pending, its amount held.
    culqi.loseAnswers(1, (req) => req.method === 'POST' && req.url === '/v2/refunds');
    const lost = (await api.POST('/api/v1/payments/{id}/refund', { params: { path: { id: paid.id } }, body: { amount: 0 } })).data!;
    expect(lost).toMatchObject({ status: 'pending', unconfirmed: true });
    const [atCulqi] = [...culqi.refunds.values()];

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    await signIn(page, 'rosa@inti.pe');
    await page.goto(`${origin}/admin/ui/orders/${order.id}`);
    const refunds = page.getByRole('list', { name: 'Refunds' });
    await refunds.getByText(/Unconfirmed: the provider's answer was lost/).waitFor();
    // Nothing is left to refund meanwhile (the amount is held): no refund button.
    expect(await page.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
    await accessible(page, 'refund-unconfirmed');
    await refunds.getByRole('button', { name: 'Record as refunded' }).click();
    await page.getByLabel("The provider's refund id (optional)").fill(atCulqi.id);
    await page.getByRole('form', { name: 'Record as refunded' }).getByRole('button', { name: 'Record as refunded' }).click();
    await page.getByRole('heading', { name: /refunded/ }).waitFor();
    await refunds.getByText(/Unconfirmed/).waitFor({ state: 'detached' });
    expect(await refunds.getByRole('button').count()).toBe(0);
    const [payment] = (await api.GET('/api/v1/payments', { params: { query: { 'filter[order_id]': order.id } } })).data;
    expect(payment).toMatchObject({ status: 'refunded', refunded_amount: order.total, refunds: [{ status: 'refunded', provider_refund_id: atCulqi.id, unconfirmed: false }] });
    expect([...culqi.refunds.values()]).toHaveLength(1);
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
