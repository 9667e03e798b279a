import { hkdfSync } from 'node:crypto';
import path from 'node:path';
import { ConfigError, parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';

export const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;
export const DEFAULT_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/avif',
  'application/pdf',
  'video/mp4',
] as const;
/** How long a signed upload address stays valid. */
export const UPLOAD_TTL_MS = 15 * 60 * 1000;

/** `type/subtype`, lower case, without parameters. */
export const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const MediaEnv = z.object({
  QHATU_MEDIA_MAX_BYTES: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(DEFAULT_MAX_BYTES),
  QHATU_MEDIA_TYPES: z
    .string()
    .transform((s) => s.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean))
    .pipe(z.array(z.string().regex(MIME, 'each type must read type/subtype')).min(1))
    .optional(),
  QHATU_MEDIA_SWEEP_SECONDS: z.coerce.number().int().min(1).max(24 * 3600).default(3600),
  QHATU_MEDIA_SIGNING_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  QHATU_S3_BUCKET: z.string().min(3).max(255).optional(),
  QHATU_S3_REGION: z.string().min(1).default('us-east-1'),
  QHATU_S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  QHATU_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  QHATU_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  QHATU_S3_FORCE_PATH_STYLE: bool.default(false),
  QHATU_S3_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
});

export interface S3Settings {
  bucket: string;
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
  /** The base of public object URLs (a CDN or the bucket's website); derived from the endpoint otherwise. */
  publicUrl?: string;
}

export interface MediaSettings {
  maxBytes: number;
  /** How often a worker process sweeps uploads never confirmed. */
  sweepMs: number;
  allowedTypes: ReadonlySet<string>;
  /** HMAC key of the local adapter's upload addresses. */
  signingKey: Buffer;
  /** Where the local adapter keeps objects: `<data dir>/media`. */
  localDir: string;
  /** The base of the local adapter's public URLs. */
  publicUrl: string;
  s3?: S3Settings;
}

export const MEDIA_SETTINGS = Symbol.for('qhatu.media.settings');

/** Reads the media settings from the raw environment; every problem is reported at once. */
export function loadMediaSettings(config: QhatuConfig): MediaSettings {
  const e = parseEnvironment(config.environment, MediaEnv);
  const problems: string[] = [];
  if (Boolean(e.QHATU_S3_ACCESS_KEY_ID) !== Boolean(e.QHATU_S3_SECRET_ACCESS_KEY)) {
    problems.push('QHATU_S3_ACCESS_KEY_ID and QHATU_S3_SECRET_ACCESS_KEY go together');
  }
  if (!e.QHATU_S3_BUCKET && (e.QHATU_S3_ENDPOINT || e.QHATU_S3_ACCESS_KEY_ID || e.QHATU_S3_PUBLIC_URL)) {
    problems.push('QHATU_S3_BUCKET: required when other QHATU_S3_* settings are given');
  }
  const secret = e.QHATU_MEDIA_SIGNING_KEY ?? config.platformToken;
  if (!secret) problems.push('QHATU_MEDIA_SIGNING_KEY: required when there is no platform token to derive it from');
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    maxBytes: e.QHATU_MEDIA_MAX_BYTES,
    sweepMs: e.QHATU_MEDIA_SWEEP_SECONDS * 1000,
    allowedTypes: new Set(e.QHATU_MEDIA_TYPES ?? DEFAULT_TYPES),
    // A key of its own, so that an upload signature never says anything about the platform token.
    signingKey: Buffer.from(hkdfSync('sha256', secret!, 'qhatu-media', 'upload-url-signing-v1', 32)),
    localDir: path.resolve(config.dataDir, 'media'),
    publicUrl: config.publicUrl,
    s3: e.QHATU_S3_BUCKET
      ? {
          bucket: e.QHATU_S3_BUCKET,
          region: e.QHATU_S3_REGION,
          endpoint: e.QHATU_S3_ENDPOINT,
          credentials: e.QHATU_S3_ACCESS_KEY_ID
            ? { accessKeyId: e.QHATU_S3_ACCESS_KEY_ID, secretAccessKey: e.QHATU_S3_SECRET_ACCESS_KEY! }
            : undefined,
          forcePathStyle: e.QHATU_S3_FORCE_PATH_STYLE,
          publicUrl: e.QHATU_S3_PUBLIC_URL?.replace(/\/$/, ''),
        }
      : undefined,
  };
}
