import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, escapeLike, type Tx } from '@qhatu/core';
import { BlogPost } from '../entities/post.js';

const MAX_SLUG = 80;

/** Letters that Unicode does not decompose into a base letter and an accent. */
const LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i', ħ: 'h' };

/** Accents and punctuation folded away, lower case: "Año Nuevo!" → ["ano", "nuevo"]. */
export function foldWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[ßæœøđðłþıħ]/g, (c) => LETTERS[c])
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** The slug a title makes; "post" when nothing of it survives folding (a title in another script). */
export function slugOf(title: string): string {
  let slug = '';
  for (const word of foldWords(title)) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > MAX_SLUG) break;
    slug = next;
  }
  return slug || foldWords(title)[0]?.slice(0, MAX_SLUG) || 'post';
}

/**
 * The slug to store. An absent slug on an edit keeps the current one; an empty or absent one on
 * create (or an empty one on an edit) is made from the title, `-2`, `-3`, ... when taken. A slug
 * sent explicitly must be free: 409.
 */
export async function resolveSlug(
  { em, tenantId }: Tx,
  requested: string | null | undefined,
  title: string,
  current?: { id: string; slug: string },
): Promise<string> {
  if (requested === undefined && current) return current.slug;
  if (requested) {
    if (requested !== current?.slug && (await em.count(BlogPost, { slug: requested, ...(current ? { id: { $ne: current.id } } : {}) }))) {
      throw slugTaken(requested);
    }
    return requested;
  }
  const base = slugOf(title);
  // Writers of the same title in this store take turns here, so each sees the others' slugs.
  await em.execute(`select pg_advisory_xact_lock(hashtext(?))`, [`blog_post_slug:${tenantId}:${base}`]);
  const where = { $or: [{ slug: base }, { slug: { $like: `${escapeLike(base)}-%` } }], ...(current ? { id: { $ne: current.id } } : {}) };
  const taken = new Set((await em.find(BlogPost, where, { fields: ['slug'] })).map((p) => p.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * Runs `write` (a whole transaction) again when another post took the slug between the look-up
 * and the insert (caught by the unique index): a made slug moves on to the next number, a slug
 * the client sent is the 409 naming it.
 */
export async function retryTakenSlug<T>(requested: string | null | undefined, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || !String(error.message).includes('blog_post_slug')) throw error;
      if (requested) throw slugTaken(requested);
      if (attempt === 5) throw error;
    }
  }
}

function slugTaken(slug: string): AppError {
  return AppError.conflict(`The slug "${slug}" is already used by another post of this store`, 'CONFLICT', [{ path: 'body.slug', message: 'is taken' }]);
}
