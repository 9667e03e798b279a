import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { onFirstUse } from '@qhatu/core';
import type { S3Settings } from '../settings.js';
import { encodeKey, readAll, type MediaStorage, type StoredObject } from './storage.js';

/**
 * An S3-compatible bucket; clients upload straight to it with presigned PUT addresses. The AWS SDK
 * (about a megabyte of modules) is loaded on the first use, not when the process starts.
 */
export class S3Storage implements MediaStorage {
  private readonly base: string;

  constructor(private readonly settings: S3Settings) {
    this.base = settings.publicUrl ?? bucketUrl(settings);
  }

  /** The SDK's client for this bucket, made on the first call. */
  async client(): Promise<S3Client> {
    return (await this.sdk()).client;
  }

  private readonly sdk = onFirstUse(() =>
    Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]).then(([sdk, { getSignedUrl }]) => {
      const client = new sdk.S3Client({
        region: this.settings.region,
        endpoint: this.settings.endpoint,
        forcePathStyle: this.settings.forcePathStyle,
        credentials: this.settings.credentials,
        // A presigned PUT must not carry a checksum of an empty body; S3-compatible servers differ on checksums.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { sdk, getSignedUrl, client };
    }),
  );

  async presignPut(key: string, contentType: string, size: number, expiresAt: Date): Promise<string> {
    const { sdk, getSignedUrl, client } = await this.sdk();
    const command = new sdk.PutObjectCommand({ Bucket: this.settings.bucket, Key: key, ContentType: contentType, ContentLength: size });
    // Signed for whole seconds that end at `expiresAt` exactly, however long the SDK took to load.
    const expiresIn = Math.max(1, Math.ceil((expiresAt.getTime() - Date.now()) / 1000));
    const signingDate = new Date(expiresAt.getTime() - expiresIn * 1000);
    // Content type and length are signed: the bucket refuses any other.
    return getSignedUrl(client, command, { expiresIn, signingDate, signableHeaders: new Set(['content-type', 'content-length']) });
  }

  async head(key: string): Promise<StoredObject | null> {
    const { sdk, client } = await this.sdk();
    try {
      const out = await client.send(new sdk.HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return { size: Number(out.ContentLength ?? 0), contentType: out.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if (isMissing(sdk, error)) return null;
      throw error;
    }
  }

  async put(key: string, body: Buffer | Readable, contentType: string): Promise<void> {
    const bytes = Buffer.isBuffer(body) ? body : await readAll(body);
    const { sdk, client } = await this.sdk();
    await client.send(
      new sdk.PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: bytes, ContentType: contentType, ContentLength: bytes.length }),
    );
  }

  async get(key: string): Promise<(StoredObject & { body: Readable }) | null> {
    const { sdk, client } = await this.sdk();
    try {
      const out = await client.send(new sdk.GetObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      const body = out.Body instanceof Readable ? out.Body : Readable.from(Buffer.from(await out.Body!.transformToByteArray()));
      return { size: Number(out.ContentLength ?? 0), contentType: out.ContentType ?? 'application/octet-stream', body };
    } catch (error) {
      if (isMissing(sdk, error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.sdk();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }));
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

function isMissing(sdk: typeof import('@aws-sdk/client-s3'), error: unknown): boolean {
  if (error instanceof sdk.S3ServiceException && (error.name === 'NotFound' || error.name === 'NoSuchKey')) return true;
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
}
