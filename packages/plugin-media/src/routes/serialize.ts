import type { MediaFile } from '../entities/media-file.js';

export function mediaFileOut(f: MediaFile) {
  return {
    id: f.id,
    tenant_id: f.tenantId,
    original_name: f.originalName,
    storage_key: f.storageKey,
    content_type: f.contentType,
    size_bytes: f.sizeBytes,
    status: f.status,
    alt_text: f.altText,
    variants: f.variants,
    public_url: f.publicUrl,
    failure_reason: f.failureReason ?? null,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}
