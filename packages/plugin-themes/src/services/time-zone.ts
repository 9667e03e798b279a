import { AppError, Database } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { THEMES_SETTINGS, type ThemesSettings } from './settings.js';

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone, day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formats.set(timeZone, format);
  }
  return format;
}

export function isTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(value)) return false;
  try {
    formatFor(value);
    return true;
  } catch {
    return false;
  }
}

/** `DD/MM/YYYY HH:MM` in `timeZone`: how the theme editor shows a version's time. */
export function versionTime(at: Date, timeZone: string): string {
  const part: Record<string, string> = {};
  for (const { type, value } of formatFor(timeZone).formatToParts(at)) part[type] = value;
  return `${part.day}/${part.month}/${part.year} ${part.hour}:${part.minute}`;
}

/** The time zone a store's theme editor shows times in: its own choice, else the platform default. */
@injectable()
export class StoreTimeZone {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(THEMES_SETTINGS) private readonly settings: ThemesSettings,
  ) {}

  /** The SQL that reads the store's zone (null when it chose none), for reads that fold it in. */
  readonly column = `(select time_zone from themes_store_setting where tenant_id = ?)`;

  or(zone: string | null | undefined): string {
    return zone ?? this.settings.defaultTimeZone;
  }

  async get(): Promise<string> {
    const [row] = await this.db.read((sql) => sql.query<{ time_zone: string | null }>(`select ${this.column} as time_zone`, [sql.tenantId]));
    return this.or(row?.time_zone);
  }

  async set(timeZone: string): Promise<string> {
    if (!isTimeZone(timeZone)) {
      throw AppError.validation(`"${timeZone}" is not an IANA time zone`, [{ path: 'body.time_zone', message: 'must be an IANA time zone, e.g. America/Lima' }]);
    }
    // Stored as the canonical name: `asia/tokyo` is kept as `Asia/Tokyo`.
    const canonical = formatFor(timeZone).resolvedOptions().timeZone;
    await this.db.tenant((tx) =>
      tx.em.execute(
        `insert into themes_store_setting (tenant_id, time_zone, updated_at) values (?, ?, ?)
         on conflict (tenant_id) do update set time_zone = excluded.time_zone, updated_at = excluded.updated_at`,
        [tx.tenantId, canonical, tx.now()],
      ),
    );
    return canonical;
  }
}
