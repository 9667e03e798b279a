import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { UploadSigner } from './signing.js';
import { encodeKey, isStorageKey, type MediaStorage, type StoredObject } from './storage.js';

/** Where the local adapter's public routes live. */
export const UPLOADS_PATH = '/media/uploads';
export const FILES_PATH = '/media/files';

/**
 * Objects in a folder: `objects/<key>` holds the bytes, `meta/<key>.json` the content type, and
 * `tmp/` the uploads in flight, which appear under their key only once complete.
 */
export class LocalStorage implements MediaStorage {
  private readonly objects: string;
  private readonly meta: string;
  private readonly tmp: string;

  constructor(
    dir: string,
    private readonly baseUrl: string,
    private readonly signer: UploadSigner,
  ) {
    this.objects = path.join(dir, 'objects');
    this.meta = path.join(dir, 'meta');
    this.tmp = path.join(dir, 'tmp');
  }

  async presignPut(key: string, contentType: string, size: number, expiresAt: Date): Promise<string> {
    this.pathOf(this.objects, key);
    const grant = { key, contentType, size, expires: Math.floor(expiresAt.getTime() / 1000) };
    const query = new URLSearchParams({
      type: contentType,
      size: String(size),
      expires: String(grant.expires),
      signature: this.signer.sign(grant),
    });
    return `${this.baseUrl}${UPLOADS_PATH}/${encodeKey(key)}?${query}`;
  }

  async head(key: string): Promise<StoredObject | null> {
    const file = this.pathOf(this.objects, key);
    const stats = await stat(file).catch(notFound);
    if (!stats?.isFile()) return null;
    const meta = await readFile(this.metaOf(key), 'utf8').then(JSON.parse, notFound);
    return { size: stats.size, contentType: meta?.contentType ?? 'application/octet-stream' };
  }

  async put(key: string, body: Buffer | Readable, contentType: string): Promise<void> {
    const file = this.pathOf(this.objects, key);
    await mkdir(this.tmp, { recursive: true });
    const tmp = path.join(this.tmp, randomUUID());
    try {
      if (Buffer.isBuffer(body)) await writeFile(tmp, body);
      else await pipeline(body, createWriteStream(tmp));
      await mkdir(path.dirname(file), { recursive: true });
      await mkdir(path.dirname(this.metaOf(key)), { recursive: true });
      await writeFile(this.metaOf(key), JSON.stringify({ contentType }));
      await rename(tmp, file);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<(StoredObject & { body: Readable }) | null> {
    const head = await this.head(key);
    if (!head) return null;
    return { ...head, body: createReadStream(this.pathOf(this.objects, key)) };
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(this.objects, key);
    const meta = this.metaOf(key);
    await rm(file, { force: true });
    await rm(meta, { force: true });
    await this.prune(this.objects, path.dirname(file));
    await this.prune(this.meta, path.dirname(meta));
  }

  publicUrl(key: string): string {
    return `${this.baseUrl}${FILES_PATH}/${encodeKey(key)}`;
  }

  /** The path of `key` under `root`; a key that is not well formed never reaches the disk. */
  private pathOf(root: string, key: string): string {
    if (!isStorageKey(key)) throw new Error(`Not a storage key: ${JSON.stringify(key)}`);
    const file = path.resolve(root, ...key.split('/'));
    if (!file.startsWith(root + path.sep)) throw new Error(`Storage key escapes the folder: ${key}`);
    return file;
  }

  private metaOf(key: string): string {
    return `${this.pathOf(this.meta, key)}.json`;
  }

  /** Removes the empty folders a deletion left, up to a file's own folder (never a tenant's). */
  private async prune(root: string, dir: string): Promise<void> {
    while (path.relative(root, dir).split(path.sep).length >= 2) {
      const removed = await rmdir(dir).then(() => true, () => false);
      if (!removed) return;
      dir = path.dirname(dir);
    }
  }
}

function notFound(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
  throw error;
}
