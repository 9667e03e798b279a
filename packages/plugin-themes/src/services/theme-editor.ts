import { randomUUID } from 'node:crypto';
import { AppError, Database, pgDate, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { ThemeSettings } from '../entities/catalog-theme.js';
import { SETTINGS_PUBLISHED, VERSION_RESTORED } from './events.js';
import { actor } from './principal.js';
import { storefrontSettings } from './storefront-settings.js';
import { StoreTimeZone, versionTime } from './time-zone.js';

/** Versions kept per installed theme, besides its baseline; the list shows as many. */
export const VERSIONS_KEPT = 50;
/** The label of the version each publish stores. */
export const PUBLISHED_LABEL = 'Publicado';

export interface VersionSummary {
  id: string;
  label: string;
  created_by: string | null;
  created_at: string;
}

export const noActiveTheme = () =>
  new AppError(404, 'NO_ACTIVE_THEME', 'The store has no active theme: install one and activate it with POST /api/v1/theme-store/:id/activate');
const versionNotFound = () => AppError.notFound('Theme version', 'THEME_VERSION_NOT_FOUND');

/**
 * Locks the store's installed themes, in the order an activation does, and gives the active one:
 * a write that waited on an activation sees the theme that is active now, and none can switch it
 * until this transaction commits.
 */
async function lockActiveTheme(tx: Tx): Promise<{ id: string; theme_catalog_id: string }> {
  const rows = await tx.em.execute<Array<{ id: string; theme_catalog_id: string; is_active: boolean }>>(
    `select id, theme_catalog_id, is_active from themes_installed where tenant_id = ? order by id for update`,
    [tx.tenantId],
  );
  const active = rows.find((r) => r.is_active);
  if (!active) throw noActiveTheme();
  return active;
}

interface VersionRow {
  id: string;
  label: string;
  created_by: string | null;
  created_at: unknown;
  is_baseline: boolean;
  snapshot?: ThemeSettings;
}

const summary = (r: VersionRow, zone: string): VersionSummary => ({
  id: r.id,
  label: r.label,
  created_by: r.created_by,
  created_at: versionTime(pgDate(r.created_at), zone),
});

/**
 * The settings of the store's active theme: the draft the admin edits, the versions saved from
 * it (the 50 newest and the theme's baseline), and publishing the draft to the storefront.
 */
@injectable()
export class ThemeEditor {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(StoreTimeZone) private readonly zones: StoreTimeZone,
  ) {}

  async draft(): Promise<ThemeSettings> {
    return this.db.read(async (sql) => {
      const [row] = await sql.query<{ draft: ThemeSettings }>(`select draft from themes_installed where tenant_id = ? and is_active`, [sql.tenantId]);
      if (!row) throw noActiveTheme();
      return row.draft;
    });
  }

  /** Replaces the draft with `settings` as a storefront may render them (decision 0056). */
  async saveDraft(settings: ThemeSettings): Promise<ThemeSettings> {
    const draft = storefrontSettings(settings, 'body');
    return this.db.tenant(async (tx) => {
      const theme = await lockActiveTheme(tx);
      const [row] = await tx.em.execute<Array<{ draft: ThemeSettings }>>(
        `update themes_installed set draft = ?::jsonb, draft_updated_at = ? where tenant_id = ? and id = ? returning draft`,
        [JSON.stringify(draft), tx.now(), tx.tenantId, theme.id],
      );
      return row.draft;
    });
  }

  async versions(): Promise<{ versions: VersionSummary[]; baseline: VersionSummary | null }> {
    return this.db.read(async (sql) => {
      const [theme] = await sql.query<{ id: string; time_zone: string | null }>(
        `select id, ${this.zones.column} as time_zone from themes_installed where tenant_id = ? and is_active`,
        [sql.tenantId, sql.tenantId],
      );
      if (!theme) throw noActiveTheme();
      const rows = await sql.query<VersionRow>(
        `(select id, label, created_by, created_at, is_baseline, seq from themes_version
           where tenant_id = ? and installed_theme_id = ? order by seq desc limit ${VERSIONS_KEPT})
         union
         (select id, label, created_by, created_at, is_baseline, seq from themes_version
           where tenant_id = ? and installed_theme_id = ? and is_baseline)
         order by seq desc`,
        [sql.tenantId, theme.id, sql.tenantId, theme.id],
      );
      const zone = this.zones.or(theme.time_zone);
      const base = rows.find((r) => r.is_baseline);
      return {
        versions: rows.slice(0, VERSIONS_KEPT).map((r) => summary(r, zone)),
        baseline: base ? summary(base, zone) : null,
      };
    });
  }

  async version(id: string): Promise<VersionSummary & { snapshot: ThemeSettings }> {
    return this.db.read(async (sql) => {
      const [row] = await sql.query<VersionRow & { theme_id: string; time_zone: string | null }>(
        `select i.id as theme_id, ${this.zones.column} as time_zone, v.id, v.label, v.created_by, v.created_at, v.is_baseline, v.snapshot
           from themes_installed i
           left join themes_version v on v.tenant_id = i.tenant_id and v.installed_theme_id = i.id and v.id = ?
          where i.tenant_id = ? and i.is_active`,
        [sql.tenantId, id, sql.tenantId],
      );
      if (!row) throw noActiveTheme();
      if (!row.id) throw versionNotFound();
      return { ...summary(row, this.zones.or(row.time_zone)), snapshot: row.snapshot! };
    });
  }

  /** Saves the draft of the active theme as a version; `label` is empty when not given. */
  async saveVersion(label = ''): Promise<VersionSummary> {
    return this.db.tenant(async (tx) => {
      const row = await this.addVersion(tx, label, 'draft');
      return summary(row, await this.zoneIn(tx));
    });
  }

  /** Overwrites the draft with a version's snapshot; nothing is published. */
  async restore(id: string): Promise<{ label: string }> {
    return this.db.tenant(async (tx) => {
      const theme = await lockActiveTheme(tx);
      const [version] = await tx.em.execute<Array<{ label: string }>>(
        `update themes_installed i set draft = v.snapshot, draft_updated_at = ?
           from themes_version v
          where i.tenant_id = ? and i.id = ? and v.tenant_id = i.tenant_id and v.installed_theme_id = i.id and v.id = ?
          returning v.label`,
        [tx.now(), tx.tenantId, theme.id, id],
      );
      if (!version) throw versionNotFound();
      tx.publish(VERSION_RESTORED, { id, installed_theme_id: theme.id, theme_catalog_id: theme.theme_catalog_id, label: version.label });
      return { label: version.label };
    });
  }

  /** Makes the draft what the storefront shows, and keeps it as a version labelled Publicado. */
  async publish(): Promise<{ label: string; versionId: string; publishedAt: Date }> {
    return this.db.tenant(async (tx) => {
      const at = tx.now();
      const row = await this.addVersion(tx, PUBLISHED_LABEL, 'publish');
      tx.publish(SETTINGS_PUBLISHED, {
        id: row.installed_theme_id,
        theme_catalog_id: row.theme_catalog_id,
        version_id: row.id,
        published_at: at.toISOString(),
      });
      return { label: PUBLISHED_LABEL, versionId: row.id, publishedAt: at };
    });
  }

  /**
   * Numbers and stores a version of the active theme's draft (publishing it first when asked),
   * then deletes what falls out of the newest 50, in the same transaction. The store's theme rows
   * are locked first: saves run one at a time and number without gaps.
   */
  private async addVersion(tx: Tx, label: string, mode: 'draft' | 'publish') {
    const at = tx.now();
    const publish = mode === 'publish' ? ', published = draft, published_at = ?' : '';
    const active = await lockActiveTheme(tx);
    const [theme] = await tx.em.execute<Array<{ id: string; theme_catalog_id: string; seq: string | number; draft: ThemeSettings }>>(
      `update themes_installed set version_seq = version_seq + 1${publish}
        where tenant_id = ? and id = ? returning id, theme_catalog_id, version_seq as seq, draft`,
      mode === 'publish' ? [at, tx.tenantId, active.id] : [tx.tenantId, active.id],
    );
    const seq = Number(theme.seq);
    const row = {
      id: randomUUID(),
      label,
      created_by: actor(),
      created_at: at,
      is_baseline: false,
      installed_theme_id: theme.id,
      theme_catalog_id: theme.theme_catalog_id,
    };
    await tx.em.execute(
      `insert into themes_version (tenant_id, id, installed_theme_id, seq, label, snapshot, is_baseline, created_by, created_at)
       values (?, ?, ?, ?, ?, ?::jsonb, false, ?, ?)`,
      [tx.tenantId, row.id, theme.id, seq, label, JSON.stringify(theme.draft), row.created_by, at],
    );
    await tx.em.execute(
      `delete from themes_version where tenant_id = ? and installed_theme_id = ? and not is_baseline and seq <= ?`,
      [tx.tenantId, theme.id, seq - VERSIONS_KEPT],
    );
    return row;
  }

  private async zoneIn(tx: Tx): Promise<string> {
    const [row] = await tx.em.execute<Array<{ time_zone: string | null }>>(`select ${this.zones.column} as time_zone`, [tx.tenantId]);
    return this.zones.or(row?.time_zone);
  }
}
