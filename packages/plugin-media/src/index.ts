import { CONFIG, definePlugin, Jobs, type JobContext, type QhatuConfig } from '@qhatu/core';
import type { InjectionToken } from 'tsyringe';
import { MediaFile } from './entities/media-file.js';
import { MEDIA_EVENTS, mediaFileMachine } from './machines/media-file.js';
import { mediaFilesMigration } from './migrations/0001_media_files.js';
import { pendingIndexMigration } from './migrations/0002_pending_index.js';
import { localStorageRoutes } from './routes/local-storage.js';
import { mediaRoutes } from './routes/media.js';
import { ABANDONED_UPLOADS_JOB, AbandonedUploads } from './services/abandoned-uploads.js';
import { ImageVariants } from './services/image-variants.js';
import { LocalFiles } from './services/local-files.js';
import { LocalUploads, UPLOAD_SIGNER } from './services/local-uploads.js';
import { MediaFiles, VARIANTS_JOB } from './services/media-files.js';
import { MediaLibrary } from './services/media-library.js';
import { loadMediaSettings, MEDIA_SETTINGS, type MediaSettings } from './settings.js';
import { LocalStorage } from './storage/local.js';
import { S3Storage } from './storage/s3.js';
import { UploadSigner } from './storage/signing.js';
import { MEDIA_STORAGE, type MediaStorage } from './storage/storage.js';

export { MediaLibrary } from './services/media-library.js';
export { MediaFiles, VARIANTS_JOB } from './services/media-files.js';
export { MediaFile, MEDIA_STATUSES, type MediaStatus, type MediaVariant } from './entities/media-file.js';
export { MEDIA_STORAGE, type MediaStorage, type StoredObject } from './storage/storage.js';
export { LocalStorage } from './storage/local.js';
export { S3Storage } from './storage/s3.js';
export { loadMediaSettings, type MediaSettings } from './settings.js';

function defaultStorage(settings: MediaSettings, signer: UploadSigner): MediaStorage {
  return settings.s3 ? new S3Storage(settings.s3) : new LocalStorage(settings.localDir, settings.publicUrl, signer);
}

/** Media files: signed two-step uploads to local or S3-compatible storage, with image variants. */
export default definePlugin({
  name: 'media',
  permissions: [
    { name: 'media.write', description: 'Upload, describe and delete media files' },
  ],
  // Public storage routes live outside /api/v1, so every route writes its full path.
  prefix: '',
  entities: [MediaFile],
  migrations: [mediaFilesMigration, pendingIndexMigration],
  machines: [mediaFileMachine],
  events: [...MEDIA_EVENTS],
  register(container) {
    const settings = loadMediaSettings(container.resolve<QhatuConfig>(CONFIG));
    const signer = new UploadSigner(settings.signingKey);
    container.register(MEDIA_SETTINGS, { useValue: settings });
    container.register(UPLOAD_SIGNER, { useValue: signer });
    // A plugin that depends on this one may register its own MEDIA_STORAGE in its register().
    container.register(MEDIA_STORAGE, { useValue: defaultStorage(settings, signer) });
    container.registerSingleton(MediaFiles);
    // The contract's abstract class is the token (tsyringe's types want a concrete constructor).
    container.register(MediaLibrary as InjectionToken<MediaLibrary>, { useToken: MediaFiles });
    container.registerSingleton(LocalUploads);
    container.registerSingleton(LocalFiles);
    container.registerSingleton(ImageVariants);
    container.registerSingleton(AbandonedUploads);
  },
  jobs: {
    [VARIANTS_JOB]: {
      handler: (data: { file_id: string }, ctx: JobContext) => ctx.container.resolve(ImageVariants).make(data.file_id, ctx),
      attempts: 3,
      backoffMs: 2000,
    },
    // Uploads never confirmed, every store in one run.
    [ABANDONED_UPLOADS_JOB]: {
      handler: (_data: unknown, ctx: JobContext) =>
        ctx.container.resolve(AbandonedUploads).sweep((err, row) => ctx.log.warn({ err, tenantId: row.tenant_id, id: row.id }, 'abandoned upload not deleted')).then(() => undefined),
      attempts: 1,
    },
  },
  // One queued run per interval slot, however many worker processes there are.
  background: ({ container }) => container.resolve(Jobs).every(ABANDONED_UPLOADS_JOB, container.resolve<MediaSettings>(MEDIA_SETTINGS).sweepMs),
  routes: async (app, { container }) => {
    await mediaRoutes(app, container);
    if (container.resolve(MEDIA_STORAGE) instanceof LocalStorage) await localStorageRoutes(app, container);
  },
});
