import { IdParams, listQuery, MarketQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { COLLECTION_SORT_ORDERS, COLLECTION_STATUSES } from '../entities/collection.js';
import { LocalePageQuery, Position, Slug } from './common.js';
import { Handle } from './product.js';

export const CollectionCreate = z
  .strictObject({
    title: z.string().trim().min(1).max(255),
    slug: Slug.nullable().optional().meta({ description: 'Made from the title when empty; unique in the store' }),
    description: z.string().max(100_000).nullable().optional(),
    status: z.enum(COLLECTION_STATUSES).optional().meta({ description: 'Defaults to active' }),
    sort_order: z.enum(COLLECTION_SORT_ORDERS).optional().meta({ description: 'Defaults to manual' }),
    seo_title: z.string().max(255).nullable().optional(),
    seo_description: z.string().max(1000).nullable().optional(),
    image_media_id: Uuid.nullable().optional().meta({ description: 'An uploaded media file of the store: the cover image' }),
  })
  .meta({ id: 'CollectionCreate' });
export type CollectionCreate = z.output<typeof CollectionCreate>;

export const CollectionReplace = CollectionCreate.extend({
  position: Position.optional().meta({ description: 'Order among collections (sort=position); kept when absent' }),
}).meta({
  id: 'CollectionReplace',
  description: 'Replaces the collection: absent fields take their defaults, except slug and position, which are kept',
});
export type CollectionReplace = z.output<typeof CollectionReplace>;

export const CollectionOut = z
  .object({
    id: z.uuid(),
    title: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    status: z.enum(COLLECTION_STATUSES),
    sort_order: z.enum(COLLECTION_SORT_ORDERS),
    seo_title: z.string().nullable(),
    seo_description: z.string().nullable(),
    image_media_id: z.uuid().nullable(),
    image_url: z.string().nullable(),
    position: z.number().int(),
    product_count: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Collection' });

export const CollectionListQuery = listQuery({
  filters: { status: z.enum(COLLECTION_STATUSES) },
  sorts: ['created_at', 'title', 'position', 'product_count'],
  defaultSort: '-created_at',
  locale: true,
});
export type CollectionListQuery = z.output<typeof CollectionListQuery>;

export const CollectionProductCreate = z
  .strictObject({
    product_id: Uuid,
    position: Position.optional().meta({ description: 'Defaults to after the last product' }),
  })
  .meta({ id: 'CollectionProductCreate' });
export type CollectionProductCreate = z.output<typeof CollectionProductCreate>;

/** The relation made by adding a product. */
export const CollectionProductOut = z
  .object({
    id: z.uuid(),
    collection_id: z.uuid(),
    product_id: z.uuid(),
    position: z.number().int(),
    created_at: Timestamp,
  })
  .meta({ id: 'CollectionProduct' });

/** A product as a collection lists it. */
export const CollectionProductEntry = z
  .object({
    id: z.uuid().meta({ description: 'The product id' }),
    title: z.string(),
    slug: z.string().meta({ description: "The product's handle" }),
    price: z.number().int().nullable().meta({
      description: "Minor units of `currency`: the price of the product's first variant (by position) that has one in that currency; null when none has (not for sale in it)",
    }),
    currency: z.string().meta({ description: 'The currency of `price`: the store’s default, or the one the read asked for (`currency`, `market`, X-Market)' }),
    position: z.number().int(),
  })
  .meta({ id: 'CollectionProductEntry' });

/** The entries' query: their page, the locale of their texts, and the market or currency of their prices. */
export const CollectionProductsQuery = LocalePageQuery.extend(MarketQuery.shape);

export const CollectionProductParams = IdParams.extend({ product_id: Uuid });

export const SlugParams = z.object({ slug: Handle });
