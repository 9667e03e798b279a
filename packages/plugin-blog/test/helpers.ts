import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import blog from '../src/index.js';

export const BASE = '/api/v1/blog/posts';
export const MISSING = '00000000-0000-4000-8000-000000000000';

export function blogApp(): Promise<TestApp> {
  return createTestApp({ plugins: [blog] });
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key, or with `token` (its storefront key, another store's key). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

export interface PostJson {
  id: string;
  title: string;
  slug: string;
  content: string;
  excerpt: string | null;
  author: string | null;
  featured_image: string | null;
  tags: string[];
  status: string;
  published_at: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export async function createPost(api: ReturnType<typeof caller>, over: Record<string, unknown> = {}): Promise<PostJson> {
  const res = await api('POST', BASE, { title: 'A post', ...over });
  if (res.statusCode !== 201) throw new Error(`post not created: ${res.body}`);
  return res.json().data;
}

export async function publish(api: ReturnType<typeof caller>, id: string): Promise<PostJson> {
  const res = await api('POST', `${BASE}/${id}/publish`);
  if (res.statusCode !== 200) throw new Error(`post not published: ${res.body}`);
  return res.json().data;
}
