import type { QhatuClient } from '@qhatu/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessible, ADDRESS, POLL, startDashboard, type Dashboard } from './helpers.js';

// The pages of plugins that need more than a declared list: wholesale's price lists and quotes, the
// theme editor, a draft's shipping chosen from the store's rates, and the draft-order settings.
let d: Dashboard;
let api: QhatuClient;
let variantId: string;
let company: string;

beforeAll(async () => {
  d = await startDashboard({ build: 'own' });
  ({ api } = d);
  await d.addMember('rosa@inti.pe', ['Rosa', 'Quispe'], 'owner');
  // A member who reads wholesale and themes, and writes nothing.
  await d.addMember('eva@inti.pe', ['Eva', 'Choque'], { name: 'Reader', permissions: ['b2b.read', 'themes.read', 'draft-orders.read'] });
  const product = (await api.POST('/api/v1/catalog/products', { body: { title: 'Chompa de alpaca', status: 'active', variants: [{ title: 'Gris', sku: 'CHOMPA-GRIS', price: 10000, weight_grams: 800 }] } as never })).data;
  variantId = product.variants[0].id;
  const warehouse = (await api.POST('/api/v1/inventory/warehouses', { body: { name: 'Cusco', code: 'CUSCO' } })).data;
  await api.POST('/api/v1/inventory/warehouses/{id}/stock/adjust', { params: { path: { id: warehouse.id } }, body: { variant_id: variantId, delta: 50, reason: 'received' } });
  company = (await api.POST('/api/v1/b2b/customers', { body: { company_name: 'Hotel Sol SAC', ruc: '20100070970', email: 'compras@hotelsol.pe', credit_limit: 1_000_000 } as never })).data.id;
  const rate = { carrier: 'olva', service_code: 'express', currency: 'PEN', estimated_days: 2, origin_country: 'PE', destination_country: 'PE' };
  await api.POST('/shipping/rates', { body: { ...rate, service_name: 'Olva Express', weight_g: 5000, amount: 1500 } });
  await api.POST('/shipping/rates', { body: { ...rate, service_name: 'Olva Express', weight_g: 20_000, amount: 3000 } });
  await api.POST('/shipping/rates', { body: { ...rate, service_code: 'standard', service_name: 'Olva Estándar', estimated_days: 4, weight_g: 20_000, amount: 900 } });
}, 240_000);

afterAll(async () => {
  await d?.close();
});

