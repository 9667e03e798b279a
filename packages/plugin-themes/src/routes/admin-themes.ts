import { ADMIN, errorResponses, IdParams } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { PublishOut, RestoreOut, ThemeSettings, ThemeSettingsOut, TimeZoneBody, VersionInput, VersionList, VersionOut, VersionSummary } from '../schemas/settings.js';
import { ThemeEditor } from '../services/theme-editor.js';
import { StoreTimeZone } from '../services/time-zone.js';

const read = { auth: ADMIN, permission: 'themes.read' };
const write = { auth: ADMIN, permission: 'themes.write' };

/** The active theme's settings under `/admin/themes`, as the specification places them. */
export async function adminThemeRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const editor = container.resolve(ThemeEditor);
  const zones = container.resolve(StoreTimeZone);
  const tags = ['Theme settings'];

  r.get('/admin/themes/draft', {
    config: read,
    schema: { tags, summary: 'The settings draft of the active theme', response: { 200: ThemeSettingsOut, ...errorResponses(400, 401, 403, 404) } },
  }, async () => editor.draft());

  r.put('/admin/themes/draft', {
    config: write,
    schema: { tags, summary: 'Replace the settings draft of the active theme (not published)', body: ThemeSettings, response: { 200: ThemeSettingsOut, ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => editor.saveDraft(req.body));

  r.get('/admin/themes/versions', {
    config: read,
    schema: { tags, summary: 'The 50 most recent versions of the active theme, and its baseline', response: { 200: VersionList, ...errorResponses(400, 401, 403, 404) } },
  }, async () => editor.versions());

  r.post('/admin/themes/versions', {
    config: write,
    schema: { tags, summary: 'Save the settings draft as a version', body: VersionInput, response: { 201: VersionSummary, ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req, reply) => reply.code(201).send(await editor.saveVersion(req.body?.label ?? '')));

  r.get('/admin/themes/versions/:id', {
    config: read,
    schema: { tags, summary: 'A version with its snapshot', params: IdParams, response: { 200: VersionOut, ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const v = await editor.version(req.params.id);
    return { id: v.id, label: v.label, created_by: v.created_by, snapshot: v.snapshot, created_at: v.created_at };
  });

  r.post('/admin/themes/versions/:id/restore', {
    config: write,
    schema: { tags, summary: 'Overwrite the draft with a version (does not publish)', params: IdParams, response: { 200: RestoreOut, ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ ok: true as const, label: (await editor.restore(req.params.id)).label }));

  r.post('/admin/themes/publish', {
    config: { auth: ADMIN, permission: 'themes.publish' },
    schema: { tags, summary: 'Publish the draft to the storefront; a version labelled Publicado keeps it', response: { 200: PublishOut, ...errorResponses(400, 401, 403, 404) } },
  }, async () => {
    const published = await editor.publish();
    return { ok: true as const, label: published.label, version_id: published.versionId, published_at: published.publishedAt.toISOString() };
  });

  r.get('/admin/themes/time-zone', {
    config: read,
    schema: { tags, summary: 'The time zone version times are shown in', response: { 200: TimeZoneBody, ...errorResponses(400, 401, 403) } },
  }, async () => ({ time_zone: await zones.get() }));

  r.put('/admin/themes/time-zone', {
    config: write,
    schema: { tags, summary: 'Set the time zone version times are shown in', body: TimeZoneBody, response: { 200: TimeZoneBody, ...errorResponses(400, 401, 403, 422) } },
  }, async (req) => ({ time_zone: await zones.set(req.body.time_zone) }));
}
