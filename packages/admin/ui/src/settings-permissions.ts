/**
 * The permissions any of which opens the settings (a module of its own: the shell reads it
 * without loading the settings' chunk).
 */
export const SETTINGS_PERMISSIONS = ['store.read', 'store.manage', 'locales.manage', 'currencies.manage', 'markets.manage', 'customers.settings', 'taxes.read', 'shipping.read', 'payments.read', 'webhooks.read'];
