import { AppError } from '@qhatu/core';
import type { OrderCancelGuard } from '@qhatu/plugin-orders';

/**
 * Registered under the orders plugin's ORDER_CANCEL_GUARD: an order whose payment is still
 * `pending` or `processing` is not cancelled (nor its checkout abandoned) while the money may yet
 * come in; 409 PAYMENT_IN_PROGRESS names the payments. Asked with the order locked, which a new
 * payment of the order locks too: either the payment is recorded first and the cancel refused, or
 * the order is cancelled first and the payment refused.
 */
export const paymentsInProgressGuard: OrderCancelGuard = {
  async check(tx, order) {
    const open = await tx.em.execute<Array<{ id: string; status: string; gateway: string }>>(
      `select id, status, gateway from payments_payment where tenant_id = ? and order_id = ? and status in ('pending', 'processing') order by created_at, id`,
      [tx.tenantId, order.id],
    );
    if (!open.length) return;
    throw AppError.conflict('A payment of this order is in progress: cancel the payment (POST /api/v1/payments/:id/cancel) or wait for its outcome', 'PAYMENT_IN_PROGRESS', open.map((p) => ({
      path: 'params.id', message: `payment ${p.id} is ${p.status}`, payment_id: p.id, status: p.status, gateway: p.gateway,
    })));
  },
};
