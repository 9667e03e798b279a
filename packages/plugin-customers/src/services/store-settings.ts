import { Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { CustomerStoreSettings, type RegistrationMode } from '../entities/store-settings.js';
import type { StoreSettingsInput } from '../schemas/settings.js';
import { CUSTOMER_SETTINGS, type CustomerSettings } from './settings.js';

/** A store's customer-account settings as they apply: its own choices, the platform's otherwise. */
export interface EffectiveSettings {
  registration: RegistrationMode;
  accountUrl: string;
  linkTtlHours: number;
  /** Which of the two the store set itself (the others follow the platform). */
  own: { registration: boolean; accountUrl: boolean };
  updatedAt: Date | null;
}

/** Each store's choice of sign-up policy and account-link page; only an admin changes them. */
@injectable()
export class StoreSettings {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CUSTOMER_SETTINGS) private readonly platform: CustomerSettings,
  ) {}

  get(): Promise<EffectiveSettings> {
    return this.db.tenant((tx) => this.in(tx));
  }

  /** The settings in `tx` (one read by primary key). */
  async in(tx: Tx): Promise<EffectiveSettings> {
    return this.effective(await tx.em.findOne(CustomerStoreSettings, { tenantId: tx.tenantId }));
  }

  /** Replaces the store's settings: an absent or null field follows the platform's default. */
  async replace(input: StoreSettingsInput): Promise<EffectiveSettings> {
    return this.db.tenant(async (tx) => {
      const row = await tx.em.upsert(CustomerStoreSettings, {
        tenantId: tx.tenantId,
        registration: input.registration ?? null,
        accountUrl: input.account_url ?? null,
        updatedAt: tx.now(),
      });
      return this.effective(row);
    });
  }

  private effective(row: CustomerStoreSettings | null): EffectiveSettings {
    return {
      registration: row?.registration ?? this.platform.registration,
      accountUrl: row?.accountUrl ?? this.platform.accountUrl,
      linkTtlHours: this.platform.linkTtlHours,
      own: { registration: Boolean(row?.registration), accountUrl: Boolean(row?.accountUrl) },
      updatedAt: row?.updatedAt ?? null,
    };
  }
}
