import { AppError, Database, type JobContext } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { MediaFile } from '../entities/media-file.js';
import { filePrefix, MEDIA_STORAGE, readAll, type MediaStorage } from '../storage/storage.js';
import { MediaFiles } from './media-files.js';

/** The optimized renditions made for every uploaded image. */
export const IMAGE_VARIANTS = [
  { name: 'thumb', box: 150 },
  { name: 'medium', box: 600 },
  { name: 'webp', box: null },
] as const;

/** Types sharp reads; other files get no variants. */
const READABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']);

interface Rendition {
  name: string;
  data: Buffer;
  format: 'jpeg' | 'png' | 'webp';
  width: number;
  height: number;
}

/** The `media.variants` job: renders an uploaded image's variants, stores and records them. */
@injectable()
export class ImageVariants {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @inject(MediaFiles) private readonly files: MediaFiles,
  ) {}

  async make(fileId: string, ctx: Pick<JobContext, 'log'>): Promise<number> {
    const file = await this.db.tenant(({ em }) => em.findOne(MediaFile, { id: fileId }));
    if (!file || file.status !== 'uploaded' || !READABLE.has(file.contentType)) return 0;
    const original = await this.storage.get(file.storageKey);
    if (!original) throw new Error(`The original of media file ${fileId} is missing from storage`);
    let renditions: Rendition[];
    try {
      renditions = await render(await readAll(original.body), file.contentType);
    } catch (error) {
      // Bytes that do not decode will not decode on a retry either.
      ctx.log.warn({ err: error, file: fileId }, 'image variants could not be made');
      await this.files.fail(fileId, `Not a readable image: ${(error as Error).message}`);
      return 0;
    }
    const prefix = filePrefix(file.tenantId, file.id);
    for (const r of renditions) {
      const key = `${prefix}variants/${r.name}.${r.format === 'jpeg' ? 'jpg' : r.format}`;
      await this.storage.put(key, r.data, `image/${r.format}`);
      const variant = { name: r.name, storage_key: key, width: r.width, height: r.height, size_bytes: r.data.length, public_url: this.storage.publicUrl(key) };
      try {
        await this.files.recordVariant(fileId, variant);
      } catch (error) {
        // Deleted or failed meanwhile: the object would be an orphan.
        await this.storage.delete(key);
        if (error instanceof AppError && error.status < 500) return 0;
        throw error;
      }
    }
    return renditions.length;
  }
}

async function render(bytes: Buffer, contentType: string): Promise<Rendition[]> {
  // Sized variants keep JPEG or PNG; other formats become WebP.
  const sized = contentType === 'image/jpeg' ? 'jpeg' : contentType === 'image/png' ? 'png' : 'webp';
  const out: Rendition[] = [];
  // sharp (a native library) is loaded by the first image, not when the process starts.
  const { default: sharp } = await import('sharp');
  for (const spec of IMAGE_VARIANTS) {
    let image = sharp(bytes, { failOn: 'error' }).rotate();
    if (spec.box) image = image.resize({ width: spec.box, height: spec.box, fit: 'inside', withoutEnlargement: true });
    const format = spec.box ? sized : 'webp';
    const { data, info } = await image.toFormat(format, format === 'png' ? { compressionLevel: 9 } : { quality: 80 }).toBuffer({ resolveWithObject: true });
    out.push({ name: spec.name, data, format, width: info.width, height: info.height });
  }
  return out;
}
