import { CONFIG, definePlugin, type QhatuConfig } from '@qhatu/core';
import { CustomerAddress } from './entities/address.js';
import { CustomerCredential } from './entities/credential.js';
import { Customer } from './entities/customer.js';
import { profileGraphQL } from './graphql/profile.js';
import { customerMachine } from './machines/customer.js';
import { customersMigration } from './migrations/0001_customers.js';
import { addressRoutes } from './routes/addresses.js';
import { customerAuthRoutes } from './routes/auth.js';
import { customerRoutes } from './routes/customers.js';
import { CustomerAccounts } from './services/accounts.js';
import { CustomerAddresses } from './services/addresses.js';
import { CUSTOMER_EVENTS, Customers } from './services/customers.js';
import { Passwords } from './services/passwords.js';
import { CUSTOMER_SETTINGS, readSettings } from './services/settings.js';

export { Customer, CUSTOMER_STATUSES, type CustomerStatus } from './entities/customer.js';
export { CustomerAddress } from './entities/address.js';
export { Customers, customerEvent } from './services/customers.js';
export { CustomerAddresses } from './services/addresses.js';
export { CustomerAccounts, type CustomerSession } from './services/accounts.js';
export { customerOut, addressOut } from './routes/serialize.js';

/** Customers: records, address books and customer accounts (register, login, profile). */
export default definePlugin({
  name: 'customers',
  permissions: [
    { name: 'customers.read', description: 'See customers and their addresses' },
    { name: 'customers.write', description: 'Create and change customers and their addresses' },
  ],
  entities: [Customer, CustomerCredential, CustomerAddress],
  migrations: [customersMigration],
  machines: [customerMachine],
  events: [...CUSTOMER_EVENTS],
  register(container) {
    container.register(CUSTOMER_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
    container.registerSingleton(Passwords);
    container.registerSingleton(Customers);
    container.registerSingleton(CustomerAddresses);
    container.registerSingleton(CustomerAccounts);
  },
  routes: async (app, { container }) => {
    await customerAuthRoutes(app, container);
    await customerRoutes(app, container);
    await addressRoutes(app, container);
  },
  graphql: profileGraphQL,
});
