import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, paginate, type ErrorDetail, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { ReturnReason } from '../entities/reason.js';

const reasonNotFound = () => AppError.notFound('Return reason', 'RETURN_REASON_NOT_FOUND');
const taken = (code: string) => AppError.conflict(`The store has a reason with code ${code} already`, 'RETURN_REASON_EXISTS', [{ path: 'body.code', message: 'is taken', code }]);

/** The store's list of reasons for a return; a return names one of the active ones. */
@injectable()
export class ReturnReasons {
  constructor(@inject(Database) private readonly db: Database) {}

  async list(page: PageRequest, filter: { active?: boolean }): Promise<Page<ReturnReason>> {
    return this.db.tenant(({ em }) => paginate(em, ReturnReason, filter.active === undefined ? {} : { active: filter.active }, page));
  }

  async create(input: { code: string; label: string; active?: boolean }): Promise<ReturnReason> {
    return this.db.tenant(async (tx) => {
      const at = tx.now();
      const reason = tx.em.create(ReturnReason, { id: randomUUID(), tenantId: tx.tenantId, code: input.code, label: input.label, active: input.active ?? true, createdAt: at, updatedAt: at });
      await this.flush(tx, input.code);
      return reason;
    });
  }

  async update(id: string, input: { code?: string; label?: string; active?: boolean }): Promise<ReturnReason> {
    return this.db.tenant(async (tx) => {
      const reason = await tx.em.findOne(ReturnReason, { id });
      if (!reason) throw reasonNotFound();
      Object.assign(reason, { ...(input.code ? { code: input.code } : {}), ...(input.label ? { label: input.label } : {}), ...(input.active === undefined ? {} : { active: input.active }), updatedAt: tx.now() });
      await this.flush(tx, reason.code);
      return reason;
    });
  }

  /** Removes a reason; returns that named it keep its code. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const reason = await tx.em.findOne(ReturnReason, { id });
      if (!reason) throw reasonNotFound();
      tx.em.remove(reason);
    });
  }

  /** 422 RETURN_REASON_NOT_FOUND unless each code is an active reason of the store. */
  async check(tx: Tx, codes: Array<{ path: string; code: string }>): Promise<void> {
    if (codes.length === 0) return;
    const known = new Set((await tx.em.find(ReturnReason, { code: { $in: [...new Set(codes.map((c) => c.code))] }, active: true })).map((r) => r.code));
    const unknown: ErrorDetail[] = codes.filter((c) => !known.has(c.code)).map((c) => ({ path: c.path, message: 'is not one of the store’s active return reasons', reason_code: c.code }));
    if (unknown.length > 0) throw AppError.unprocessable('RETURN_REASON_NOT_FOUND', 'A return names a reason the store does not offer', unknown);
  }

  private async flush(tx: Tx, code: string): Promise<void> {
    try {
      await tx.em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw taken(code);
      throw error;
    }
  }
}
