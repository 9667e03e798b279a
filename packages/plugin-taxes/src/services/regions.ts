import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { TaxRegion } from '../entities/region.js';
import type { RegionCreate, RegionPatch } from '../schemas/taxes.js';

export const regionNotFound = () => AppError.notFound('Tax region', 'TAX_REGION_NOT_FOUND');

const regionExists = () =>
  AppError.conflict('The store already has a tax region for this country and province', 'TAX_REGION_EXISTS', [
    { path: 'body.province', message: 'another region covers the same country and province' },
  ]);

/** The store's tax regions and their rates: the only writer of `taxes_region`. */
@injectable()
export class TaxRegions {
  constructor(@inject(Database) private readonly db: Database) {}

  async create(input: RegionCreate): Promise<TaxRegion> {
    try {
      return await this.db.tenant(async (tx) => {
        const at = tx.now();
        const region = tx.em.create(TaxRegion, {
          id: randomUUID(),
          tenantId: tx.tenantId,
          name: input.name ?? (input.province ? `${input.country_code}-${input.province}` : input.country_code),
          countryCode: input.country_code,
          province: input.province ?? null,
          rates: input.rates,
          createdAt: at,
          updatedAt: at,
        });
        await tx.em.flush();
        return region;
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw regionExists();
      throw error;
    }
  }

  async list(page: PageRequest, filter: { country_code?: string }): Promise<Page<TaxRegion>> {
    return this.db.tenant(({ em }) => paginate(em, TaxRegion, filter.country_code ? { countryCode: filter.country_code } : {}, page));
  }

  async get(id: string): Promise<TaxRegion> {
    return this.db.tenant(async ({ em }) => (await em.findOne(TaxRegion, { id })) ?? Promise.reject(regionNotFound()));
  }

  /** Renames the region or replaces its whole rate table. */
  async update(id: string, patch: RegionPatch): Promise<TaxRegion> {
    return this.change(id, (region) => {
      if (patch.name !== undefined) region.name = patch.name;
      if (patch.rates !== undefined) region.rates = patch.rates;
    });
  }

  /** Sets one class's rate in the region. */
  async setRate(id: string, taxClass: string, rate: number): Promise<TaxRegion> {
    if (taxClass === 'exempt') throw AppError.validation('exempt is always 0 % and takes no rate', [{ path: 'params.tax_class', message: 'exempt takes no rate' }]);
    return this.change(id, (region) => (region.rates = { ...region.rates, [taxClass]: rate }));
  }

  /** Removes one class's rate (that class is then taxed at the region's standard rate). */
  async removeRate(id: string, taxClass: string): Promise<TaxRegion> {
    return this.change(id, (region) => {
      if (!(taxClass in region.rates)) throw AppError.notFound('Rate of this class in the region', 'TAX_RATE_NOT_FOUND');
      const { [taxClass]: _removed, ...rest } = region.rates;
      region.rates = rest;
    });
  }

  async remove(id: string): Promise<void> {
    await this.db.tenant(async ({ em }) => {
      if ((await em.nativeDelete(TaxRegion, { id })) === 0) throw regionNotFound();
    });
  }

  private change(id: string, work: (region: TaxRegion, tx: Tx) => void): Promise<TaxRegion> {
    return this.db.tenant(async (tx) => {
      const region = await tx.em.findOne(TaxRegion, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!region) throw regionNotFound();
      work(region, tx);
      region.updatedAt = tx.now();
      return region;
    });
  }
}
