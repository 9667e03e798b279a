import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, CLOCK, Database, keyset, pgDate, TenantContext, type Clock, type KeysetColumn, type Page, type PageRequest, type SqlReader, type Tx } from '@qhatu/core';
import { Payment, Payments } from '@qhatu/plugin-payments';
import { inject, injectable } from 'tsyringe';
import { OfflinePayment } from '../entities/offline-payment.js';
import { OfflineReceipt } from '../entities/receipt.js';
import type { ReceiptInput } from '../schemas/receipt.js';
import { publishReceipt, RECEIPT_RECORDED, RECEIPT_VOIDED } from './events.js';
import { OFFLINE } from './methods.js';
import { lockOfflinePayment, paymentNotFound, receivedFor } from './standing.js';

/** An offline payment as the store and the shopper read it: the payment, the method kept for it, what was received. */
export interface OfflinePaymentView {
  payment: Payment;
  offline: OfflinePayment;
  received: number;
}

export interface ReceiptFilter {
  payment_id?: string;
  order_id?: string;
  method_id?: string;
  voided?: boolean;
}

/** How far ahead of the server's clock a receipt's date may be (clocks of the staff's devices drift). */
const CLOCK_SKEW_MS = 5 * 60_000;

const COLUMNS = `id, tenant_id, payment_id, order_id, method_id, amount, currency, reference, note, received_at, recorded_by,
  voided_at, void_reason, voided_by, created_at, updated_at`;
const SORTS: Record<string, KeysetColumn> = {
  created_at: { sql: 'created_at', type: 'timestamptz' },
  received_at: { sql: 'received_at', type: 'timestamptz' },
};

function toReceipt(r: Record<string, unknown>): OfflineReceipt {
  const date = (v: unknown) => (v ? pgDate(v) : null);
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    paymentId: r.payment_id as string,
    orderId: r.order_id as string,
    methodId: r.method_id as string,
    amount: Number(r.amount),
    currency: r.currency as string,
    reference: (r.reference as string | null) ?? null,
    note: (r.note as string | null) ?? null,
    receivedAt: pgDate(r.received_at),
    recordedBy: (r.recorded_by as string | null) ?? null,
    voidedAt: date(r.voided_at),
    voidReason: (r.void_reason as string | null) ?? null,
    voidedBy: (r.voided_by as string | null) ?? null,
    createdAt: pgDate(r.created_at),
    updatedAt: pgDate(r.updated_at),
  } as OfflineReceipt;
}

export const receiptNotFound = () => AppError.notFound('Receipt', 'RECEIPT_NOT_FOUND');

const notPending = (payment: Payment, cancelled: boolean) =>
  AppError.conflict(
    cancelled ? 'The payment was cancelled: it takes no receipt' : `A ${payment.status} payment takes no receipt: only a pending one does (money of a paid one goes back by refund)`,
    'PAYMENT_NOT_PENDING',
    [{ path: 'body.payment_id', message: `status is ${cancelled ? 'cancelled' : payment.status}`, status: payment.status }],
  );

const referenceUsed = (reference: string, receiptId?: string) =>
  AppError.conflict(`A receipt of this method already counts the reference "${reference}"`, 'RECEIPT_REFERENCE_USED', [
    { path: 'body.reference', message: 'is the reference of another receipt of this method', ...(receiptId ? { receipt_id: receiptId } : {}) },
  ]);

/**
 * What the staff received for offline payments. Each receipt is recorded with the payment row
 * locked (the payments plugin's lock), so receipts recorded at once add up one after the other and
 * never pass the amount; the receipt that reaches it moves the payment to paid through the payments
 * plugin, in the same transaction, and the order and checkout follow as for any payment.
 */
