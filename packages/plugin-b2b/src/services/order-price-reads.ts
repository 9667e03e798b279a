import { AppError, Database } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { OrderPrice } from '../entities/account-order.js';

/** The B2B price snapshot of an order. */
@injectable()
export class OrderPriceReads {
  constructor(@inject(Database) private readonly db: Database) {}

  async of(orderId: string): Promise<OrderPrice[]> {
    return this.db.tenant(async ({ em }) => {
      const rows = await em.find(OrderPrice, { orderId }, { orderBy: { createdAt: 'asc', variantId: 'asc' } });
      if (rows.length === 0) throw AppError.notFound('B2B price snapshot', 'ORDER_PRICES_NOT_FOUND');
      return rows;
    });
  }
}
