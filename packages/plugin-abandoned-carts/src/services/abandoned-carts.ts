import { LockMode } from '@mikro-orm/core';
import { AppError, Database, Mailer, MailTexts, type Tx } from '@qhatu/core';
import { Cart, type Checkout, type CheckoutAbandonedHook } from '@qhatu/plugin-checkout';
import { inject, injectable } from 'tsyringe';
import { AbandonedCart, type AbandonedCartStatus } from '../entities/abandoned-cart.js';
import { abandonedCartMachine } from '../machines/abandoned-cart.js';
import { REMINDER_MAIL, reminderMail, reminderVariables } from './reminder-mail.js';
import { RecoveryLinks } from './recovery-links.js';
import { ABANDONED_CART_SETTINGS, type AbandonedCartSettings } from './settings.js';

export const ABANDONED_CART_ABANDONED = 'abandoned-carts.cart.abandoned';
export const SWEEP_JOB = 'abandoned-carts.sweep';

export type StatusFilter = 'all' | AbandonedCartStatus;

export interface AbandonedCartMetrics {
  total_abandoned: number;
  lost_value_cents: number;
  recovered_count: number;
  recovered_value_cents: number;
  /** recovered_count / total_abandoned × 100, two decimals; 0 when nothing was abandoned. */
  recovery_rate: number;
  reminder_sent_count: number;
}

export interface AbandonedCartPage {
  items: AbandonedCart[];
  total: number;
  metrics: AbandonedCartMetrics;
}

export interface SweepResult {
  abandoned: number;
  recovered: number;
}

// A cart's value: its checkout's total when it reached checkout (shipping included), else its own.
const VALUE = 'coalesce(k.total, c.total)';

/**
 * Records carts abandoned, in one statement: `which` says which carts (idle ones, or the cart of a
 * checkout just abandoned). A cart qualifies when it has items, has not expired, its checkout (if
 * any) is not completed, and it was never recorded, nor opened by a recovery link. Reads
 * checkout's tables in the tenant's transaction (row-level security applies).
 */
const recordSql = (which: string) => `
  INSERT INTO abandoned_carts_cart (tenant_id, id, cart_id, checkout_id, customer_id, email, currency,
    item_count, value_cents, status, reminder_count, abandoned_at, created_at, updated_at)
  SELECT c.tenant_id, gen_random_uuid(), c.id, k.id, coalesce(k.customer_id, c.customer_id), k.email, c.currency,
    c.item_count, ${VALUE}, 'abandoned', 0, ?, ?, ?
  FROM checkout_cart c
  LEFT JOIN checkout_checkout k ON k.tenant_id = c.tenant_id AND k.cart_id = c.id
  WHERE c.item_count > 0
    AND c.expires_at > ?
    AND (k.id IS NULL OR k.status <> 'completed')
    AND ${which}
    AND NOT EXISTS (SELECT 1 FROM abandoned_carts_cart a WHERE a.tenant_id = c.tenant_id AND a.cart_id = c.id)
    AND NOT EXISTS (SELECT 1 FROM abandoned_carts_cart a WHERE a.tenant_id = c.tenant_id AND a.restored_cart_id = c.id)
  ON CONFLICT (tenant_id, cart_id) DO NOTHING
  RETURNING id, cart_id, checkout_id, customer_id, currency, item_count, value_cents`;

/** Carts nothing (cart, checkout) changed for the idle threshold, or whose checkout was abandoned. */
const RECORD_IDLE_SQL = recordSql(`((c.updated_at <= ? AND (k.id IS NULL OR k.updated_at <= ?)) OR k.status = 'abandoned')`);
/** The cart of one checkout, just abandoned (`POST /checkouts/:id/abandon`). */
const RECORD_ABANDONED_SQL = recordSql(`k.id = ? AND k.status = 'abandoned'`);

// The cart a record follows: the one a recovery link opened, else its own.
const FOLLOWED = 'coalesce(a.restored_cart_id, a.cart_id)';

/**
 * Open records whose shopper came back: the cart (or the one the recovery link opened) changed
 * after it was recorded (or opened), its checkout moved on (other than to abandoned) after that,
 * or its checkout completed.
 */
const SHOPPER_BACK_SQL = `
  SELECT a.id, ${VALUE} AS value
  FROM abandoned_carts_cart a
  JOIN checkout_cart c ON c.tenant_id = a.tenant_id AND c.id = ${FOLLOWED}
  LEFT JOIN checkout_checkout k ON k.tenant_id = c.tenant_id AND k.cart_id = c.id
  WHERE a.status IN ('abandoned', 'reminded')
    AND (c.updated_at > coalesce(a.restored_at, a.abandoned_at)
      OR (k.id IS NOT NULL AND k.status <> 'abandoned' AND k.updated_at > coalesce(a.restored_at, a.abandoned_at))
      OR k.status = 'completed')`;

