import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Clock } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import sharp from 'sharp';
import media from '../src/index.js';

/** A clock the tests can move forward. */
export function movableClock(): Clock & { offsetMs: number } {
  const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
  return clock;
}

export interface MediaTestApp extends TestApp {
  dataDir: string;
}

/** The app with the media plugin, its data folder (and so its local storage) in a temp folder of its own. */
export async function mediaApp(options: { env?: Record<string, string>; workers?: boolean; clock?: Clock } = {}): Promise<MediaTestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-media-'));
  const t = await createTestApp({ plugins: [media], workers: options.workers ?? false, clock: options.clock, env: { QHATU_DATA_DIR: dataDir, ...options.env } });
  const close = t.close;
  return Object.assign(t, {
    dataDir,
    close: async () => {
      await close();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 190, g: 40, b: 60, alpha: 1 } } }).png().toBuffer();
}

/** The path and query of an absolute URL, for `inject`. */
export const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

export interface Ticket {
  file_id: string;
  upload_url: string;
  expires_at: string;
}

export async function initiate(t: TestApp, tenant: TestTenant, body: { original_name?: string; content_type?: string; size_bytes: number }): Promise<Ticket> {
  const res = await t.request({
    method: 'POST',
    url: '/api/v1/media/upload',
    headers: tenant.headers(),
    payload: { original_name: 'photo.png', content_type: 'image/png', ...body },
  });
  if (res.statusCode !== 201) throw new Error(`upload not initiated: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

export function put(t: TestApp, uploadUrl: string, bytes: Buffer, contentType = 'image/png', headers: Record<string, string> = {}) {
  return t.request({ method: 'PUT', url: local(uploadUrl), headers: { 'content-type': contentType, ...headers }, payload: bytes });
}

/** Initiates, uploads and confirms a file; returns the confirmed record. */
export async function uploaded(t: TestApp, tenant: TestTenant, bytes: Buffer, name = 'photo.png', type = 'image/png') {
  const ticket = await initiate(t, tenant, { original_name: name, content_type: type, size_bytes: bytes.length });
  const sent = await put(t, ticket.upload_url, bytes, type);
  if (sent.statusCode !== 200) throw new Error(`upload refused: ${sent.body}`);
  const res = await t.request({ method: 'POST', url: `/api/v1/media/${ticket.file_id}/confirm`, headers: tenant.headers() });
  if (res.statusCode !== 200) throw new Error(`not confirmed: ${res.body}`);
  return res.json().data;
}

export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every file below `dir`, relative to it. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}
