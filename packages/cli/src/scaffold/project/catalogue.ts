/** A plugin `qhatu new` can put in a store: its package, and how qhatu.config.ts imports and lists it. */
export interface CataloguePlugin {
  /** The plugin's name (`definePlugin({ name })`), as `--plugins` takes it. */
  name: string;
  package: string;
  /** The import line's bindings: `media` (default import) or `{ STARTER_THEMES, themesPlugin }`. */
  binding: string;
  /** What goes in the plugins list. */
  expression: string;
  dependsOn: string[];
}

const plugin = (name: string, pkg: string, binding: string, dependsOn: string[] = [], expression = binding): CataloguePlugin => ({
  name,
  package: `@qhatu/${pkg}`,
  binding,
  expression,
  dependsOn,
});

/** Every plugin of the platform, in the order of the full-store starter (a test keeps the two equal). */
export const CATALOGUE: readonly CataloguePlugin[] = [
  plugin('media', 'plugin-media', 'media'),
  plugin('catalog', 'plugin-catalog', 'catalog', ['media']),
  plugin('customers', 'plugin-customers', 'customers'),
  plugin('inventory', 'plugin-inventory', 'inventory', ['catalog']),
  plugin('discounts', 'plugin-discounts', 'discounts', ['catalog']),
  plugin('orders', 'plugin-orders', 'orders', ['catalog', 'customers', 'inventory']),
  plugin('taxes', 'plugin-taxes', 'taxes', ['catalog', 'orders']),
  plugin('shipping', 'plugin-shipping', 'shipping', ['orders']),
  plugin('checkout', 'plugin-checkout', 'checkout', ['catalog', 'customers', 'discounts', 'orders']),
  plugin('abandoned-carts', 'plugin-abandoned-carts', 'abandonedCarts', ['checkout']),
  plugin('payments', 'plugin-payments', 'payments', ['orders']),
  plugin('stripe', 'plugin-gateway-stripe', 'stripe', ['payments']),
  plugin('culqi', 'plugin-gateway-culqi', 'culqi', ['payments']),
  plugin('mercadopago', 'plugin-gateway-mercadopago', 'mercadopago', ['payments']),
  plugin('niubiz', 'plugin-gateway-niubiz', 'niubiz', ['payments']),
  plugin('izipay', 'plugin-gateway-izipay', 'izipay', ['payments']),
  plugin('payme', 'plugin-gateway-payme', 'payme', ['payments']),
  plugin('paypal', 'plugin-gateway-paypal', 'paypal', ['payments']),
  plugin('offline', 'plugin-gateway-offline', 'offline', ['payments']),
  plugin('store-credit', 'plugin-store-credit', 'storeCredit', ['customers', 'orders', 'payments']),
  plugin('webhooks', 'plugin-webhooks', 'webhooks'),
  plugin('blog', 'plugin-blog', 'blog'),
  plugin('themes', 'plugin-themes', '{ STARTER_THEMES, themesPlugin }', [], 'themesPlugin({ seed: STARTER_THEMES })'),
  plugin('reviews', 'plugin-reviews', 'reviews', ['catalog', 'customers', 'orders']),
  plugin('crm', 'plugin-crm', 'crm'),
  plugin('b2b', 'plugin-b2b', 'b2b', ['catalog', 'customers', 'orders']),
  plugin('marketplace', 'plugin-marketplace', 'marketplace', ['catalog', 'orders']),
  plugin('draft-orders', 'plugin-draft-orders', 'draftOrders', ['catalog', 'customers', 'discounts', 'orders']),
  plugin('order-edits', 'plugin-order-edits', 'orderEdits', ['catalog', 'discounts', 'orders']),
  plugin('returns', 'plugin-returns', 'returns', ['catalog', 'customers', 'inventory', 'orders']),
  plugin('admin', 'admin', '{ adminUiPlugin }', [], 'adminUiPlugin()'),
];

/** The plugins asked for plus everything they depend on, in catalogue order; `added` names what came as a dependency. */
export function choosePlugins(names: string[]): { plugins: CataloguePlugin[]; added: string[] } {
  const byName = new Map(CATALOGUE.map((p) => [p.name, p]));
  const chosen = new Set<string>();
  const visit = (name: string) => {
    if (chosen.has(name)) return;
    chosen.add(name);
    for (const dep of byName.get(name)!.dependsOn) visit(dep);
  };
  for (const name of names) visit(name);
  return { plugins: CATALOGUE.filter((p) => chosen.has(p.name)), added: [...chosen].filter((n) => !names.includes(n)).sort() };
}
