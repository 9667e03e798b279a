import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Settings } from '../settings.js';
import { encodeKey, readAll, type MediaStorage, type StoredObject } from './storage.js';

/** An S3-compatible bucket; clients upload straight to it with presigned PUT addresses. */
export class S3Storage implements MediaStorage {
  readonly client: S3Client;
  private readonly base: string;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // A presigned PUT must not carry a checksum of an empty body; S3-compatible servers differ on checksums.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.base = settings.publicUrl ?? bucketUrl(settings);
  }

  async presignPut(key: string, contentType: string, size: number, expiresAt: Date): Promise<string> {
    const command = new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, ContentType: contentType, ContentLength: size });
    const expiresIn = Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 1000));
    // Content type and length are signed: the bucket refuses any other.
    return getSignedUrl(this.client, command, { expiresIn, signableHeaders: new Set(['content-type', 'content-length']) });
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return { size: Number(out.ContentLength ?? 0), contentType: out.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async put(key: string, body: Buffer | Readable, contentType: string): Promise<void> {
    const bytes = Buffer.isBuffer(body) ? body : await readAll(body);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: bytes, ContentType: contentType, ContentLength: bytes.length }),
    );
  }

  async get(key: string): Promise<(StoredObject & { body: Readable }) | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      const body = out.Body instanceof Readable ? out.Body : Readable.from(Buffer.from(await out.Body!.transformToByteArray()));
      return { size: Number(out.ContentLength ?? 0), contentType: out.ContentType ?? 'application/octet-stream', body };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }));
  }

  publicUrl(key: string): string {
    return `${this.base}/${encodeKey(key)}`;
  }
}

/** The bucket's own address: path style on custom endpoints when asked, virtual-hosted otherwise. */
function bucketUrl({ bucket, region, endpoint, forcePathStyle }: S3Settings): string {
  if (!endpoint) return `https://${bucket}.s3.${region}.amazonaws.com`;
  const url = new URL(endpoint);
  const base = url.pathname.replace(/\/$/, '');
  if (forcePathStyle) return `${url.origin}${base}/${bucket}`;
  return `${url.protocol}//${bucket}.${url.host}${base}`;
}

function isMissing(error: unknown): boolean {
  if (error instanceof S3ServiceException && (error.name === 'NotFound' || error.name === 'NoSuchKey')) return true;
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
}
