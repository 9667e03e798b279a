import { listQuery, Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { MEDIA_STATUSES } from '../entities/media-file.js';
import { MIME } from '../settings.js';

const ContentType = z
  .string()
  .trim()
  .toLowerCase()
  .regex(MIME, 'must be a MIME type such as image/png, without parameters')
  .meta({ example: 'image/png' });

export const UploadRequest = z
  .strictObject({
    original_name: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .refine((s) => !/[/\\]/.test(s), 'must be a file name without path separators')
      .refine((s) => ![...s].some((c) => c < ' ' || c === '\x7f'), 'must not contain control characters')
      .refine((s) => s !== '.' && s !== '..', 'must be a file name')
      .meta({ example: 'poncho-front.png' }),
    content_type: ContentType,
    size_bytes: z.number().int('must be a whole number of bytes').min(1, 'must be at least 1').max(Number.MAX_SAFE_INTEGER),
  })
  .meta({ id: 'MediaUploadRequest' });
export type UploadRequest = z.output<typeof UploadRequest>;

export const UploadTicket = z
  .object({
    file_id: z.uuid(),
    upload_url: z.string().meta({ description: 'PUT the bytes here with the declared Content-Type and size' }),
    expires_at: Timestamp,
  })
  .meta({ id: 'MediaUploadTicket' });

export const AltTextChange = z.strictObject({ alt_text: z.string().max(1000) }).meta({ id: 'MediaAltTextChange' });
export type AltTextChange = z.output<typeof AltTextChange>;

export const FailureReport = z.strictObject({ reason: z.string().trim().min(1).max(2000) }).meta({ id: 'MediaFailureReport' });
export type FailureReport = z.output<typeof FailureReport>;

const Dimension = z.number().int('must be a whole number of pixels').min(1).max(100_000);

export const VariantRecord = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be lower-case letters, digits, dashes and underscores')
      .meta({ example: 'thumb' }),
    storage_key: z.string().min(1).max(1024).meta({ description: "A key under the file's own prefix, `<tenant id>/<file id>/`" }),
    width: Dimension,
    height: Dimension,
    size_bytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    public_url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048),
  })
  .meta({ id: 'MediaVariant' });
export type VariantRecord = z.output<typeof VariantRecord>;

export const MediaFileOut = z
  .object({
    id: z.uuid(),
    tenant_id: z.uuid(),
    original_name: z.string(),
    storage_key: z.string(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    status: z.enum(MEDIA_STATUSES),
    alt_text: z.string(),
    variants: z.array(VariantRecord),
    public_url: z.string(),
    failure_reason: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'MediaFile' });

export const MediaListQuery = listQuery({
  filters: { status: z.enum(MEDIA_STATUSES), content_type: ContentType },
  sorts: ['created_at', 'updated_at'],
  defaultSort: '-created_at',
});
export type MediaListQuery = z.output<typeof MediaListQuery>;

/** The signed upload address of the local adapter. */
export const UploadGrantQuery = z.object({
  type: ContentType,
  size: z.coerce.number().int().min(1),
  expires: z.coerce.number().int().min(0),
  signature: z.string().min(1).max(128),
});
