import { AppError, Database, TranslationTable, type Translation, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { rateNotFound } from './rates.js';

/** The shipping plugin's translation table (migration 0002). */
export const SHIPPING_TRANSLATIONS = new TranslationTable('shipping_translation');

export const RATE_TRANSLATION_EVENTS = ['shipping.translation.updated', 'shipping.translation.deleted'] as const;

/** A rate's service name in the store's other locales (decision 0089): the only writer of them. */
@injectable()
export class RateTranslations {
  constructor(@inject(Database) private readonly db: Database) {}

  async put(rateId: string, locale: string, input: { service_name: string }): Promise<Translation> {
    return this.db.tenant(async (tx) => {
      await this.find(tx, rateId);
      await TranslationTable.assertTranslatable(tx, locale);
      const translation = await SHIPPING_TRANSLATIONS.put(tx, 'rate', rateId, locale, { service_name: input.service_name }, input.service_name);
      tx.publish('shipping.translation.updated', { rate_id: rateId, locale });
      await tx.em.flush();
      return translation;
    });
  }

  async list(rateId: string): Promise<Translation[]> {
    return this.db.tenant(async (tx) => {
      await this.find(tx, rateId);
      return SHIPPING_TRANSLATIONS.list(tx, 'rate', rateId);
    });
  }

  async remove(rateId: string, locale: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      await this.find(tx, rateId);
      if (!(await SHIPPING_TRANSLATIONS.remove(tx, 'rate', rateId, locale))) throw AppError.notFound('Translation', 'TRANSLATION_NOT_FOUND');
      tx.publish('shipping.translation.deleted', { rate_id: rateId, locale });
      await tx.em.flush();
    });
  }

  /** The service names of these rates (of the rate table) in `locale`, by rate id. */
  async serviceNames(rateIds: readonly string[], locale: string): Promise<Map<string, string>> {
    if (rateIds.length === 0) return new Map();
    const fields = await this.db.readOneMayLag((sql) => SHIPPING_TRANSLATIONS.fieldsOf(sql, 'rate', rateIds, locale));
    return new Map([...fields].filter(([, f]) => typeof f.service_name === 'string').map(([id, f]) => [id, f.service_name]));
  }

  private async find(tx: Tx, rateId: string): Promise<void> {
    if ((await tx.query('select 1 from shipping_rate where tenant_id = ? and id = ?', [tx.tenantId, rateId])).length === 0) throw rateNotFound();
  }
}
