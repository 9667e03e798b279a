import { IdParams, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { HttpUrl, Position } from './common.js';

export const DownloadCreate = z
  .strictObject({
    file_name: z.string().trim().min(1).max(255),
    file_url: HttpUrl,
    variant_id: Uuid.nullable().optional().meta({ description: 'A variant of this product; null: the whole product' }),
    file_size_bytes: z.number().int('must be a whole number').min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    download_limit: z.number().int('must be a whole number').min(1).max(1_000_000).nullable().optional().meta({ description: 'Maximum downloads; null: unlimited' }),
    download_expiry_days: z.number().int('must be a whole number').min(1).max(36_500).nullable().optional().meta({ description: 'Days until the link expires; null: never' }),
    position: Position.optional().meta({ description: 'Defaults to after the last download' }),
  })
  .meta({ id: 'ProductDownloadCreate' });
export type DownloadCreate = z.output<typeof DownloadCreate>;

export const DownloadPatch = DownloadCreate.partial().meta({ id: 'ProductDownloadPatch' });
export type DownloadPatch = z.output<typeof DownloadPatch>;

export const DownloadOut = z
  .object({
    id: z.uuid(),
    product_id: z.uuid(),
    variant_id: z.uuid().nullable(),
    file_name: z.string(),
    file_url: z.string(),
    file_size_bytes: z.number().int().nullable(),
    download_limit: z.number().int().nullable(),
    download_expiry_days: z.number().int().nullable(),
    position: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'ProductDownload' });

export const DownloadParams = IdParams.extend({ download_id: Uuid });