describe('the dashboard’s pages for plugins', () => {
  it('keeps a price list’s rules, gives the list to a company, and takes a quote priced by it from draft to order', async () => {
    const page = await d.signedIn('rosa@inti.pe');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Wholesale', exact: true }).click();
    await page.getByText('No price list yet.').waitFor();
    const create = page.getByRole('form', { name: 'New price list' });
    await create.getByLabel('Name').fill('Hoteles');
    await create.getByLabel('Currency').fill('pen');
    await create.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('link', { name: 'Hoteles' }).click();
    await page.getByRole('heading', { name: 'Hoteles · PEN' }).waitFor();
    await page.getByText('No rule yet: the list charges catalog prices.').waitFor();

    // A product's rule, then 10 % off everything, put first.
    const rule = page.getByRole('form', { name: 'New rule' });
    await rule.getByLabel('Discount').selectOption('fixed');
    await rule.getByLabel('Amount off (cents)').fill('500');
    await rule.getByLabel('Applies to').selectOption('product');
    await rule.getByRole('searchbox', { name: 'Find a product (Enter)' }).fill('Chompa');
    await rule.getByRole('searchbox', { name: 'Find a product (Enter)' }).press('Enter');
    await expect.poll(() => rule.locator('select[name="product_id"] option').allTextContents(), POLL).toEqual(['Chompa de alpaca']);
    await rule.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('row', { name: /^1 PEN\s5\.00 Product: / }).waitFor();
    await rule.getByLabel('Discount').selectOption('percentage');
    await rule.getByLabel('Percent off').fill('10');
    await rule.getByLabel('Position').fill('1');
    await rule.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('row', { name: '1 10 % Every product' }).waitFor();
    await page.getByRole('row', { name: /^2 PEN\s5\.00 Product: / }).waitFor();
    // Removing the product's rule with the keyboard.
    await page.getByRole('button', { name: 'Remove Rule 2' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('row', { name: /Product: / }).count(), POLL).toBe(0);
    expect((await api.GET('/api/v1/b2b/price-lists', {})).data[0].rules.map((r) => [r.position, r.type, r.value, r.applies_to])).toEqual([[1, 'percentage', 10, 'all']]);
    // A bad rule is refused with the server's reason.
    await rule.getByLabel('Percent off').fill('0');
    await rule.getByLabel('Percent off').evaluate((input) => input.removeAttribute('min'));
    await rule.getByRole('button', { name: 'Add rule' }).click();
    await rule.getByRole('alert').waitFor();

    // The list given to the company.
    await page.getByRole('button', { name: 'Give this list to a company' }).click();
    const give = page.getByRole('form', { name: 'Give this list to a company' });
    await give.getByLabel('Company').selectOption({ label: 'Hotel Sol SAC' });
    await give.getByRole('button', { name: 'Give this list to a company' }).click();
    await page.getByRole('region', { name: 'Companies on this list' }).getByText('Hotel Sol SAC').waitFor();
    await accessible(page, 'wholesale-price-list');

    // A quote: priced through the list, sent, accepted for the company, placed as an order on account.
    await page.getByRole('navigation', { name: 'Wholesale' }).getByRole('link', { name: 'Quotes' }).click();
    await page.getByRole('link', { name: 'New quote' }).click();
    const items = page.getByRole('region', { name: 'Items' });
    await items.getByRole('searchbox', { name: 'Find a product (Enter)' }).fill('Chompa');
    await items.getByRole('searchbox', { name: 'Find a product (Enter)' }).press('Enter');
    const add = items.getByRole('form', { name: 'Add item' });
    await add.getByLabel('Qty').fill('4');
    await add.getByRole('button', { name: 'Add item' }).click();
    await items.getByText(/^4 × Chompa de alpaca/).waitFor();
    const quoteForm = page.getByRole('form', { name: 'New quote' });
    await quoteForm.getByLabel('Company').selectOption({ label: 'Hotel Sol SAC' });
    await quoteForm.getByLabel('Notes').fill('Entrega en Cusco');
    await quoteForm.getByRole('button', { name: 'Create the quote' }).click();
    await page.getByRole('heading', { name: /Quote QT-\d+ draft/ }).waitFor();
    await page.getByRole('row', { name: /Chompa de alpaca.*CHOMPA-GRIS 4 PEN\s100\.00 PEN\s90\.00 PEN\s360\.00/ }).waitFor();
    await page.getByRole('region', { name: 'Summary' }).getByText(/-PEN\s40\.00/).waitFor();
    await accessible(page, 'wholesale-quote-draft');
    await page.getByRole('button', { name: 'Send to the company' }).click();
    await page.getByRole('form', { name: 'Send to the company' }).getByRole('button', { name: 'Send to the company' }).click();
    await page.getByRole('heading', { name: /sent/ }).waitFor();
    await d.mailbox.next((m) => m.to.includes('compras@hotelsol.pe'));
    await page.getByRole('button', { name: 'Record as accepted' }).click();
    await page.getByRole('form', { name: 'Record as accepted' }).getByRole('button', { name: 'Record as accepted' }).click();
    await page.getByRole('heading', { name: /accepted/ }).waitFor();
    await page.getByRole('button', { name: 'Place the order' }).click();
    const convert = page.getByRole('form', { name: 'Place the order' });
    for (const [label, value] of [['First name', ADDRESS.first_name], ['Last name', ADDRESS.last_name], ['Address', ADDRESS.address1], ['City', ADDRESS.city], ['Country (2 letters)', 'pe'], ['Postal code', ADDRESS.zip]]) await convert.getByLabel(label, { exact: true }).fill(value);
    await convert.getByRole('button', { name: 'Place the order' }).click();
    await page.getByRole('heading', { name: /converted/ }).waitFor();
    const [quote] = (await api.GET('/api/v1/b2b/quotes', {})).data;
    expect(quote).toMatchObject({ status: 'converted', b2b_customer_id: company, total: 36000, notes: 'Entrega en Cusco', order_id: expect.any(String) });
    expect((await api.GET('/api/v1/orders/{id}', { params: { path: { id: quote.order_id! } } })).data.line_items).toMatchObject([{ quantity: 4, unit_price_amount: 9000 }]);
    await page.getByRole('link', { name: 'Open the order' }).waitFor();
    await accessible(page, 'wholesale-quote-converted');

    // In the list, by status.
    await page.getByRole('link', { name: '← Quotes' }).click();
    await page.getByLabel('Status').selectOption('converted');
    await page.getByRole('row', { name: new RegExp(`${quote.number} Hotel Sol SAC converted`) }).waitFor();
    await page.close();
  }, 180_000);

  it('edits the live theme’s settings by their kinds, reorders its sections, saves the draft and publishes it', async () => {
    const page = await d.signedIn('rosa@inti.pe');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Theme editor', exact: true }).click();
    await page.getByText('The store has no live theme yet').waitFor();
    const [andes] = (await api.GET('/api/v1/theme-store', {})).data.filter((theme) => theme.name === 'andes');
    await api.POST('/api/v1/theme-store/{id}/install', { params: { path: { id: andes.id } } });
    await api.POST('/api/v1/theme-store/{id}/activate', { params: { path: { id: andes.id } } });
    await page.reload();

    const hero = page.getByRole('group', { name: 'hero · hero' });
    await expect.poll(() => hero.getByLabel('heading', { exact: true }).inputValue(), POLL).toBe('Welcome');
    await hero.getByLabel('heading', { exact: true }).fill('Bienvenidos al Cusco');
    const header = page.getByRole('group', { name: 'header · header' });
    expect(await header.getByLabel('logo width').inputValue()).toBe('120');
    await header.getByLabel('logo width').fill('160');
    await header.getByRole('checkbox', { name: 'sticky' }).uncheck();
    await page.getByRole('group', { name: 'footer · footer' }).getByRole('checkbox', { name: 'Shown' }).uncheck();
    await page.getByRole('button', { name: 'Move featured · featured-collection up' }).click();
    await accessible(page, 'theme-editor');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved.').waitFor();
    const saved = (await api.GET('/admin/themes/draft', {})) as unknown as { section_order: string[]; sections: Record<string, { disabled?: boolean; settings: Record<string, unknown> }> };
    expect(saved.section_order).toEqual(['header', 'featured', 'hero', 'footer']);
    expect(saved.sections.hero.settings.heading).toBe('Bienvenidos al Cusco');
    expect(saved.sections.header.settings).toMatchObject({ logo_width: 160, sticky: false });
    expect(saved.sections.footer.disabled).toBe(true);

    // Markup typed into a plain text is removed by the server; the editor shows what it kept.
    await hero.getByLabel('subheading').fill('<b>Nuevas</b> chompas');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published to the storefront.').waitFor();
    await expect.poll(() => hero.getByLabel('subheading').inputValue(), POLL).toBe('Nuevas chompas');
    const live = (await api.GET('/api/v1/theme', {})) as unknown as { data: { settings: { sections: Record<string, { settings: Record<string, unknown> }> }; published_at: string | null } };
    expect(live.data.published_at).not.toBeNull();
    expect(live.data.settings.sections.hero.settings).toMatchObject({ heading: 'Bienvenidos al Cusco', subheading: 'Nuevas chompas' });
    await page.close();

    // A member who only reads sees the settings without a way to save or publish them.
    const reader = await d.signedIn('eva@inti.pe', { width: 390, height: 844 });
    await reader.goto(`${d.origin}/admin/ui/theme`);
    await expect.poll(() => reader.getByRole('group', { name: 'hero · hero' }).getByLabel('heading', { exact: true }).inputValue(), POLL).toBe('Bienvenidos al Cusco');
    expect(await reader.getByRole('group', { name: 'hero · hero' }).getByLabel('heading', { exact: true }).isDisabled()).toBe(true);
    expect(await reader.getByRole('button', { name: /Save draft|Publish/ }).count()).toBe(0);
    await accessible(reader, 'theme-editor-read-only-phone');
    await reader.close();
  }, 180_000);

  it('chooses a draft’s shipping from the store’s rates to its address, and keeps the draft-order settings', async () => {
    const page = await d.signedIn('rosa@inti.pe');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Draft orders', exact: true }).click();
    await page.getByRole('link', { name: 'New draft order' }).click();
    const start = page.getByRole('form', { name: 'New draft order' });
    await start.getByLabel('E-mail').fill('carmen@example.pe');
    await start.getByRole('button', { name: 'Start the draft' }).click();
    await page.getByRole('heading', { name: /Draft D\d+ open/ }).waitFor();
    const draftId = new URL(page.url()).pathname.split('/').pop()!;
    await api.POST('/api/v1/draft-orders/{id}/line-items', { params: { path: { id: draftId } }, body: { variant_id: variantId, quantity: 2 } as never });
    await page.reload();
    const shipping = page.getByRole('form', { name: 'Shipping', exact: true });
    // Without an address, the rates cannot be chosen.
    await shipping.getByText('Give the shipping address to choose from the store’s rates').waitFor();
    const address = page.getByRole('form', { name: 'Shipping address' });
    for (const [label, value] of [['First name', ADDRESS.first_name], ['Last name', ADDRESS.last_name], ['Address', ADDRESS.address1], ['City', ADDRESS.city], ['Postal code', ADDRESS.zip], ['Country (2 letters)', 'PE']]) await address.getByLabel(label, { exact: true }).fill(value);
    await address.getByRole('button', { name: 'Save' }).click();
    const rates = shipping.getByLabel('Shipping rate');
    await expect.poll(async () => (await rates.locator('option').allTextContents()).map((o) => o.replace(/\s/g, ' ')), POLL).toEqual(['No shipping', 'olva · Olva Estándar · from PEN 9.00, 4 days', 'olva · Olva Express · from PEN 15.00, 2 days']);
    await rates.selectOption({ index: 2 });
    await shipping.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/Shipping: olva · express · PEN\s15\.00/).waitFor();
    expect((await api.GET('/api/v1/draft-orders/{id}', { params: { path: { id: draftId } } })).data).toMatchObject({ shipping: { carrier: 'olva', service: 'express', price: 1500, custom: false }, shipping_total: 1500 });
    await accessible(page, 'draft-shipping-rates');

    // The settings: the storefront page invoice links open.
    await page.getByRole('link', { name: '← Draft orders' }).click();
    await page.getByRole('link', { name: 'Draft-order settings' }).click();
    const settings = page.getByRole('form', { name: 'Draft-order settings' });
    await settings.getByText(/Invoice links work for \d+ days\./).waitFor();
    await settings.getByLabel('Payment page of invoice links').fill('https://inti.pe/pagar/{token}');
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.getByText('Saved').waitFor();
    expect((await api.GET('/api/v1/draft-orders/settings', {})).data).toMatchObject({ invoice_url: 'https://inti.pe/pagar/{token}', invoice_url_is_default: false });
    await accessible(page, 'draft-settings');
    await page.close();

    const reader = await d.signedIn('eva@inti.pe');
    await reader.goto(`${d.origin}/admin/ui/drafts/settings`);
    await expect.poll(() => reader.getByLabel('Payment page of invoice links').inputValue(), POLL).toBe('https://inti.pe/pagar/{token}');
    expect(await reader.getByLabel('Payment page of invoice links').isDisabled()).toBe(true);
    expect(await reader.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await reader.close();
  }, 180_000);
});
