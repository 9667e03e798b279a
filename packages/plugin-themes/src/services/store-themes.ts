import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { CatalogTheme } from '../entities/catalog-theme.js';
import { InstalledTheme } from '../entities/installed-theme.js';
import { ThemePurchase } from '../entities/purchase.js';
import { ThemeVersion } from '../entities/version.js';
import { themeNotFound } from './catalog.js';
import { THEME_ACTIVATED, THEME_INSTALLED, THEME_PURCHASED } from './events.js';
import { actor } from './principal.js';

/** The label of the version that keeps a theme's own settings, made when it is installed. */
export const BASELINE_LABEL = 'Original';

const alreadyInstalled = () => AppError.conflict('This theme is already installed in the store', 'THEME_ALREADY_INSTALLED');
const alreadyPurchased = () => AppError.conflict('The store has already purchased this theme', 'THEME_ALREADY_PURCHASED');

async function catalogTheme(tx: Tx, id: string): Promise<CatalogTheme> {
  const theme = await tx.em.findOne(CatalogTheme, { id });
  if (!theme) throw themeNotFound();
  return theme;
}

/** A unique index that a concurrent request won answers as finding its row would have. */
async function uniquely<T>(work: () => Promise<T>, conflict: () => AppError): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict();
    throw error;
  }
}

/** A store's themes: purchases, installs and the one active theme. */
@injectable()
export class StoreThemes {
  constructor(@inject(Database) private readonly db: Database) {}

  async purchase(catalogId: string): Promise<ThemePurchase> {
    return uniquely(() => this.db.tenant(async (tx) => {
      const theme = await catalogTheme(tx, catalogId);
      if (theme.price === 0) {
        throw AppError.unprocessable('THEME_IS_FREE', 'This theme is free: install it without purchasing it');
      }
      if (await tx.em.count(ThemePurchase, { themeCatalogId: catalogId })) throw alreadyPurchased();
      const purchase = tx.em.create(ThemePurchase, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        themeCatalogId: catalogId,
        price: theme.price,
        currency: theme.currency,
        purchasedBy: actor(),
        purchasedAt: tx.now(),
      });
      await tx.em.flush();
      tx.publish(THEME_PURCHASED, {
        id: purchase.id,
        theme_catalog_id: catalogId,
        theme_name: theme.name,
        price: purchase.price,
        currency: purchase.currency,
        purchased_at: purchase.purchasedAt.toISOString(),
      });
      return purchase;
    }), alreadyPurchased);
  }

  async install(catalogId: string): Promise<InstalledTheme> {
    return uniquely(() => this.db.tenant(async (tx) => {
      const theme = await catalogTheme(tx, catalogId);
      if (await tx.em.count(InstalledTheme, { themeCatalogId: catalogId })) throw alreadyInstalled();
      if (theme.price > 0 && !(await tx.em.count(ThemePurchase, { themeCatalogId: catalogId }))) {
        throw new AppError(402, 'THEME_NOT_PURCHASED', 'This theme is paid: purchase it with POST /api/v1/theme-store/:id/purchase before installing it');
      }
      const at = tx.now();
      const installed = tx.em.create(InstalledTheme, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        themeCatalogId: catalogId,
        themeName: theme.name,
        displayName: theme.displayName,
        isActive: false,
        draft: theme.baseline,
        published: theme.baseline,
        publishedAt: null,
        draftUpdatedAt: at,
        versionSeq: 1,
        installedAt: at,
        activatedAt: null,
      });
      tx.em.create(ThemeVersion, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        installedThemeId: installed.id,
        seq: 1,
        label: BASELINE_LABEL,
        snapshot: theme.baseline,
        isBaseline: true,
        createdBy: null,
        createdAt: at,
      });
      await tx.em.flush();
      tx.publish(THEME_INSTALLED, {
        id: installed.id,
        theme_catalog_id: catalogId,
        theme_name: theme.name,
        is_active: false,
        installed_at: at.toISOString(),
      });
      return installed;
    }), alreadyInstalled);
  }

  async installed(page: PageRequest): Promise<Page<InstalledTheme>> {
    return this.db.tenant(({ em }) => paginate(em, InstalledTheme, {}, page));
  }

  /**
   * Makes the installed theme of `catalogId` the store's only active one. The store's installed
   * rows are locked first, so concurrent activations run one after the other (the last one wins)
   * instead of failing on the index that allows one active theme.
   */
  async activate(catalogId: string): Promise<{ installedThemeId: string }> {
    return this.db.tenant(async (tx) => {
      const rows = await tx.em.execute<Array<{ id: string; theme_catalog_id: string; is_active: boolean }>>(
        `select id, theme_catalog_id, is_active from themes_installed where tenant_id = ? order by id for update`,
        [tx.tenantId],
      );
      const target = rows.find((r) => r.theme_catalog_id === catalogId);
      if (!target) {
        await catalogTheme(tx, catalogId);
        throw AppError.notFound('Theme installation', 'THEME_NOT_INSTALLED');
      }
      const previous = rows.find((r) => r.is_active);
      if (previous?.id !== target.id) {
        const at = tx.now();
        if (previous) await tx.em.execute(`update themes_installed set is_active = false where tenant_id = ? and id = ?`, [tx.tenantId, previous.id]);
        await tx.em.execute(`update themes_installed set is_active = true, activated_at = ? where tenant_id = ? and id = ?`, [at, tx.tenantId, target.id]);
        tx.publish(THEME_ACTIVATED, {
          id: target.id,
          theme_catalog_id: catalogId,
          previous_theme_catalog_id: previous?.theme_catalog_id ?? null,
          activated_at: at.toISOString(),
        });
      }
      return { installedThemeId: target.id };
    });
  }
}
