import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, Jobs, LOGGER, paginate, Uuid, type Page, type PageRequest, type Tx } from '@qhatu/core';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { inject, injectable } from 'tsyringe';
import { MediaFile, type MediaStatus, type MediaVariant } from '../entities/media-file.js';
import { mediaFileMachine } from '../machines/media-file.js';
import type { UploadRequest, VariantRecord } from '../schemas/media-file.js';
import { MEDIA_SETTINGS, UPLOAD_TTL_MS, type MediaSettings } from '../settings.js';
import { filePrefix, isStorageKey, MEDIA_STORAGE, safeName, type MediaStorage } from '../storage/storage.js';
import { MediaLibrary } from './media-library.js';

export const VARIANTS_JOB = 'media.variants';
export const MAX_VARIANTS = 20;

export interface MediaFilter {
  status?: MediaStatus;
  content_type?: string;
  /** Storefront keys and customers see uploaded files only. */
  uploadedOnly?: boolean;
}

export interface UploadTicket {
  file: MediaFile;
  uploadUrl: string;
  expiresAt: Date;
}

/** The part of a content type before its parameters: `Image/PNG; q=1` → `image/png`. */
export function essence(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Media files of the current tenant: the only place that writes them. */
@injectable()
export class MediaFiles extends MediaLibrary {
  private readonly deleteSteps: Array<(tx: Tx, mediaId: string) => Promise<void>> = [];

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @inject(MEDIA_SETTINGS) private readonly settings: MediaSettings,
    @inject(Jobs) private readonly jobs: Jobs,
    @inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  /** Step 1 of an upload: the record, `pending`, and a signed address valid for 15 minutes. */
  async initiate(input: UploadRequest): Promise<UploadTicket> {
    if (!this.settings.allowedTypes.has(input.content_type)) {
      throw new AppError(415, 'MEDIA_TYPE_NOT_ALLOWED', `Files of type ${input.content_type} are not accepted`, [
        { path: 'body.content_type', message: `allowed: ${[...this.settings.allowedTypes].join(', ')}` },
      ]);
    }
    if (input.size_bytes > this.settings.maxBytes) {
      throw new AppError(413, 'MEDIA_TOO_LARGE', `Files may have at most ${this.settings.maxBytes} bytes`, [
        { path: 'body.size_bytes', message: `at most ${this.settings.maxBytes}` },
      ]);
    }
    const file = await this.db.tenant(async (tx) => {
      const id = randomUUID();
      const storageKey = filePrefix(tx.tenantId, id) + safeName(input.original_name);
      const at = tx.now();
      const created = tx.em.create(MediaFile, {
        id,
        tenantId: tx.tenantId,
        originalName: input.original_name,
        storageKey,
        contentType: input.content_type,
        sizeBytes: input.size_bytes,
        status: 'pending',
        altText: '',
        variants: [],
        publicUrl: this.storage.publicUrl(storageKey),
        failureReason: null,
        createdAt: at,
        updatedAt: at,
      });
      await tx.em.flush();
      return created;
    });
    const expiresAt = new Date(file.createdAt.getTime() + UPLOAD_TTL_MS);
    const uploadUrl = await this.storage.presignPut(file.storageKey, file.contentType, file.sizeBytes, expiresAt);
    return { file, uploadUrl, expiresAt };
  }

  /** Step 3: the bytes arrived as declared, so the file is `uploaded`; images get variants in the background. */
  async confirm(id: string): Promise<MediaFile> {
    const file = await this.db.tenant(async (tx) => {
      const file = await this.lock(tx.em, id);
      if (mediaFileMachine.can(file, 'confirm')) await this.assertArrived(file);
      await mediaFileMachine.apply(tx, file, 'confirm');
      file.updatedAt = tx.now();
      await tx.em.flush();
      return file;
    });
    if (file.contentType.startsWith('image/')) {
      // Queued after commit, so that the worker finds the file uploaded.
      await this.jobs.add(VARIANTS_JOB, { file_id: file.id }).catch((err) =>
        this.logger.error({ err, file: file.id }, 'media variants not queued'),
      );
    }
    return file;
  }

  async get(id: string, filter: Pick<MediaFilter, 'uploadedOnly'> = {}): Promise<MediaFile> {
    return this.db.tenant(async ({ em }) => {
      const file = await em.findOne(MediaFile, { id, ...(filter.uploadedOnly ? { status: 'uploaded' as const } : {}) });
      if (!file) throw AppError.notFound('Media file', 'MEDIA_NOT_FOUND');
      return file;
    });
  }

  async list(page: PageRequest, filter: MediaFilter): Promise<Page<MediaFile>> {
    return this.db.tenant(async ({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.uploadedOnly) where.status = 'uploaded';
      if (filter.status) where.status = filter.uploadedOnly && filter.status !== 'uploaded' ? '__none__' : filter.status;
      if (filter.content_type) where.contentType = filter.content_type;
      return paginate(em, MediaFile, where, page);
    });
  }

  async setAltText(id: string, altText: string): Promise<MediaFile> {
    return this.db.tenant(async (tx) => {
      const file = await this.lock(tx.em, id);
      file.altText = altText;
      file.updatedAt = tx.now();
      await tx.em.flush();
      return file;
    });
  }

  /** Records a variant (a processing worker's output), replacing the one of the same name. */
  async recordVariant(id: string, variant: VariantRecord): Promise<MediaFile> {
    const { file, replaced } = await this.db.tenant(async (tx) => {
      const file = await this.lock(tx.em, id);
      const prefix = filePrefix(tx.tenantId, file.id);
      if (!isStorageKey(variant.storage_key) || !variant.storage_key.startsWith(prefix) || variant.storage_key === file.storageKey) {
        throw AppError.validation(`A variant's storage_key must lie under ${prefix} and not be the original's`, [
          { path: 'body.storage_key', message: `must start with ${prefix}` },
        ]);
      }
      if (file.status !== 'uploaded') {
        throw AppError.conflict(`Variants are recorded for uploaded files; this one is ${file.status}`, 'MEDIA_NOT_UPLOADED');
      }
      const others = file.variants.filter((v) => v.name !== variant.name);
      if (others.length >= MAX_VARIANTS) {
        throw AppError.unprocessable('MEDIA_VARIANT_LIMIT', `A file has at most ${MAX_VARIANTS} variants`);
      }
      const old = file.variants.find((v) => v.name === variant.name);
      const recorded: MediaVariant = { ...variant };
      file.variants = old ? file.variants.map((v) => (v === old ? recorded : v)) : [...file.variants, recorded];
      file.updatedAt = tx.now();
      await tx.em.flush();
      const stillUsed = old && file.variants.some((v) => v.storage_key === old.storage_key);
      return { file, replaced: old && !stillUsed ? old.storage_key : null };
    });
    if (replaced) await this.deleteObjects([replaced]);
    return file;
  }

  async fail(id: string, reason: string): Promise<MediaFile> {
    return this.db.tenant(async (tx) => {
      const file = await this.lock(tx.em, id);
      await mediaFileMachine.apply(tx, file, 'fail', { reason });
      file.updatedAt = tx.now();
      await tx.em.flush();
      return file;
    });
  }

  /** Deletes the record, after the steps other plugins added, then every stored object of it. */
  async remove(id: string): Promise<void> {
    const keys = await this.db.tenant(async (tx) => this.removeLocked(tx, await this.lock(tx.em, id)));
    await this.deleteObjects(keys);
  }

  /** Deletes a file still pending since before `cutoff` (an upload never confirmed); false when it moved on meanwhile. */
  async removeAbandoned(id: string, cutoff: Date): Promise<boolean> {
    const keys = await this.db.tenant(async (tx) => {
      const file = await tx.em.findOne(MediaFile, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!file || file.status !== 'pending' || file.createdAt >= cutoff) return null;
      return this.removeLocked(tx, file);
    });
    if (!keys) return false;
    await this.deleteObjects(keys);
    return true;
  }

  private async removeLocked(tx: Tx, file: MediaFile): Promise<string[]> {
    for (const step of this.deleteSteps) await step(tx, file.id);
    tx.em.remove(file);
    tx.publish('media.file.deleted', { id: file.id, storage_key: file.storageKey, deleted_at: tx.now().toISOString() });
    await tx.em.flush();
    return [file.storageKey, ...file.variants.map((v) => v.storage_key)];
  }

  async publicUrls(tx: Tx, ids: string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids.filter((id) => Uuid.safeParse(id).success))];
    if (wanted.length === 0) return new Map();
    const rows = await tx.em.find(MediaFile, { id: { $in: wanted }, status: 'uploaded' }, { fields: ['id', 'publicUrl'] });
    return new Map(rows.map((f) => [f.id, f.publicUrl]));
  }

  onDelete(step: (tx: Tx, mediaId: string) => Promise<void>): void {
    this.deleteSteps.push(step);
  }

  private async assertArrived(file: MediaFile): Promise<void> {
    const stored = await this.storage.head(file.storageKey);
    if (!stored) {
      throw AppError.conflict('The file has not been uploaded: PUT its bytes to the upload_url first', 'MEDIA_NOT_UPLOADED');
    }
    if (stored.size !== file.sizeBytes) {
      throw AppError.unprocessable('MEDIA_SIZE_MISMATCH', `${stored.size} bytes arrived; ${file.sizeBytes} were declared`, [
        { message: 'stored size differs from size_bytes', declared: file.sizeBytes, stored: stored.size },
      ]);
    }
    if (essence(stored.contentType) !== file.contentType) {
      throw AppError.unprocessable('MEDIA_TYPE_MISMATCH', `The file was stored as ${stored.contentType}, not ${file.contentType}`);
    }
  }

  private async lock(em: EntityManager, id: string): Promise<MediaFile> {
    const file = await em.findOne(MediaFile, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!file) throw AppError.notFound('Media file', 'MEDIA_NOT_FOUND');
    return file;
  }

  private async deleteObjects(keys: string[]): Promise<void> {
    for (const key of new Set(keys)) {
      await this.storage.delete(key).catch((err) => this.logger.error({ err, key }, 'media object not deleted'));
    }
  }
}
