import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** `pending` from upload initiation until confirm; the specification shows `uploaded` and `failed`. */
export const MEDIA_STATUSES = ['pending', 'uploaded', 'failed'] as const;
export type MediaStatus = (typeof MEDIA_STATUSES)[number];

/** An optimized rendition of a file (a thumbnail, a WebP copy), stored beside the original. */
export interface MediaVariant {
  name: string;
  storage_key: string;
  width: number;
  height: number;
  size_bytes: number;
  public_url: string;
}

export const MediaFile = defineEntity({
  name: 'MediaFile',
  tableName: 'media_file',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    originalName: p.string(),
    /** `<tenant id>/<file id>/<safe name>`: tenants never share an object. */
    storageKey: p.string(),
    contentType: p.string(),
    sizeBytes: p.bigint('number'),
    status: p.string().$type<MediaStatus>(),
    altText: p.string(),
    variants: p.json<MediaVariant[]>(),
    publicUrl: p.string(),
    failureReason: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type MediaFile = InferEntity<typeof MediaFile>;
