import { CONFIG, definePlugin, Jobs, OutboxRelay, type JobDefinition, type QhatuConfig } from '@qhatu/core';
import { ORDER_CANCEL_GUARD } from '@qhatu/plugin-orders';
import { instanceCachingFactory } from 'tsyringe';
import { GatewaySetting } from './entities/gateway-setting.js';
import { Notification } from './entities/notification.js';
import { Payment } from './entities/payment.js';
import { Refund } from './entities/refund.js';
import { PaymentSession } from './entities/session.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from './gateway.js';
import { paymentMachine } from './machines/payment.js';
import { refundMachine } from './machines/refund.js';
import { paymentsMigration } from './migrations/0001_payments.js';
import { sessionsMigration } from './migrations/0002_sessions.js';
import { gatewayDataMigration } from './migrations/0003_gateway_data.js';
import { sessionNumberMigration } from './migrations/0004_session_number.js';
import { chargeRetryMigration } from './migrations/0005_charge_retry.js';
import { providerIndexMigration } from './migrations/0006_provider_index.js';
import { refundTaxMigration } from './migrations/0007_refund_tax.js';
import { unansweredCallsMigration } from './migrations/0008_unanswered_calls.js';
import { refundAnswerLostMigration } from './migrations/0009_refund_answer_lost.js';
import { refundReturnedForMigration } from './migrations/0010_refund_returned_for.js';
import { gatewayRoutes } from './routes/gateways.js';
import { notificationRoutes } from './routes/notifications.js';
import { paymentRoutes } from './routes/payments.js';
import { PaymentCancellations } from './services/cancellations.js';
import { PAYMENT_EVENTS, PAYMENT_RETURN_FAILED, type ReturnReason } from './services/events.js';
import { GatewaySettings } from './services/gateway-settings.js';
import { Gateways } from './services/gateways.js';
import { Notifications } from './services/notifications.js';
import { paymentsInProgressGuard } from './services/order-guard.js';
import { PaymentMetrics } from './services/payment-metrics.js';
import { Payments } from './services/payments.js';
import { ChargeRecovery } from './services/recovery.js';
import { Refunds } from './services/refunds.js';
import { CANCELLED_ORDER_JOB, LATE_PAYMENT_JOB, MoneyReturns, RETURN_AGAIN_JOB, UNSTOCKED_ORDER_JOB } from './services/returns.js';
import { Settlement } from './services/settlement.js';
import { Sessions } from './services/sessions.js';
import { PaymentSweep, SWEEP_JOB } from './services/sweep.js';

export * from './gateway.js';
export { ProviderTokens, type IssuedToken } from './provider-tokens.js';
export { Payment, PAYMENT_STATUSES, type PaymentStatus } from './entities/payment.js';
export { PaymentSession } from './entities/session.js';
export { Refund, REFUND_STATUSES, REFUND_REASONS, type RefundStatus, type RefundReason } from './entities/refund.js';
export { paymentMachine } from './machines/payment.js';
export { refundMachine } from './machines/refund.js';
export { Gateways } from './services/gateways.js';
export { GatewaySettings } from './services/gateway-settings.js';
export { Payments, type PaymentInput } from './services/payments.js';
export { Refunds, type RefundInput, type RecordedOutcome, type ReturnedMoney } from './services/refunds.js';
export { ChargeRecovery } from './services/recovery.js';
export { PaymentCancellations } from './services/cancellations.js';
export { MoneyReturns, LATE_PAYMENT_JOB, CANCELLED_ORDER_JOB, UNSTOCKED_ORDER_JOB, RETURN_AGAIN_JOB } from './services/returns.js';
export { paymentsInProgressGuard } from './services/order-guard.js';
export { paymentSettings, type PaymentSettings } from './services/settings.js';
export { Notifications, type NotificationOutcome, type CallbackOutcome } from './services/notifications.js';
export { Sessions, type SessionInput } from './services/sessions.js';
export { PaymentSweep, SWEEP_JOB as PAYMENT_SWEEP_JOB, type PaymentSweepResult } from './services/sweep.js';
export * from './services/events.js';

/** A job sending money back: a provider's refusal is tried again. */
const RETRIED = { attempts: 5, backoffMs: 2000 } as const;

