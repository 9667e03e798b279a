import { inject, injectable } from 'tsyringe';
import { Database, type SqlReader, type TxReader } from '../db/database.js';
import { AppError } from '../errors.js';
import type { MailDefinition, QhatuPlugin } from '../plugin.js';
import { PLUGINS } from '../tokens.js';
import { localeNotListed, normalizeLocale, storeLocales, type StoreLocales } from '../translations/locales.js';

/**
 * A store's own texts of the e-mails its plugins send to its customers (decision 0098): per mail
 * and locale a subject and a text with `{{variable}}` placeholders. A mail is composed in the
 * recipient's locale: the store's text in it, else the store's text in its default locale, else
 * the plugin's built-in message. Staff write them with `PUT /api/v1/mail-texts/:key/:locale`.
 */

export const MAIL_KEY = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;
const PLACEHOLDER = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi;

export interface ComposedMail {
  subject: string;
  text: string;
  html?: string;
}

export interface MailText {
  key: string;
  locale: string;
  subject: string;
  text: string;
  updatedAt: Date;
}

interface MailTextRow {
  key: string;
  locale: string;
  subject: string;
  text: string;
  updated_at: Date | string;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** `{{name}}` replaced by its value (an unknown or absent one by nothing). */
export function fillPlaceholders(template: string, variables: Record<string, string | number | null | undefined>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = variables[name.toLowerCase()];
    return value === null || value === undefined ? '' : String(value);
  });
}

/** A text as HTML: escaped, a paragraph per blank-line-separated block, line breaks kept, web addresses as links. */
export function textToHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((block) => block.trim())
    .filter((block) => block.length > 0)
    .map((block) => `<p>${escapeHtml(block).replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}">${url}</a>`).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
}

@injectable()
export class MailTexts {
  private readonly mails: Map<string, MailDefinition & { plugin: string }>;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(PLUGINS) plugins: QhatuPlugin[],
  ) {
    this.mails = new Map(plugins.flatMap((plugin) => (plugin.mails ?? []).map((m) => [m.key, { ...m, plugin: plugin.name }] as const)));
  }

  /** Every mail the installed plugins send, by key. */
  definitions(): Array<MailDefinition & { plugin: string }> {
    return [...this.mails.values()].sort((a, b) => a.key.localeCompare(b.key));
  }

  definition(key: string): MailDefinition & { plugin: string } {
    const found = this.mails.get(key);
    if (!found) throw AppError.notFound('Mail');
    return found;
  }

  /** The store's texts, of every mail or of one. */
  async list(key?: string): Promise<MailText[]> {
    return this.db.read(async (sql) => {
      const rows = await sql.query<MailTextRow>(
        `select key, locale, subject, text, updated_at from core_mail_text where tenant_id = ?${key ? ' and key = ?' : ''} order by key, locale`,
        key ? [sql.tenantId, key] : [sql.tenantId],
      );
      return rows.map(textOf);
    });
  }

  /** Writes the store's text of a mail in a locale it lists (its default included: the store's own wording). */
  async put(tenantId: string, key: string, locale: string, input: { subject: string; text: string }): Promise<MailText> {
    const mail = this.definition(key);
    const wanted = normalizeLocale(locale);
    const unknown = [...new Set([...`${input.subject}\n${input.text}`.matchAll(PLACEHOLDER)].map((m) => m[1].toLowerCase()))].filter((name) => !(name in mail.variables));
    if (unknown.length > 0) {
      throw AppError.unprocessable('MAIL_VARIABLE_UNKNOWN', `The mail ${key} has no variable ${unknown.map((n) => `{{${n}}}`).join(', ')}; it has ${Object.keys(mail.variables).map((n) => `{{${n}}}`).join(', ')}`, [
        { path: 'body', message: 'uses variables the mail does not have', unknown, variables: Object.keys(mail.variables) },
      ]);
    }
    return this.db.tenant(async (tx) => {
      const store = await localesOf(tx);
      if (!store.locales.includes(wanted)) throw localeNotListed(wanted, store, 'params.locale');
      const [row] = await tx.query<MailTextRow>(
        `insert into core_mail_text (tenant_id, key, locale, subject, text, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)
         on conflict (tenant_id, key, locale) do update set subject = excluded.subject, text = excluded.text, updated_at = excluded.updated_at
         returning key, locale, subject, text, updated_at`,
        [tx.tenantId, key, wanted, input.subject, input.text, tx.now(), tx.now()],
      );
      return textOf(row);
    }, tenantId);
  }

  async remove(tenantId: string, key: string, locale: string): Promise<void> {
    this.definition(key);
    await this.db.tenant(async (tx) => {
      const rows = await tx.query('delete from core_mail_text where tenant_id = ? and key = ? and locale = ? returning key', [tx.tenantId, key, normalizeLocale(locale)]);
      if (rows.length === 0) throw AppError.notFound('Mail text');
    }, tenantId);
  }

  /**
   * The mail `key` for a recipient reading `locale` (null: the store's default): the store's text
   * in that locale, else in its default locale, else `builtIn` (the plugin's own message). One
   * statement, inside the caller's transaction when it has one.
   */
  async compose(sql: TxReader | SqlReader, key: string, locale: string | null | undefined, variables: Record<string, string | number | null | undefined>, builtIn: ComposedMail): Promise<ComposedMail & { locale: string | null }> {
    const rows = await sql.query<{ locale: string; subject: string; text: string; is_default: boolean }>(
      `select m.locale, m.subject, m.text, m.locale = t.default_locale as is_default
         from core_mail_text m join core_tenant t on t.id = m.tenant_id
        where m.tenant_id = ? and m.key = ? and (m.locale = ? or m.locale = t.default_locale)`,
      [sql.tenantId, key, locale ? normalizeLocale(locale) : ''],
    );
    const chosen = rows.find((r) => locale && r.locale === normalizeLocale(locale)) ?? rows.find((r) => r.is_default);
    if (!chosen) return { ...builtIn, locale: null };
    const text = fillPlaceholders(chosen.text, variables);
    return { subject: fillPlaceholders(chosen.subject, variables).replace(/[\r\n]+/g, ' ').trim(), text, html: textToHtml(text), locale: chosen.locale };
  }
}

async function localesOf(tx: TxReader): Promise<StoreLocales> {
  const [row] = await tx.query<{ default_locale: string; locales: string[] }>('select default_locale, locales from core_tenant where id = ?', [tx.tenantId]);
  return storeLocales(row.default_locale, row.locales);
}

function textOf(row: MailTextRow): MailText {
  return { key: row.key, locale: row.locale, subject: row.subject, text: row.text, updatedAt: new Date(row.updated_at) };
}
