import { AppError, Database, type ErrorDetail } from '@qhatu/core';
import { Stock } from '@qhatu/plugin-inventory';
import { inject, injectable } from 'tsyringe';
import type { Return } from '../entities/return.js';
import { RETURN_ITEMS_RECEIVED, returnEvent, returnMachine } from '../machines/return.js';
import type { ReceiveInput } from '../schemas/return.js';
import { linesOfReturn, lockReturn, returnName } from './common.js';

/**
 * Items that came back, line by line and partly: each unit goes back into the stock of the
 * warehouse staff choose (inventory's `Stock.restock`, reason `returned`) or is written off as
 * damaged. Under the return's lock, so two receipts of the same units at once count once: the
 * second finds them received (422 RECEIVE_QUANTITY_EXCEEDED).
 */
@injectable()
export class ReturnReceipts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Stock) private readonly stock: Stock,
  ) {}

  async receive(id: string, input: ReceiveInput): Promise<Return> {
    return this.db.tenant(async (tx) => {
      const ret = await lockReturn(tx, id);
      if (ret.kind === 'claim') {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', 'Nothing of a claim comes back: it is refunded or replaced', [{ message: 'claims are not received', from: ret.status, action: 'receive' }]);
      }
      if (!returnMachine.can(ret, 'receive')) return returnMachine.apply(tx, ret, 'receive');
      const lines = await linesOfReturn(tx, ret.id);
      const byId = new Map(lines.filter((l) => l.kind === 'returned').map((l) => [l.id, l]));
      const problems: ErrorDetail[] = [];
      const asked = new Map<string, number>();
      input.lines.forEach((r, n) => {
        const line = byId.get(r.line_id);
        if (!line) return void problems.push({ path: `body.lines.${n}`, message: 'is not a returned line of this return', code: 'RETURN_LINE_NOT_FOUND', line_id: r.line_id });
        const left = line.quantity - line.receivedQuantity - (asked.get(line.id) ?? 0);
        asked.set(line.id, (asked.get(line.id) ?? 0) + r.quantity);
        if (r.quantity > left) problems.push({ path: `body.lines.${n}.quantity`, message: `${r.quantity} received, ${Math.max(0, left)} still expected`, code: 'RECEIVE_QUANTITY_EXCEEDED', line_id: line.id, expected: Math.max(0, left) });
      });
      if (problems.length > 0) throw AppError.unprocessable(String(problems[0].code), 'The receipt does not fit the return', problems);
      const byWarehouse = new Map<string, Array<{ variantId: string; quantity: number }>>();
      for (const r of input.lines) {
        const line = byId.get(r.line_id)!;
        line.receivedQuantity += r.quantity;
        if (r.disposition === 'damaged') {
          line.damagedQuantity += r.quantity;
          continue;
        }
        line.restockedQuantity += r.quantity;
        line.warehouseId = r.warehouse_id ?? null;
        if (!line.variantId) continue;
        const key = r.warehouse_id ?? '';
        byWarehouse.set(key, [...(byWarehouse.get(key) ?? []), { variantId: line.variantId, quantity: r.quantity }]);
      }
      for (const [warehouseId, restocked] of byWarehouse) {
        await this.stock.restock(tx, { warehouseId: warehouseId || null, lines: restocked, orderId: ret.orderId, note: `return ${returnName(ret)}` });
      }
      const returned = lines.filter((l) => l.kind === 'returned');
      if (input.complete) {
        if (returned.every((l) => l.receivedQuantity === 0)) throw AppError.unprocessable('NOTHING_RECEIVED', 'Nothing of this return came back: cancel it instead', [{ path: 'body.complete', message: 'no unit received' }]);
        // What did not come back leaves the return: those units may be returned again later.
        for (const l of returned) l.quantity = l.receivedQuantity;
      }
      ret.updatedAt = tx.now();
      const all = returned.every((l) => l.receivedQuantity >= l.quantity);
      if (all) ret.receivedAt = tx.now();
      await returnMachine.apply(tx, ret, all ? 'receive' : 'receive_partially');
      tx.publish(RETURN_ITEMS_RECEIVED, {
        ...returnEvent(ret),
        lines: input.lines.map((r) => ({ line_id: r.line_id, quantity: r.quantity, disposition: r.disposition, warehouse_id: r.warehouse_id ?? null })),
      });
      return ret;
    });
  }
}
