import { defineMachine } from '@qhatu/core';
import { MEDIA_STATUSES, type MediaFile, type MediaStatus } from '../entities/media-file.js';

export const MEDIA_EVENTS = ['media.file.uploaded', 'media.file.failed', 'media.file.deleted'] as const;

/** What media events carry. */
export function mediaEvent(file: MediaFile) {
  return {
    id: file.id,
    status: file.status,
    original_name: file.originalName,
    content_type: file.contentType,
    size_bytes: file.sizeBytes,
    public_url: file.publicUrl,
    failure_reason: file.failureReason ?? null,
  };
}

/** A media file: created `pending` by upload initiation, `uploaded` once confirmed, `failed` from anywhere. */
export const mediaFileMachine = defineMachine<MediaFile, MediaStatus>({
  name: 'media file',
  field: 'status',
  states: MEDIA_STATUSES,
  transitions: {
    confirm: { from: ['pending'], to: 'uploaded', event: 'media.file.uploaded' },
    fail: {
      from: '*',
      to: 'failed',
      effect: ({ entity, input }) => {
        entity.failureReason = (input as { reason: string }).reason;
      },
      event: 'media.file.failed',
    },
  },
  eventData: mediaEvent,
});
