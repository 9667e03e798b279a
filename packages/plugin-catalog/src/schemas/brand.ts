import { listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { HexColor, HttpUrl, Slug } from './common.js';

export const BrandCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    slug: Slug.nullable().optional().meta({ description: 'Made from the name when empty; unique in the store' }),
    description: z.string().max(100_000).nullable().optional(),
    color: HexColor.nullable().optional(),
    logo_media_id: Uuid.nullable().optional().meta({ description: 'An uploaded media file of the store' }),
    website_url: HttpUrl.nullable().optional(),
  })
  .meta({ id: 'BrandCreate', description: 'Also the body of PUT, which replaces the brand (an absent slug is kept)' });
export type BrandCreate = z.output<typeof BrandCreate>;

export const BrandOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    color: z.string().nullable(),
    logo_media_id: z.uuid().nullable(),
    logo_url: z.string().nullable(),
    website_url: z.string().nullable(),
    product_count: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Brand' });

export const BrandListQuery = listQuery({ sorts: ['name', 'created_at'], defaultSort: 'name', search: true, locale: true });
export type BrandListQuery = z.output<typeof BrandListQuery>;