@injectable()
export class OfflineReceipts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Payments) private readonly payments: Payments,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  async record(input: ReceiptInput): Promise<{ receipt: OfflineReceipt; view: OfflinePaymentView }> {
    const receivedAt = input.received_at ? new Date(input.received_at) : null;
    if (receivedAt && receivedAt.getTime() > this.clock.now().getTime() + CLOCK_SKEW_MS) {
      throw AppError.validation('A receipt cannot be dated in the future', [{ path: 'body.received_at', message: 'must not be in the future' }]);
    }
    try {
      return await this.db.tenant(async (tx) => {
        const { payment, offline } = await this.payable(tx, input.payment_id);
        const received = await receivedFor(tx, payment.id);
        const outstanding = payment.amount - received;
        if (input.amount > outstanding) {
          throw AppError.unprocessable('RECEIPT_EXCEEDS_OUTSTANDING', `The receipt exceeds what is still outstanding on the payment: at most ${outstanding} ${payment.currency}`, [
            { path: 'body.amount', message: `must be at most ${outstanding}`, outstanding_amount: outstanding, received_amount: received, payment_amount: payment.amount },
          ]);
        }
        const reference = input.reference ?? null;
        if (reference) {
          const taken = await tx.em.findOne(OfflineReceipt, { methodId: offline.methodId, reference, voidedAt: null });
          if (taken) throw referenceUsed(reference, taken.id);
        }
        const at = tx.now();
        const receipt = tx.em.create(OfflineReceipt, {
          id: randomUUID(), tenantId: tx.tenantId, paymentId: payment.id, orderId: payment.orderId, methodId: offline.methodId,
          amount: input.amount, currency: payment.currency, reference, note: input.note ?? null, receivedAt: receivedAt ?? at,
          recordedBy: TenantContext.principalId(), voidedAt: null, voidReason: null, voidedBy: null, createdAt: at, updatedAt: at,
        });
        const total = received + input.amount;
        const complete = total === payment.amount;
        publishReceipt(tx, RECEIPT_RECORDED, receipt, { received_amount: total, outstanding_amount: payment.amount - total, payment_status: complete ? 'paid' : 'pending' });
        // The payment's provider id is its own from the first receipt on: money was received, so a cancel asks here first.
        await this.payments.applyCharge(tx, payment, {
          status: complete ? 'paid' : 'pending', providerPaymentId: payment.id, method: offline.methodKind,
        });
        return { receipt, view: { payment, offline, received: total } };
      });
    } catch (error) {
      // Two receipts of one reference recorded at once for different payments: the unique index keeps one.
      if (error instanceof UniqueConstraintViolationException && input.reference) throw referenceUsed(input.reference);
      throw error;
    }
  }

  /**
   * A receipt recorded by mistake, or money handed back before the payment was complete: it no
   * longer counts. Only while the payment is pending; a paid payment's money goes back by refund.
   */
  async void(id: string, reason: string): Promise<{ receipt: OfflineReceipt; view: OfflinePaymentView }> {
    return this.db.tenant(async (tx) => {
      const found = await tx.em.findOne(OfflineReceipt, { id });
      if (!found) throw receiptNotFound();
      const { payment, offline } = await lockOfflinePayment(tx, found.paymentId);
      const receipt = (await tx.em.findOne(OfflineReceipt, { id }, { refresh: true }))!;
      if (receipt.voidedAt) {
        throw AppError.conflict('The receipt was voided already', 'RECEIPT_VOIDED', [{ path: 'params.id', message: `voided at ${receipt.voidedAt.toISOString()}` }]);
      }
      if (payment.status !== 'pending') {
        throw AppError.conflict(`The payment is ${payment.status}: its receipts stand (money of a paid payment goes back by refund)`, 'PAYMENT_NOT_PENDING', [
          { path: 'params.id', message: `the payment's status is ${payment.status}`, status: payment.status },
        ]);
      }
      const received = (await receivedFor(tx, payment.id)) - receipt.amount;
      const at = tx.now();
      Object.assign(receipt, { voidedAt: at, voidReason: reason, voidedBy: TenantContext.principalId(), updatedAt: at });
      publishReceipt(tx, RECEIPT_VOIDED, receipt, { received_amount: received, outstanding_amount: payment.amount - received, payment_status: payment.status });
      return { receipt, view: { payment, offline: offline!, received } };
    });
  }

  async get(id: string): Promise<OfflineReceipt> {
    return this.db.read(async (sql) => {
      const [row] = await sql.query<Record<string, unknown>>(`select ${COLUMNS} from offline_receipt where tenant_id = ? and id = ?`, [sql.tenantId, id]);
      if (!row) throw receiptNotFound();
      return toReceipt(row);
    });
  }

  async list(page: PageRequest, filter: ReceiptFilter): Promise<Page<OfflineReceipt>> {
    return this.db.read((sql) => readPage(sql, page, filter));
  }

  /** An offline payment of the store with what was received of it; 404 PAYMENT_NOT_FOUND for any other payment. */
  async payment(id: string): Promise<OfflinePaymentView> {
    return this.db.tenant(async (tx) => {
      const payment = await tx.em.findOne(Payment, { id });
      const offline = payment && (await tx.em.findOne(OfflinePayment, { paymentId: id }));
      if (!payment || !offline) throw AppError.notFound('Offline payment', 'PAYMENT_NOT_FOUND');
      return { payment, offline, received: await receivedFor(tx, id) };
    });
  }

  /** The locked payment, checked to take a receipt: an offline one of this store, pending, not cancelled. */
  private async payable(tx: Tx, paymentId: string): Promise<{ payment: Payment; offline: OfflinePayment }> {
    const { payment, offline } = await lockOfflinePayment(tx, paymentId);
    if (payment.gateway !== OFFLINE) {
      throw AppError.unprocessable('PAYMENT_NOT_OFFLINE', `The payment was made on ${payment.gateway}: only payments of an offline method take receipts`, [
        { path: 'body.payment_id', message: `is a ${payment.gateway} payment`, gateway: payment.gateway },
      ]);
    }
    if (payment.status !== 'pending' || offline?.cancelledAt) throw notPending(payment, Boolean(offline?.cancelledAt));
    if (!offline) {
      // Recorded, but its method not kept yet: the charge is still under way (a moment) or is asked again.
      throw AppError.conflict('The payment is still being recorded; try again shortly', 'PAYMENT_IN_PROGRESS', [{ path: 'body.payment_id', message: 'its method is not kept yet', payment_id: payment.id }]);
    }
    return { payment, offline };
  }
}

async function readPage(sql: SqlReader, page: PageRequest, filter: ReceiptFilter): Promise<Page<OfflineReceipt>> {
  const conditions = ['tenant_id = ?'];
  const params: unknown[] = [sql.tenantId];
  const where = (condition: string, ...values: unknown[]) => {
    conditions.push(condition);
    params.push(...values);
  };
  if (filter.payment_id) where('payment_id = ?', filter.payment_id);
  if (filter.order_id) where('order_id = ?', filter.order_id);
  if (filter.method_id) where('method_id = ?', filter.method_id);
  if (filter.voided !== undefined) where(filter.voided ? 'voided_at is not null' : 'voided_at is null');
  const resume = keyset(page, SORTS);
  if (resume.where) where(resume.where, ...resume.params);
  const rows = await sql.query<Record<string, unknown>>(`select ${COLUMNS} from offline_receipt where ${conditions.join(' and ')} ${resume.tail}`, params);
  const byReceived = page.sort.replace(/^-/, '') === 'received_at';
  return resume.finish(rows.map(toReceipt), (r) => (byReceived ? r.receivedAt : r.createdAt).toISOString());
}

export { paymentNotFound };
