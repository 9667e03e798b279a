import { ADMIN, dataOf, errorResponses, hasPermission, IdParams, listOf, LocaleQuery, NoContent, requestLocale, STOREFRONT, TenantContext } from '@qhatu/core';
import type { FastifyRequest } from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import type { BlogPost } from '../entities/post.js';
import { PostInput, PostListQuery, PostOut, PostPatch, SlugParams } from '../schemas/post.js';
import { PostReads, type Reader } from '../services/post-reads.js';
import { Posts } from '../services/posts.js';

/**
 * Storefront keys and customers see published posts only; drafts and archived posts are 404s to
 * them. Every reader reads in the locale asked (`locale`, else Accept-Language, else the default).
 */
const reader = (req: FastifyRequest): Reader => {
  const choice = requestLocale(req);
  return { publishedOnly: !hasPermission(TenantContext.principal(), 'blog.read'), locale: choice.translated ? choice.locale : undefined };
};

export async function postRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const posts = container.resolve(Posts);
  const reads = container.resolve(PostReads);
  const tags = ['Blog'];

  r.get('/blog/posts', {
    config: { auth: STOREFRONT, permission: 'blog.read' },
    schema: { tags, summary: 'List posts (storefront: published only; q searches titles)', querystring: PostListQuery, response: { 200: listOf(PostOut), ...errorResponses(400, 401, 403, 422) } },
  }, async (req) => {
    const page = await reads.list(req.query, reader(req));
    return { data: page.items.map(postOut), meta: { pagination: page.pagination } };
  });

  r.post('/blog/posts', {
    config: { auth: ADMIN, permission: 'blog.write' },
    schema: { tags, summary: 'Write a post (a draft)', body: PostInput, response: { 201: dataOf(PostOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: postOut(await posts.create(req.body)) }));

  r.get('/blog/posts/slug/:slug', {
    config: { auth: STOREFRONT, permission: 'blog.read' },
    schema: { tags, summary: 'Read a post by its slug', params: SlugParams, querystring: LocaleQuery, response: { 200: dataOf(PostOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => ({ data: postOut(await reads.getBySlug(req.params.slug, reader(req))) }));

  r.get('/blog/posts/:id', {
    config: { auth: STOREFRONT, permission: 'blog.read' },
    schema: { tags, summary: 'Read a post', params: IdParams, querystring: LocaleQuery, response: { 200: dataOf(PostOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => ({ data: postOut(await reads.get(req.params.id, reader(req))) }));

  r.patch('/blog/posts/:id', {
    config: { auth: ADMIN, permission: 'blog.write' },
    schema: { tags, summary: 'Change the fields sent', params: IdParams, body: PostPatch, response: { 200: dataOf(PostOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: postOut(await posts.update(req.params.id, req.body)) }));

  r.post('/blog/posts/:id/publish', {
    config: { auth: ADMIN, permission: 'blog.publish' },
    schema: { tags, summary: 'Publish a draft (sets published_at)', params: IdParams, response: { 200: dataOf(PostOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: postOut(await posts.publish(req.params.id)) }));

  r.delete('/blog/posts/:id', {
    config: { auth: ADMIN, permission: 'blog.write' },
    schema: { tags, summary: 'Archive a post (kept, no longer shown in the storefront)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await posts.archive(req.params.id);
    return reply.code(204).send(null);
  });
}

export function postOut(p: BlogPost) {
  return {
    id: p.id,
    title: p.title,
    slug: p.slug,
    content: p.content,
    excerpt: p.excerpt ?? null,
    author: p.author ?? null,
    featured_image: p.featuredImage ?? null,
    tags: p.tags,
    status: p.status,
    published_at: p.publishedAt?.toISOString() ?? null,
    archived_at: p.archivedAt?.toISOString() ?? null,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
