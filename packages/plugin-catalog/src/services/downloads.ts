import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { ProductDownload } from '../entities/product-download.js';
import type { DownloadCreate, DownloadPatch } from '../schemas/download.js';
import { requireProduct, requireVariantOf } from './references.js';

export const DOWNLOAD_EVENTS = ['products.download.created', 'products.download.updated', 'products.download.deleted'] as const;

/** Unpaginated lists stay short. */
export const MAX_DOWNLOADS = 100;

/** The digital files of a product: the only place that writes them. */
@injectable()
export class Downloads {
  constructor(@inject(Database) private readonly db: Database) {}

  async list(productId: string): Promise<ProductDownload[]> {
    return this.db.tenant(async ({ em }) => {
      await requireProduct(em, productId);
      return ofProduct(em, productId);
    });
  }

  async create(productId: string, input: DownloadCreate): Promise<ProductDownload> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      await requireProduct(em, productId);
      await requireVariantOf(em, productId, input.variant_id);
      const existing = await ofProduct(em, productId);
      if (existing.length >= MAX_DOWNLOADS) {
        throw AppError.unprocessable('TOO_MANY_DOWNLOADS', `A product has at most ${MAX_DOWNLOADS} downloads`);
      }
      const at = tx.now();
      const download = em.create(ProductDownload, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        productId,
        variantId: input.variant_id ?? null,
        fileName: input.file_name,
        fileUrl: input.file_url,
        fileSizeBytes: input.file_size_bytes ?? null,
        downloadLimit: input.download_limit ?? null,
        downloadExpiryDays: input.download_expiry_days ?? null,
        position: input.position ?? existing.reduce((max, d) => Math.max(max, d.position + 1), 0),
        createdAt: at,
        updatedAt: at,
      });
      tx.publish('products.download.created', downloadEvent(download));
      await em.flush();
      return download;
    });
  }

  async update(productId: string, downloadId: string, patch: DownloadPatch): Promise<ProductDownload> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      const download = await findDownload(em, productId, downloadId);
      if (patch.variant_id !== undefined && patch.variant_id !== download.variantId) await requireVariantOf(em, productId, patch.variant_id);
      if (patch.variant_id !== undefined) download.variantId = patch.variant_id;
      if (patch.file_name !== undefined) download.fileName = patch.file_name;
      if (patch.file_url !== undefined) download.fileUrl = patch.file_url;
      if (patch.file_size_bytes !== undefined) download.fileSizeBytes = patch.file_size_bytes;
      if (patch.download_limit !== undefined) download.downloadLimit = patch.download_limit;
      if (patch.download_expiry_days !== undefined) download.downloadExpiryDays = patch.download_expiry_days;
      if (patch.position !== undefined) download.position = patch.position;
      download.updatedAt = tx.now();
      tx.publish('products.download.updated', downloadEvent(download));
      await em.flush();
      return download;
    });
  }

  async remove(productId: string, downloadId: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const download = await findDownload(tx.em, productId, downloadId);
      tx.em.remove(download);
      tx.publish('products.download.deleted', { id: downloadId, product_id: productId, deleted_at: tx.now().toISOString() });
      await tx.em.flush();
    });
  }
}

function ofProduct(em: EntityManager, productId: string): Promise<ProductDownload[]> {
  return em.find(ProductDownload, { productId }, { orderBy: { position: 'asc', createdAt: 'asc', id: 'asc' } });
}

async function findDownload(em: EntityManager, productId: string, id: string): Promise<ProductDownload> {
  await requireProduct(em, productId);
  const download = await em.findOne(ProductDownload, { id, productId });
  if (!download) throw AppError.notFound('Download', 'DOWNLOAD_NOT_FOUND');
  return download;
}

function downloadEvent(d: ProductDownload) {
  return { id: d.id, product_id: d.productId, variant_id: d.variantId ?? null, file_name: d.fileName, updated_at: d.updatedAt.toISOString() };
}