/** The job that sends an order's money back for `reason` (see `MoneyReturns`). */
const returning = (reason: ReturnReason): JobDefinition => ({
  handler: (data: unknown, { container }) => container.resolve(MoneyReturns).returnOrder(reason, data).then(() => undefined),
  ...RETRIED,
});

/** Payments: the gateway plugin API, payments and refunds on any installed gateway, inbound notifications. */
export default definePlugin({
  name: 'payments',
  dependsOn: ['orders'],
  entities: [GatewaySetting, Payment, Refund, Notification, PaymentSession],
  migrations: [
    paymentsMigration, sessionsMigration, gatewayDataMigration, sessionNumberMigration, chargeRetryMigration, providerIndexMigration, refundTaxMigration,
    unansweredCallsMigration, refundAnswerLostMigration, refundReturnedForMigration,
  ],
  machines: [paymentMachine, refundMachine],
  events: PAYMENT_EVENTS,
  permissions: [
    { name: 'payments.read', description: "Read the store's payments, refunds and gateway settings" },
    { name: 'payments.refund', description: 'Refund payments' },
    { name: 'payments.configure', description: 'Set gateway credentials and switch gateways on or off' },
    { name: 'payments.capture', description: 'Record money received for payments the store collects itself (cash on delivery, bank transfers, wallets)' },
  ],
  register(container) {
    // Every gateway package registers itself under PAYMENT_GATEWAY; resolved once, when first needed.
    container.register(Gateways, {
      useFactory: instanceCachingFactory((c) =>
        new Gateways(c.isRegistered(PAYMENT_GATEWAY) ? c.resolveAll<PaymentGateway>(PAYMENT_GATEWAY) : [], c.resolve<QhatuConfig>(CONFIG)),
      ),
    });
    container.registerSingleton(PaymentMetrics);
    container.registerSingleton(Settlement);
    container.registerSingleton(GatewaySettings);
    container.registerSingleton(Sessions);
    container.registerSingleton(Refunds);
    container.registerSingleton(ChargeRecovery);
    container.registerSingleton(Payments);
    container.registerSingleton(PaymentCancellations);
    container.registerSingleton(MoneyReturns);
    container.registerSingleton(Notifications);
    container.registerSingleton(PaymentSweep);
    // An order is not cancelled (nor its checkout abandoned) while one of its payments is in flight.
    container.register(ORDER_CANCEL_GUARD, { useValue: paymentsInProgressGuard });
  },
  onReady({ container }) {
    // Money an order must not keep goes back by itself: each job is queued with the event, in the relay's transaction.
    const relay = container.resolve(OutboxRelay);
    relay.queueOn('orders.order.payment_mismatch', LATE_PAYMENT_JOB, (data) => data.reason === 'late');
    relay.queueOn('orders.order.cancelled', CANCELLED_ORDER_JOB);
    relay.queueOn('orders.order.stock_unavailable', UNSTOCKED_ORDER_JOB);
    // A refund of such money recorded failed from the provider's dashboard: sent back again (decision 0112).
    relay.queueOn(PAYMENT_RETURN_FAILED, RETURN_AGAIN_JOB);
  },
  jobs: {
    // Payments and refunds left open by their provider, every store in one run.
    [SWEEP_JOB]: {
      handler: (_data: unknown, { container, log }) =>
        container.resolve(PaymentSweep).run((err, row) => log.warn({ err, tenantId: row.tenant_id, id: row.id }, 'payment sweep could not re-read a row')),
      attempts: 1,
    },
    // Money an order must not keep, sent back; a provider's refusal is tried again.
    [LATE_PAYMENT_JOB]: returning('late'),
    [CANCELLED_ORDER_JOB]: returning('order_cancelled'),
    [UNSTOCKED_ORDER_JOB]: returning('stock_unavailable'),
    [RETURN_AGAIN_JOB]: { handler: (data: unknown, { container }) => container.resolve(MoneyReturns).returnAgain(data).then(() => undefined), ...RETRIED },
  },
  // One queued run per interval slot, however many worker processes there are.
  background: ({ container }) => container.resolve(Jobs).every(SWEEP_JOB, container.resolve(PaymentSweep).settings.everyMs),
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
