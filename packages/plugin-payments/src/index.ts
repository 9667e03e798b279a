import { CONFIG, definePlugin, type QhatuConfig } from '@qhatu/core';
import { instanceCachingFactory } from 'tsyringe';
import { GatewaySetting } from './entities/gateway-setting.js';
import { Notification } from './entities/notification.js';
import { Payment } from './entities/payment.js';
import { Refund } from './entities/refund.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from './gateway.js';
import { paymentMachine } from './machines/payment.js';
import { refundMachine } from './machines/refund.js';
import { paymentsMigration } from './migrations/0001_payments.js';
import { gatewayRoutes } from './routes/gateways.js';
import { notificationRoutes } from './routes/notifications.js';
import { paymentRoutes } from './routes/payments.js';
import { PAYMENT_EVENTS } from './services/events.js';
import { GatewaySettings } from './services/gateway-settings.js';
import { Gateways } from './services/gateways.js';
import { Notifications } from './services/notifications.js';
import { Payments } from './services/payments.js';
import { Refunds } from './services/refunds.js';

export * from './gateway.js';
export { Payment, PAYMENT_STATUSES, type PaymentStatus } from './entities/payment.js';
export { Refund, REFUND_STATUSES, REFUND_REASONS, type RefundStatus, type RefundReason } from './entities/refund.js';
export { paymentMachine } from './machines/payment.js';
export { refundMachine } from './machines/refund.js';
export { Gateways } from './services/gateways.js';
export { GatewaySettings } from './services/gateway-settings.js';
export { Payments, type PaymentInput } from './services/payments.js';
export { Refunds, type RefundInput } from './services/refunds.js';
export { Notifications, type NotificationOutcome } from './services/notifications.js';
export * from './services/events.js';

/** Payments: the gateway plugin API, payments and refunds on any installed gateway, inbound notifications. */
export default definePlugin({
  name: 'payments',
  dependsOn: ['orders'],
  entities: [GatewaySetting, Payment, Refund, Notification],
  migrations: [paymentsMigration],
  machines: [paymentMachine, refundMachine],
  events: PAYMENT_EVENTS,
  register(container) {
    // Every gateway package registers itself under PAYMENT_GATEWAY; resolved once, when first needed.
    container.register(Gateways, {
      useFactory: instanceCachingFactory((c) =>
        new Gateways(c.isRegistered(PAYMENT_GATEWAY) ? c.resolveAll<PaymentGateway>(PAYMENT_GATEWAY) : [], c.resolve<QhatuConfig>(CONFIG)),
      ),
    });
    container.registerSingleton(GatewaySettings);
    container.registerSingleton(Payments);
    container.registerSingleton(Refunds);
    container.registerSingleton(Notifications);
  },
  // Two mounts: the API under /api/v1, the providers' notifications under /webhooks.
  prefix: '',
  routes: async (app, { container }) => {
    await app.register(async (api) => {
      await gatewayRoutes(api, container);
      await paymentRoutes(api, container);
    }, { prefix: '/api/v1' });
    await app.register(async (hooks) => notificationRoutes(hooks, container), { prefix: '/webhooks' });
  },
});
