import { AppError, Database, TranslationTable, type Translation, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { PostTranslationReplace } from '../schemas/translation.js';
import { sanitizeContent } from './content.js';
import { postNotFound } from './posts.js';

/** The blog's translation table (migration 0003). */
export const BLOG_TRANSLATIONS = new TranslationTable('blog_translation');

export const TRANSLATION_EVENTS = ['blog.translation.updated', 'blog.translation.deleted'] as const;

/** Posts in the store's other locales (decision 0089): the only writer of their translations. */
@injectable()
export class PostTranslations {
  constructor(@inject(Database) private readonly db: Database) {}

  /** Replaces the post's translation into `locale`; its title and excerpt become findable in that locale's language. */
  async put(postId: string, locale: string, input: PostTranslationReplace): Promise<Translation> {
    return this.db.tenant(async (tx) => {
      await this.find(tx, postId);
      await TranslationTable.assertTranslatable(tx, locale);
      const fields: Record<string, string> = {};
      if (input.title !== undefined) fields.title = input.title;
      if (input.excerpt !== undefined) fields.excerpt = input.excerpt;
      if (input.content !== undefined) fields.content = sanitizeContent(input.content);
      // The list's `q` searches titles: so does a locale's.
      const translation = await BLOG_TRANSLATIONS.put(tx, 'post', postId, locale, fields, fields.title ?? '');
      tx.publish('blog.translation.updated', { post_id: postId, locale, fields: Object.keys(fields) });
      await tx.em.flush();
      return translation;
    });
  }

  async list(postId: string): Promise<Translation[]> {
    return this.db.tenant(async (tx) => {
      await this.find(tx, postId);
      return BLOG_TRANSLATIONS.list(tx, 'post', postId);
    });
  }

  async remove(postId: string, locale: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      await this.find(tx, postId);
      if (!(await BLOG_TRANSLATIONS.remove(tx, 'post', postId, locale))) throw postTranslationNotFound();
      tx.publish('blog.translation.deleted', { post_id: postId, locale });
      await tx.em.flush();
    });
  }

  private async find(tx: Tx, postId: string): Promise<void> {
    if ((await tx.query('select 1 from blog_post where tenant_id = ? and id = ?', [tx.tenantId, postId])).length === 0) throw postNotFound();
  }
}

const postTranslationNotFound = () => AppError.notFound('Translation', 'TRANSLATION_NOT_FOUND');
