import { Database, keyset, pgDate, searchCondition, type KeysetColumn, type Page, type SqlReader } from '@qhatu/core';
import { BLOG_TRANSLATIONS } from './translations.js';
import { inject, injectable } from 'tsyringe';
import type { BlogPost, PostStatus } from '../entities/post.js';
import type { PostListQuery } from '../schemas/post.js';
import { postNotFound } from './posts.js';
import { foldWords } from './slugs.js';

/**
 * The storefront's reads in plain SQL: a post page and the blog's listing are what shoppers ask
 * for, so they skip the ORM's hydration and run as one read-only transaction. In a locale other
 * than the store's default, a post's title, excerpt and content are its translation's where it has
 * them (decision 0089).
 */

const COLUMNS = `id, tenant_id, title, slug, content, excerpt, author, featured_image, tags, status, published_at, archived_at, created_at, updated_at`;

const SORTS: Record<string, KeysetColumn> = {
  published_at: { sql: 'coalesce(published_at, created_at)', type: 'timestamptz' },
  created_at: { sql: 'created_at', type: 'timestamptz' },
  title: { sql: 'title', type: 'text' },
};

type Row = Record<string, unknown>;

function toPost(r: Row): BlogPost {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    title: r.title as string,
    slug: r.slug as string,
    content: r.content as string,
    excerpt: (r.excerpt as string | null) ?? null,
    author: (r.author as string | null) ?? null,
    featuredImage: (r.featured_image as string | null) ?? null,
    tags: r.tags as string[],
    status: r.status as PostStatus,
    publishedAt: r.published_at == null ? null : pgDate(r.published_at),
    archivedAt: r.archived_at == null ? null : pgDate(r.archived_at),
    createdAt: pgDate(r.created_at),
    updatedAt: pgDate(r.updated_at),
  } as BlogPost;
}

/** The columns of a post read in `locale`: the translated fields over the post's own. */
function columnsIn(locale: string): string {
  let columns = COLUMNS;
  for (const field of ['title', 'content', 'excerpt']) columns = columns.replace(`${field},`, `${BLOG_TRANSLATIONS.field('blog_post', 'post', locale, field)} as ${field},`);
  return columns;
}

/** Who is reading: the store's admin sees every post, everyone else published ones only. */
export interface Reader {
  publishedOnly: boolean;
  /** A locale other than the store's default: texts translated field by field, `q` found in the translated titles too. */
  locale?: string;
}

@injectable()
export class PostReads {
  constructor(@inject(Database) private readonly db: Database) {}

  /** A post by id; a post the reader may not see is a 404 like a missing one. */
  get(id: string, reader: Reader): Promise<BlogPost> {
    return this.db.read((sql) => this.one(sql, 'id = ?::uuid', id, reader));
  }

  getBySlug(slug: string, reader: Reader): Promise<BlogPost> {
    return this.db.read((sql) => this.one(sql, 'slug = ?', slug, reader));
  }

  list(query: PostListQuery, reader: Reader): Promise<Page<BlogPost>> {
    return this.db.read(async (sql) => {
      const conditions = ['tenant_id = ?'];
      const params: unknown[] = [sql.tenantId];
      const where = (condition: string, ...values: unknown[]) => {
        conditions.push(condition);
        params.push(...values);
      };
      const status: PostStatus | undefined = reader.publishedOnly ? 'published' : query.status;
      if (reader.publishedOnly && query.status && query.status !== 'published') where('false');
      if (status) where('status = ?', status);
      if (query.q) {
        // The title's words as they were folded for search_words; none left (only punctuation) finds nothing.
        const words = foldWords(query.q);
        // In another locale, the translated titles too, stemmed in its language.
        const translated = reader.locale ? BLOG_TRANSLATIONS.matching('blog_post', 'post', reader.locale, query.q).ids : undefined;
        const own = words.length === 0 ? undefined : searchCondition('blog_post', words.join(' '));
        if (own && translated) where(`(${own[0]} or id in (${translated.sql}))`, own[1], ...translated.params);
        else if (own) where(...own);
        else if (translated) where(`id in (${translated.sql})`, ...translated.params);
        else where('false');
      }
      const resume = keyset(query, SORTS);
      if (resume.where) where(resume.where, ...resume.params);
      const rows = await sql.query<Row>(`select ${COLUMNS} from blog_post where ${conditions.join(' and ')} ${resume.tail}`, params);
      const field = query.sort.replace(/^-/, '');
      const page = resume.finish(rows.map(toPost), (p) =>
        field === 'title' ? p.title : (field === 'created_at' ? p.createdAt : (p.publishedAt ?? p.createdAt)).toISOString(),
      );
      // Translated once the cursor was made of the posts' own titles.
      if (reader.locale) {
        const fields = await BLOG_TRANSLATIONS.fieldsOf(sql, 'post', page.items.map((p) => p.id), reader.locale);
        for (const post of page.items) {
          const t = fields.get(post.id);
          if (t?.title !== undefined) post.title = t.title;
          if (t?.excerpt !== undefined) post.excerpt = t.excerpt;
          if (t?.content !== undefined) post.content = t.content;
        }
      }
      return page;
    });
  }

  private async one(sql: SqlReader, condition: string, value: string, reader: Reader): Promise<BlogPost> {
    const [row] = await sql.query<Row>(
      `select ${reader.locale ? columnsIn(reader.locale) : COLUMNS} from blog_post where tenant_id = ? and ${condition}${reader.publishedOnly ? ` and status = 'published'` : ''}`,
      [sql.tenantId, value],
    );
    if (!row) throw postNotFound();
    return toPost(row);
  }
}
