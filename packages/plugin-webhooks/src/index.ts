import { CONFIG, definePlugin, OutboxRelay, type QhatuConfig } from '@qhatu/core';
import { Attempt, Delivery } from './entities/delivery.js';
import { Subscription } from './entities/subscription.js';
import { webhooksMigration } from './migrations/0001_webhooks.js';
import { webhookRoutes } from './routes/webhooks.js';
import { DELIVER_JOB, Deliveries } from './services/deliveries.js';
import { readSettings, WEBHOOK_SETTINGS } from './services/settings.js';
import { Subscriptions } from './services/subscriptions.js';

export { Deliveries } from './services/deliveries.js';
export { Subscriptions } from './services/subscriptions.js';
export { cloudEvent, sign } from './services/signing.js';

/** Outbound webhooks: signed CloudEvents to the receivers each tenant registers. */
export default definePlugin({
  name: 'webhooks',
  permissions: [
    { name: 'webhooks.read', description: 'See webhook subscriptions and their deliveries' },
    { name: 'webhooks.write', description: 'Create, change and delete webhook subscriptions and retry deliveries' },
  ],
  entities: [Subscription, Delivery, Attempt],
  migrations: [webhooksMigration],
  register(container) {
    container.register(WEBHOOK_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
    container.registerSingleton(Subscriptions);
    container.registerSingleton(Deliveries);
  },
  onReady({ container }) {
    container.resolve(OutboxRelay).subscribe(container.resolve(Deliveries).recordEvent);
  },
  jobs: {
    // Retries are scheduled by the delivery itself (backoff with jitter, then dead); BullMQ only
    // retries a job that crashed before it could record its outcome.
    [DELIVER_JOB]: {
      handler: (job: { tenantId: string; deliveryId: string }, { container }) => container.resolve(Deliveries).deliver(job),
      attempts: 3,
      backoffMs: 5000,
    },
  },
  background({ container }) {
    const deliveries = container.resolve(Deliveries);
    const settings = container.resolve<ReturnType<typeof readSettings>>(WEBHOOK_SETTINGS);
    const timer = setInterval(() => void deliveries.sweep().catch(() => undefined), settings.sweepMs);
    timer.unref();
    return () => clearInterval(timer);
  },
  routes: async (app, { container }) => webhookRoutes(app, container),
});
