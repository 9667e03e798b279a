import { CONFIG, definePlugin, OutboxRelay, type QhatuConfig } from '@qhatu/core';
import { OrderEdit } from './entities/order-edit.js';
import { EDIT_CONFIRMED, EDIT_EVENTS, orderEditMachine } from './machines/order-edit.js';
import { orderEditsMigration } from './migrations/0001_order_edits.js';
import { orderEditRoutes } from './routes/order-edits.js';
import { OrderEdits } from './services/edits.js';
import { ORDER_EDIT_SETTINGS, PaymentLinks, readSettings } from './services/payment-links.js';
import { EditPaymentView } from './services/payment-view.js';
import { EditPreviews, OVERRIDE_PERMISSION } from './services/preview.js';
import { EDIT_REFUNDS, refunderOf, type EditRefunder } from './services/refunds.js';

export { OrderEdit, ORDER_EDIT_STATUSES, LINE_CHANGES, type OrderEditStatus, type EditLine, type EditSnapshot, type EditChange, type EditShipping, type EditCoupon } from './entities/order-edit.js';
export { orderEditMachine, EDIT_EVENTS } from './machines/order-edit.js';
export { OrderEdits } from './services/edits.js';
export { EditPreviews, OVERRIDE_PERMISSION, type Preview } from './services/preview.js';
export { EDIT_REFUNDS, type EditRefunder } from './services/refunds.js';
export { editOut } from './routes/serialize.js';

export const REFUND_JOB = 'order-edits.refund-difference';

/**
 * Order edits: before an order ships, staff add, change or remove its lines and change its
 * shipping through an edit that is previewed, then confirmed: the stock moves, a version is kept,
 * and the difference is asked for or refunded.
 */
export default definePlugin({
  name: 'order-edits',
  dependsOn: ['catalog', 'discounts', 'orders'],
  entities: [OrderEdit],
  migrations: [orderEditsMigration],
  machines: [orderEditMachine],
  events: [...EDIT_EVENTS],
  permissions: [
    { name: 'order-edits.read', description: "See orders' edits and versions" },
    { name: 'order-edits.write', description: 'Preview, confirm and cancel edits of orders' },
    { name: OVERRIDE_PERMISSION, description: 'Give an edited order a shipping price of the staff’s own (with a reason)' },
  ],
  register(container) {
    container.register(ORDER_EDIT_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
    // The payments plugin when installed, whichever order the plugins register in.
    container.register(EDIT_REFUNDS, { useFactory: refunderOf });
    container.registerSingleton(PaymentLinks);
    container.registerSingleton(EditPreviews);
    container.registerSingleton(OrderEdits);
    container.registerSingleton(EditPaymentView);
  },
  onReady({ container }) {
    // Money beyond the edited order's total goes back through its payments, in a job the relay queues.
    container.resolve(OutboxRelay).queueOn(EDIT_CONFIRMED, REFUND_JOB, (data) => typeof data.refund_amount === 'number' && data.refund_amount > 0);
  },
  jobs: {
    [REFUND_JOB]: {
      handler: (data: { order_id?: unknown }, { container }) =>
        typeof data.order_id === 'string' ? container.resolve<EditRefunder>(EDIT_REFUNDS).refundOverpaid(data.order_id).then(() => undefined) : Promise.resolve(),
      attempts: 5,
      backoffMs: 2000,
    },
  },
  routes: async (app, { container }) => orderEditRoutes(app, container),
});
