import { Metrics, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { Payment } from '../entities/payment.js';

/**
 * `qhatu_payments_total{gateway, status}`: each payment counted once for every status it reaches
 * (`pending` when recorded, then `processing`, `paid`, `failed`, refunds), when that commits.
 */
@injectable()
export class PaymentMetrics {
  private readonly payments;

  constructor(@inject(Metrics) metrics: Metrics) {
    this.payments = metrics.counter('qhatu_payments_total', 'Payments that reached a status, by gateway and status', ['gateway', 'status']);
  }

  /** Counts the status `payment` now has, once `tx` commits (a rolled-back move is not counted). */
  reached(tx: Tx, payment: Payment): void {
    const labels = { gateway: payment.gateway, status: payment.status };
    tx.afterCommit(() => this.payments.inc(labels));
  }
}
