import { createHash } from 'node:crypto';
import { pipeline, Transform, type Readable } from 'node:stream';
import { AppError, CLOCK, Database, Uuid, type Clock } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { MediaFile } from '../entities/media-file.js';
import { MEDIA_STORAGE, type MediaStorage } from '../storage/storage.js';
import type { UploadGrant, UploadSigner } from '../storage/signing.js';
import { essence } from './media-files.js';

export const UPLOAD_SIGNER = Symbol.for('qhatu.media.upload-signer');

export interface IncomingUpload {
  contentType?: string;
  contentLength?: number;
  body: Readable;
}

/** Step 2 with the local adapter: a signed PUT of exactly the declared bytes, while the file is pending. */
@injectable()
export class LocalUploads {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @inject(UPLOAD_SIGNER) private readonly signer: UploadSigner,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Stores the body under the granted key; returns its MD5 (the ETag S3 would give). */
  async receive(grant: UploadGrant, signature: string, upload: IncomingUpload): Promise<string> {
    if (!this.signer.verify(grant, signature)) {
      throw new AppError(403, 'MEDIA_SIGNATURE_INVALID', 'The upload address is not valid: its signature does not match');
    }
    if (grant.expires * 1000 < this.clock.now().getTime()) {
      throw new AppError(403, 'MEDIA_UPLOAD_EXPIRED', 'The upload address has expired; initiate the upload again');
    }
    if (essence(upload.contentType) !== grant.contentType) {
      throw new AppError(415, 'MEDIA_TYPE_MISMATCH', `Send the file with Content-Type: ${grant.contentType}`);
    }
    if (upload.contentLength !== undefined && upload.contentLength !== grant.size) {
      throw sizeMismatch(grant.size, upload.contentLength);
    }
    await this.pendingFile(grant.key);
    const counter = new ByteCounter(grant.size);
    // Errors travel both ways: a dropped connection fails the write, an excess byte stops the upload.
    pipeline(upload.body, counter, () => {});
    await this.storage.put(grant.key, counter, grant.contentType);
    // Deleted while the bytes were on their way: nothing may stay behind.
    if (!(await this.exists(grant.key))) {
      await this.storage.delete(grant.key);
      throw AppError.notFound('Media file', 'MEDIA_NOT_FOUND');
    }
    return counter.md5();
  }

  /** The key names its tenant and file; the signature vouches for both. */
  private async pendingFile(key: string): Promise<void> {
    const [tenantId, fileId] = key.split('/');
    if (!Uuid.safeParse(tenantId).success || !Uuid.safeParse(fileId).success) throw AppError.notFound('Media file', 'MEDIA_NOT_FOUND');
    const file = await this.db.tenant(({ em }) => em.findOne(MediaFile, { id: fileId, storageKey: key }), tenantId);
    if (!file) throw AppError.notFound('Media file', 'MEDIA_NOT_FOUND');
    if (file.status !== 'pending') {
      throw AppError.conflict(`The file is ${file.status}; its bytes can no longer be replaced`, 'MEDIA_NOT_PENDING');
    }
  }

  private async exists(key: string): Promise<boolean> {
    const [tenantId, fileId] = key.split('/');
    return this.db.tenant(async ({ em }) => (await em.count(MediaFile, { id: fileId, storageKey: key })) > 0, tenantId);
  }
}

function sizeMismatch(declared: number, sent: number): AppError {
  return AppError.unprocessable('MEDIA_SIZE_MISMATCH', `${declared} bytes were declared; the upload has ${sent}`, [
    { message: 'the body differs from size_bytes', declared, sent },
  ]);
}

/** Passes exactly `limit` bytes: one more, or one fewer at the end, fails the stream. */
class ByteCounter extends Transform {
  private count = 0;
  private readonly hash = createHash('md5');

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void): void {
    this.count += chunk.length;
    if (this.count > this.limit) return done(sizeMismatch(this.limit, this.count));
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: (error?: Error | null) => void): void {
    done(this.count === this.limit ? null : sizeMismatch(this.limit, this.count));
  }

  md5(): string {
    return this.hash.digest('hex');
  }
}
