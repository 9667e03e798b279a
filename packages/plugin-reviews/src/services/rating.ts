import type { SqlReader, Tx } from '@qhatu/core';

/** A product's rating: the approved reviews only. */
export interface RatingSummary {
  product_id: string;
  avg_rating: number;
  total_reviews: number;
}

/**
 * Moves a product's summary row by one approved review of `rating` (`delta` +1 or -1), in the
 * transaction that moves the review. The upsert and the update lock the row, so concurrent moves
 * of the same product's reviews queue on it and none is lost. (A decrement is a plain update: an
 * approved review means the row exists, and the upsert's insert half would fail the row's checks.)
 */
export async function countApproved(tx: Tx, productId: string, rating: number, delta: 1 | -1): Promise<void> {
  if (delta === 1) {
    await tx.em.execute(
      `insert into reviews_rating (tenant_id, product_id, total_reviews, rating_sum, updated_at) values (?, ?, 1, ?, ?)
       on conflict (tenant_id, product_id) do update
         set total_reviews = reviews_rating.total_reviews + 1, rating_sum = reviews_rating.rating_sum + excluded.rating_sum, updated_at = excluded.updated_at`,
      [tx.tenantId, productId, rating, tx.now()],
    );
    return;
  }
  await tx.em.execute(
    `update reviews_rating set total_reviews = total_reviews - 1, rating_sum = rating_sum - ?, updated_at = ? where tenant_id = ? and product_id = ?`,
    [rating, tx.now(), tx.tenantId, productId],
  );
}

/** The summary row; a product nobody rated yet has 0 reviews and an average of 0. */
export async function readRating(sql: SqlReader, productId: string): Promise<RatingSummary> {
  const [row] = await sql.query<{ total_reviews: number; rating_sum: string | number }>(
    `select total_reviews, rating_sum from reviews_rating where tenant_id = ? and product_id = ?`,
    [sql.tenantId, productId],
  );
  return summaryOf(productId, row?.total_reviews ?? 0, Number(row?.rating_sum ?? 0));
}

/** The average to two decimals (4.666… → 4.67). */
export function summaryOf(productId: string, total: number, sum: number): RatingSummary {
  return { product_id: productId, avg_rating: total === 0 ? 0 : Math.round((sum / total) * 100) / 100, total_reviews: total };
}
