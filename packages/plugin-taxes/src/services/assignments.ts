import { AppError, Database, paginate, type Page, type PageRequest } from '@qhatu/core';
import { Product, Variant } from '@qhatu/plugin-catalog';
import { inject, injectable } from 'tsyringe';
import { TaxAssignment } from '../entities/assignment.js';
import type { ClassAssign } from '../schemas/taxes.js';

export const assignmentNotFound = () => AppError.notFound('Tax class of this product or variant', 'TAX_ASSIGNMENT_NOT_FOUND');

/**
 * Which tax class a product or variant is taxed at (kept here, keyed by the catalog's ids, so the
 * catalog need not know of taxes). A variant's own class wins over its product's; without either,
 * `standard`. The catalog's `taxable: false` is `exempt` whatever the class.
 */
@injectable()
export class TaxClasses {
  constructor(@inject(Database) private readonly db: Database) {}

  /** Puts the products and variants in the class; unknown ids (another store's too) are 422 and nothing changes. */
  async assign(taxClass: string, input: ClassAssign): Promise<TaxAssignment[]> {
    return this.db.tenant(async (tx) => {
      const productIds = [...new Set(input.product_ids)];
      const variantIds = [...new Set(input.variant_ids)];
      const products = productIds.length ? await tx.em.find(Product, { id: { $in: productIds } }) : [];
      const variants = variantIds.length ? await tx.em.find(Variant, { id: { $in: variantIds } }) : [];
      const known = new Set([...products.map((p) => p.id), ...variants.map((v) => v.id)]);
      const missing = [
        ...productIds.filter((id) => !known.has(id)).map((id) => ({ path: 'body.product_ids', message: 'is not a product of this store', id })),
        ...variantIds.filter((id) => !known.has(id)).map((id) => ({ path: 'body.variant_ids', message: 'is not a variant of this store', id })),
      ];
      if (missing.length) throw AppError.unprocessable('CATALOG_REFERENCE_NOT_FOUND', `Unknown products or variants: ${missing.map((m) => m.id).join(', ')}`, missing);
      const existing = new Map((await tx.em.find(TaxAssignment, { id: { $in: [...productIds, ...variantIds] } })).map((a) => [a.id, a]));
      const at = tx.now();
      const targets = [...productIds.map((id) => ({ id, type: 'product' as const })), ...variantIds.map((id) => ({ id, type: 'variant' as const }))];
      return targets.map(({ id, type }) => {
        const row = existing.get(id);
        if (row) {
          if (row.taxClass !== taxClass) Object.assign(row, { taxClass, updatedAt: at });
          return row;
        }
        return tx.em.create(TaxAssignment, { id, tenantId: tx.tenantId, targetType: type, taxClass, createdAt: at, updatedAt: at });
      });
    });
  }

  async list(page: PageRequest, filter: { tax_class?: string }): Promise<Page<TaxAssignment>> {
    return this.db.tenant(({ em }) => paginate(em, TaxAssignment, filter.tax_class ? { taxClass: filter.tax_class } : {}, page));
  }

  /** The product or variant goes back to its default class. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async ({ em }) => {
      if ((await em.nativeDelete(TaxAssignment, { id })) === 0) throw assignmentNotFound();
    });
  }
}
