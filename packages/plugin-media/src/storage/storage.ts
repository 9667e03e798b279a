import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
  contentType: string;
}

/**
 * Where media bytes live: the port the media plugin writes through, registered under
 * `MEDIA_STORAGE`. The plugin registers the local-folder or the S3 adapter by the environment.
 */
export interface MediaStorage {
  /** An address the client may PUT exactly `size` bytes of `contentType` to, until `expiresAt`. */
  presignPut(key: string, contentType: string, size: number, expiresAt: Date): Promise<string>;
  /** What is stored under `key`, or null when nothing is. */
  head(key: string): Promise<StoredObject | null>;
  put(key: string, body: Buffer | Readable, contentType: string): Promise<void>;
  get(key: string): Promise<(StoredObject & { body: Readable }) | null>;
  /** Removes the object; nothing happens when there is none. */
  delete(key: string): Promise<void>;
  publicUrl(key: string): string;
}

export const MEDIA_STORAGE = Symbol.for('qhatu.media.storage');

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Keys are `/`-separated segments of letters, digits, dots, dashes and underscores; no `.` or `..`. */
export function isStorageKey(key: string): boolean {
  return key.length > 0 && key.length <= 1024 && key.split('/').every((s) => SEGMENT.test(s));
}

/** A file name fit for a key segment, keeping the extension: `Foto niño (1).JPG` → `Foto-nino-1-.JPG`. */
export function safeName(original: string): string {
  let name = original
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[._-]+/, '');
  if (name.length > 100) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 11 ? name.slice(dot) : '';
    name = name.slice(0, 100 - ext.length) + ext;
  }
  return SEGMENT.test(name) ? name : 'file';
}

/** Everything of one file lives under `<tenant id>/<file id>/`, so tenants never share an object. */
export function filePrefix(tenantId: string, fileId: string): string {
  return `${tenantId}/${fileId}/`;
}

export function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
