import { CONFIG, definePlugin, Jobs, type QhatuConfig } from '@qhatu/core';
import { AccountLink } from './entities/account-link.js';
import { CustomerAddress } from './entities/address.js';
import { CustomerCredential } from './entities/credential.js';
import { Customer } from './entities/customer.js';
import { CustomerStoreSettings } from './entities/store-settings.js';
import { profileGraphQL } from './graphql/profile.js';
import { customerMachine } from './machines/customer.js';
import { customersMigration } from './migrations/0001_customers.js';
import { accountLinksMigration } from './migrations/0002_account_links.js';
import { customersSearchMigration } from './migrations/0003_search.js';
import { customersCustomFieldsMigration } from './migrations/0004_custom_fields.js';
import { customersLocaleMigration } from './migrations/0005_locale.js';
import { addressRoutes } from './routes/addresses.js';
import { customerAuthRoutes } from './routes/auth.js';
import { customerRoutes } from './routes/customers.js';
import { settingsRoutes } from './routes/settings.js';
import { AccountLinks } from './services/account-links.js';
import { ACCOUNT_MAILS } from './services/account-mail.js';
import { CustomerAccounts } from './services/accounts.js';
import { CustomerAddresses } from './services/addresses.js';
import { CUSTOMER_EVENTS, Customers } from './services/customers.js';
import { Passwords } from './services/passwords.js';
import { CUSTOMER_SETTINGS, readSettings, type CustomerSettings } from './services/settings.js';
import { SPENT_LINKS_JOB, SpentLinks } from './services/spent-links.js';
import { StoreSettings } from './services/store-settings.js';

export { Customer, CUSTOMER_STATUSES, type CustomerStatus } from './entities/customer.js';
export { CustomerAddress } from './entities/address.js';
export { Customers, customerByEmailSql, customerEvent, listedLocale } from './services/customers.js';
export { CustomerAddresses } from './services/addresses.js';
export { CustomerAccounts, type CustomerSession, type Registration } from './services/accounts.js';
export { REGISTRATION_MODES, type RegistrationMode } from './entities/store-settings.js';
export { customerOut, addressOut } from './routes/serialize.js';

/** Customers: records, address books and customer accounts (register, login, profile). */
export default definePlugin({
  name: 'customers',
  entities: [Customer, CustomerCredential, CustomerAddress, AccountLink, CustomerStoreSettings],
  migrations: [customersMigration, accountLinksMigration, customersSearchMigration, customersCustomFieldsMigration, customersLocaleMigration],
  // The e-mails a registration sends; the store may write their texts per locale (decision 0098).
  mails: ACCOUNT_MAILS,
  // Other plugins and the project add fields to customers (`customFields: { customer: {...} }`).
  customFieldHosts: [{ entity: 'customer', table: 'customers_customer', graphqlType: 'Customer' }],
  machines: [customerMachine],
  events: [...CUSTOMER_EVENTS],
  permissions: [
    { name: 'customers.read', description: 'Read customers, their addresses and the customer-account settings' },
    { name: 'customers.write', description: 'Create and change customers and their addresses' },
    { name: 'customers.settings', description: 'Change how shoppers sign up (registration policy, account-link page)' },
  ],
  register(container) {
    container.register(CUSTOMER_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
    container.registerSingleton(Passwords);
    container.registerSingleton(StoreSettings);
    container.registerSingleton(AccountLinks);
    container.registerSingleton(Customers);
    container.registerSingleton(CustomerAddresses);
    container.registerSingleton(CustomerAccounts);
    container.registerSingleton(SpentLinks);
  },
  jobs: {
    [SPENT_LINKS_JOB]: { handler: (_data: unknown, ctx) => ctx.container.resolve(SpentLinks).sweep().then(() => undefined), attempts: 1 },
  },
  // One queued run per interval slot, however many worker processes there are.
  background: ({ container }) => container.resolve(Jobs).every(SPENT_LINKS_JOB, container.resolve<CustomerSettings>(CUSTOMER_SETTINGS).sweepMs),
  routes: async (app, { container }) => {
    await customerAuthRoutes(app, container);
    await settingsRoutes(app, container);
    await customerRoutes(app, container);
    await addressRoutes(app, container);
  },
  graphql: profileGraphQL,
});