const METRICS_SQL = `
  SELECT count(*)::int AS total_abandoned,
    coalesce(sum(value_cents) FILTER (WHERE status <> 'recovered'), 0)::text AS lost_value_cents,
    (count(*) FILTER (WHERE status = 'recovered'))::int AS recovered_count,
    coalesce(sum(recovered_value_cents) FILTER (WHERE status = 'recovered'), 0)::text AS recovered_value_cents,
    coalesce(sum(reminder_count), 0)::int AS reminder_sent_count
  FROM abandoned_carts_cart`;

@injectable()
export class AbandonedCarts implements CheckoutAbandonedHook {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Mailer) private readonly mailer: Mailer,
    @inject(MailTexts) private readonly texts: MailTexts,
    @inject(RecoveryLinks) private readonly links: RecoveryLinks,
    @inject(ABANDONED_CART_SETTINGS) private readonly settings: AbandonedCartSettings,
  ) {}

  async list(query: { status: StatusFilter; limit: number; offset: number }): Promise<AbandonedCartPage> {
    return this.db.tenant(async (tx) => {
      const where = query.status === 'all' ? {} : { status: query.status };
      const [items, total] = await tx.em.findAndCount(AbandonedCart, where, {
        orderBy: { abandonedAt: 'desc', id: 'desc' },
        limit: query.limit,
        offset: query.offset,
      });
      return { items, total, metrics: await this.metrics(tx) };
    });
  }

  async metrics(tx: Tx): Promise<AbandonedCartMetrics> {
    const [row] = await tx.em.execute<Array<Record<string, number | string>>>(METRICS_SQL);
    const totalAbandoned = Number(row.total_abandoned);
    const recoveredCount = Number(row.recovered_count);
    return {
      total_abandoned: totalAbandoned,
      lost_value_cents: Number(row.lost_value_cents),
      recovered_count: recoveredCount,
      recovered_value_cents: Number(row.recovered_value_cents),
      recovery_rate: totalAbandoned === 0 ? 0 : Math.round((recoveredCount / totalAbandoned) * 10_000) / 100,
      reminder_sent_count: Number(row.reminder_sent_count),
    };
  }

  /**
   * Sends the recovery e-mail (in the transaction: a failed send changes nothing) and marks the
   * cart reminded. The record stays locked until the e-mail is sent and recorded, so requests at
   * the same moment wait for it and then find the reminder sent: 409 REMINDER_ALREADY_SENT until
   * the reminder interval has passed.
   */
  async sendReminder(id: string): Promise<AbandonedCart> {
    return this.db.tenant(async (tx) => {
      const record = await this.find(tx, id);
      if (!abandonedCartMachine.can(record, 'remind')) await abandonedCartMachine.apply(tx, record, 'remind');
      this.assertReminderDue(tx, record);
      if (!record.email) {
        throw AppError.unprocessable('CART_EMAIL_MISSING', 'This cart has no e-mail address to remind', [
          { path: 'email', message: 'known only once the cart reached checkout' },
        ]);
      }
      const cart = await tx.em.findOne(Cart, { id: record.cartId });
      if (!cart || cart.expiresAt.getTime() <= tx.now().getTime()) {
        throw new AppError(410, 'CART_EXPIRED', 'The cart has expired: there is nothing left to recover', [{ message: 'cart expired', cart_id: record.cartId }]);
      }
      // The store's name and the customer's locale (none without a customer: the store's default) in one statement.
      const [store] = await tx.query<{ name: string; locale: string | null }>(
        `SELECT t.name, (SELECT c.locale FROM customers_customer c WHERE c.tenant_id = t.id AND c.id = ?) AS locale FROM core_tenant t WHERE t.id = ?`,
        [record.customerId, tx.tenantId],
      );
      const link = this.links.link({ tenantId: tx.tenantId, cartId: record.cartId, expiresAt: cart.expiresAt });
      record.reminderCount += 1;
      record.lastRemindedAt = tx.now();
      record.updatedAt = tx.now();
      await abandonedCartMachine.apply(tx, record, 'remind');
      await tx.em.flush();
      try {
        const shown = { store: store.name, record, link, expiresAt: cart.expiresAt };
        const mail = await this.texts.compose(tx, REMINDER_MAIL.key, store.locale, reminderVariables(shown), reminderMail(shown));
        await this.mailer.send({ tenantId: tx.tenantId, to: record.email, subject: mail.subject, text: mail.text, ...(mail.html === undefined ? {} : { html: mail.html }) });
      } catch (error) {
        // The transaction rolls back: the cart stays as it was and the reminder can be sent again.
        throw new AppError(502, 'MAIL_DELIVERY_FAILED', 'The reminder e-mail could not be sent; nothing was changed', [
          { message: error instanceof Error ? error.message : String(error) },
        ]);
      }
      return record;
    });
  }

  private assertReminderDue(tx: Tx, record: AbandonedCart): void {
    if (!record.lastRemindedAt) return;
    const next = new Date(record.lastRemindedAt.getTime() + this.settings.reminderIntervalMs);
    if (next.getTime() <= tx.now().getTime()) return;
    throw AppError.conflict('A reminder was sent to this shopper a moment ago; the next one may go later', 'REMINDER_ALREADY_SENT', [
      { message: 'one reminder per interval', last_reminded_at: record.lastRemindedAt.toISOString(), next_reminder_at: next.toISOString() },
    ]);
  }

  /** Marks the cart recovered by the store; its value is what the cart (or its checkout) is worth now. */
  async recover(id: string): Promise<AbandonedCart> {
    return this.db.tenant(async (tx) => {
      const record = await this.find(tx, id);
      if (!abandonedCartMachine.can(record, 'recover')) await abandonedCartMachine.apply(tx, record, 'recover');
      const [row] = await tx.em.execute<Array<{ value: string | null }>>(
        `SELECT ${VALUE}::text AS value FROM checkout_cart c
         LEFT JOIN checkout_checkout k ON k.tenant_id = c.tenant_id AND k.cart_id = c.id WHERE c.id = ?`,
        [record.restoredCartId ?? record.cartId],
      );
      await this.markRecovered(tx, record, 'admin', row?.value == null ? record.valueCents : Number(row.value));
      return record;
    });
  }

  /** Every tenant's sweep (the scheduled job); a tenant that fails does not stop the others. */
  async sweepAll(log?: (error: unknown, tenantId: string) => void): Promise<SweepResult> {
    const tenants = await this.db.query<{ id: string }>(`SELECT id FROM core_tenant WHERE status IN ('active', 'trial') ORDER BY id`);
    const total: SweepResult = { abandoned: 0, recovered: 0 };
    for (const { id } of tenants) {
      try {
        const r = await this.sweep(id);
        total.abandoned += r.abandoned;
        total.recovered += r.recovered;
      } catch (error) {
        log?.(error, id);
      }
    }
    return total;
  }

  /** Records the tenant's newly idle carts, and marks recovered those whose shopper came back. */
  async sweep(tenantId: string): Promise<SweepResult> {
    return this.db.tenant(async (tx) => {
      const now = tx.now();
      const cutoff = new Date(now.getTime() - this.settings.idleMs);
      const recorded = await tx.em.execute<Array<Record<string, unknown>>>(RECORD_IDLE_SQL, [now, now, now, now, cutoff, cutoff]);
      this.publishRecorded(tx, recorded);
      const back = await tx.em.execute<Array<{ id: string; value: string }>>(SHOPPER_BACK_SQL);
      let recovered = 0;
      if (back.length > 0) {
        const records = await tx.em.find(AbandonedCart, { id: { $in: back.map((b) => b.id) } }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        for (const record of records) {
          if (!abandonedCartMachine.can(record, 'recover')) continue;
          await this.markRecovered(tx, record, 'shopper', Number(back.find((b) => b.id === record.id)!.value));
          recovered += 1;
        }
      }
      return { abandoned: recorded.length, recovered };
    }, tenantId);
  }

  /**
   * The checkout's hook (`CHECKOUT_ABANDONED_HOOK`): records its cart in the abandon transaction,
   * so the list shows it in the next request. A cart recorded before is left as it is.
   */
  async checkoutAbandoned(tx: Tx, checkout: Checkout): Promise<void> {
    const now = tx.now();
    const recorded = await tx.em.execute<Array<Record<string, unknown>>>(RECORD_ABANDONED_SQL, [now, now, now, now, checkout.id]);
    this.publishRecorded(tx, recorded);
  }

  private publishRecorded(tx: Tx, rows: Array<Record<string, unknown>>): void {
    for (const row of rows) {
      tx.publish(ABANDONED_CART_ABANDONED, {
        id: row.id,
        cart_id: row.cart_id,
        checkout_id: row.checkout_id,
        customer_id: row.customer_id,
        status: 'abandoned',
        currency: String(row.currency).trim(),
        item_count: row.item_count,
        value_cents: Number(row.value_cents),
      });
    }
  }

  private async markRecovered(tx: Tx, record: AbandonedCart, by: 'admin' | 'shopper', value: number): Promise<void> {
    record.recoveredAt = tx.now();
    record.recoveredBy = by;
    record.recoveredValueCents = value;
    record.updatedAt = tx.now();
    await abandonedCartMachine.apply(tx, record, 'recover');
  }

  private async find(tx: Tx, id: string): Promise<AbandonedCart> {
    const record = await tx.em.findOne(AbandonedCart, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!record) throw AppError.notFound('Abandoned cart', 'ABANDONED_CART_NOT_FOUND');
    return record;
  }
}
