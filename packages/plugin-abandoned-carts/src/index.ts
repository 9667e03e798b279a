import { CONFIG, definePlugin, Jobs, type QhatuConfig } from '@qhatu/core';
import { AbandonedCart } from './entities/abandoned-cart.js';
import { ABANDONED_CART_RECOVERED, ABANDONED_CART_REMINDED, abandonedCartMachine } from './machines/abandoned-cart.js';
import { CHECKOUT_ABANDONED_HOOK } from '@qhatu/plugin-checkout';
import { abandonedCartsMigration } from './migrations/0001_abandoned_carts.js';
import { restoredCartsMigration } from './migrations/0002_restored_carts.js';
import { abandonedCartRoutes } from './routes/abandoned-carts.js';
import { ABANDONED_CART_ABANDONED, AbandonedCarts, SWEEP_JOB } from './services/abandoned-carts.js';
import { CartRecovery } from './services/cart-recovery.js';
import { REMINDER_MAIL } from './services/reminder-mail.js';
import { RecoveryLinks } from './services/recovery-links.js';
import { ABANDONED_CART_SETTINGS, readSettings, type AbandonedCartSettings } from './services/settings.js';

export { AbandonedCart, ABANDONED_CART_STATUSES, type AbandonedCartStatus } from './entities/abandoned-cart.js';
export { abandonedCartMachine } from './machines/abandoned-cart.js';
export { AbandonedCarts, SWEEP_JOB, type AbandonedCartMetrics, type SweepResult } from './services/abandoned-carts.js';
export { CartRecovery } from './services/cart-recovery.js';
export { RecoveryLinks, type RecoveryClaim } from './services/recovery-links.js';
export { ABANDONED_CART_SETTINGS, RESTORE_PATH, type AbandonedCartSettings } from './services/settings.js';

/** Abandoned carts: a scheduled sweep records idle carts; the admin reminds shoppers and tracks recovery. */
export default definePlugin({
  name: 'abandoned-carts',
  permissions: [
    { name: 'abandoned-carts.read', description: 'See abandoned carts and what they are worth' },
    { name: 'abandoned-carts.write', description: 'Send reminders and mark abandoned carts recovered' },
  ],
  dependsOn: ['checkout'],
  entities: [AbandonedCart],
  migrations: [abandonedCartsMigration, restoredCartsMigration],
  machines: [abandonedCartMachine],
  events: [ABANDONED_CART_ABANDONED, ABANDONED_CART_REMINDED, ABANDONED_CART_RECOVERED],
  // The reminder; the store may write its text per locale (decision 0098).
  mails: [REMINDER_MAIL],
  register(container) {
    container.register(ABANDONED_CART_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
    container.registerSingleton(RecoveryLinks);
    container.registerSingleton(AbandonedCarts);
    container.registerSingleton(CartRecovery);
    // Checkout's extension point: the cart of an abandoned checkout is recorded in that transaction.
    container.register(CHECKOUT_ABANDONED_HOOK, { useToken: AbandonedCarts });
  },
  jobs: {
    // Every tenant in one job; each tenant in its own transaction.
    [SWEEP_JOB]: {
      handler: (_data: unknown, { container, log }) =>
        container.resolve(AbandonedCarts).sweepAll((err, tenantId) => log.warn({ err, tenantId }, 'abandoned-cart sweep failed')),
      attempts: 1,
    },
  },
  // One queued run per interval slot, however many worker processes there are.
  background: ({ container }) => container.resolve(Jobs).every(SWEEP_JOB, container.resolve<AbandonedCartSettings>(ABANDONED_CART_SETTINGS).sweepMs),
  prefix: '',
  routes: async (app, { container }) => abandonedCartRoutes(app, container),
});
