import type { Tx } from '@qhatu/core';
import type { ReturnedLines } from '@qhatu/plugin-marketplace';
import { allocate } from '@qhatu/plugin-orders';
import { Return, ReturnLine } from '../entities/return.js';

/**
 * What the returns of an order gave back, per order line, for a marketplace's ledger (its
 * `RETURNED_LINES`): the worth of each return whose refund was worked out, whichever way the money
 * went, less what staff kept (a fee comes off the lines in proportion); an exchange counts the whole
 * worth of what came back (its new items are the store's sale).
 */
export class OrderReturnedLines implements ReturnedLines {
  async ofOrder(tx: Tx, orderId: string): Promise<{ byLine: Map<string, number>; total: number }> {
    const returns = await tx.em.find(Return, { orderId, refundedAt: { $ne: null } });
    const byLine = new Map<string, number>();
    let total = 0;
    if (returns.length === 0) return { byLine, total };
    const lines = await tx.em.find(ReturnLine, { returnId: { $in: returns.map((r) => r.id) }, kind: 'returned' }, { orderBy: { position: 'asc' } });
    for (const r of returns) {
      const worth = r.itemsAmount + r.shippingAmount;
      const own = lines.filter((l) => l.returnId === r.id);
      const given = Math.max(0, worth - Math.max(0, owedOf(r) - r.refundAmount));
      const items = Math.min(r.itemsAmount, given);
      allocate(items, own.map((l) => l.refundAmount)).forEach((amount, n) => byLine.set(own[n].lineItemId!, (byLine.get(own[n].lineItemId!) ?? 0) + amount));
      total += given;
    }
    return { byLine, total };
  }
}

/** What the return owed the customer when its refund was worked out (the refund is that, or less when staff kept a fee). */
function owedOf(r: Return): number {
  const worth = r.itemsAmount + r.shippingAmount;
  if (r.kind !== 'exchange') return worth;
  const owed = r.newItemsAmount - worth;
  return Math.max(0, -owed) + Math.max(0, r.amountPaid - Math.max(0, owed));
}
