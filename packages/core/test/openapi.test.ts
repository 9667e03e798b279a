import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ADMIN, definePlugin, errorResponses, IdParams, operationIdOf } from '../src/index.js';
import { createTestApp, type TestApp } from '../src/testing/index.js';

// A plugin's own schemas named as `qhatu plugin new` names them: `<Name>` and `<Name>Input`.
const GiftWrapItemInput = z.object({ label: z.string().min(1), price: z.number().int().min(0).default(0) }).meta({ id: 'GiftWrapItemInput' });
const GiftWrapItem = z.object({ id: z.uuid(), label: z.string(), price: z.number().int() }).meta({ id: 'GiftWrapItem' });
// Answered by one route and taken by another: its two sides differ (answers allow no other field).
const GiftWrapNote = z.object({ text: z.string(), signed: z.boolean().default(false) }).meta({ id: 'GiftWrapNote' });
// Registered but used by no route: not in the document.
z.object({ unused: z.string() }).meta({ id: 'GiftWrapUnused' });

const item = { id: '9b1c3f7e-1d2a-4c3b-8e5f-6a7b8c9d0e1f', label: 'Red paper', price: 500 };

const giftWrap = definePlugin({
  name: 'gift-wrap',
  permissions: [{ name: 'gift-wrap.write', description: 'Add gift-wrap items' }],
  routes: async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    r.post('/gift-wrap/items', { config: { auth: ADMIN, permission: 'gift-wrap.write' }, schema: { body: GiftWrapItemInput, response: { 201: z.object({ data: GiftWrapItem }), ...errorResponses(400) } } }, async (_req, reply) =>
      reply.code(201).send({ data: item }));
    r.get('/gift-wrap/items/:id', { config: { auth: ['admin', 'storefront', 'customer'] }, schema: { params: IdParams, response: { 200: z.object({ data: GiftWrapItem }) } } }, async () => ({ data: item }));
    // Its own answer sent back whole: GiftWrapItem on both sides, while GiftWrapItemInput is taken.
    r.put('/gift-wrap/items/:id', { config: { auth: ADMIN, permission: 'gift-wrap.write' }, schema: { params: IdParams, body: GiftWrapItem, response: { 200: z.object({ data: GiftWrapItem }) } } }, async (req) => ({ data: req.body }));
    r.put('/gift-wrap/note', { config: { auth: 'tenant' }, schema: { body: GiftWrapNote, response: { 200: GiftWrapNote } } }, async (req) => req.body);
    r.get('/gift-wrap/catalogue', { config: { auth: 'public' }, schema: { operationId: 'giftWrapCatalogue', response: { 200: z.object({ data: z.array(GiftWrapItem) }) } } }, async () => ({ data: [item] }));
  },
});

let t: TestApp;
let doc: Record<string, any>;
beforeAll(async () => {
  t = await createTestApp({ plugins: [giftWrap] });
  const res = await t.request({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode, res.body).toBe(200);
  doc = res.json();
});
afterAll(async () => t?.close());

const refsIn = (node: unknown): string[] => [...JSON.stringify(node).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);

describe('component names (decision 0062)', () => {
  it('serves /openapi.json and /docs for a plugin with schemas X and XInput', async () => {
    expect((await t.request({ method: 'GET', url: '/docs' })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: '/docs/json' })).statusCode).toBe(200);
    const body = doc.paths['/api/v1/gift-wrap/items'].post;
    expect(refsIn(body.requestBody)).toEqual(['GiftWrapItemInput']);
    expect(refsIn(body.responses['201'])).toEqual(['GiftWrapItem']);
    expect(doc.components.schemas.GiftWrapItemInput.required).toEqual(['label']);
    expect(doc.components.schemas.GiftWrapItem.required).toEqual(['id', 'label', 'price']);
  });

  it("names a schema's request side <Name>Input only where its two sides differ, and never over another schema", async () => {
    const note = doc.paths['/api/v1/gift-wrap/note'].put;
    expect(refsIn(note.responses['200'])).toEqual(['GiftWrapNote']);
    expect(refsIn(note.requestBody)).toEqual(['GiftWrapNoteInput']);
    expect(doc.components.schemas.GiftWrapNote.required).toEqual(['text', 'signed']);
    expect(doc.components.schemas.GiftWrapNoteInput.required).toEqual(['text']);

    const replace = doc.paths['/api/v1/gift-wrap/items/{id}'].put;
    expect(refsIn(replace.requestBody)).toEqual(['GiftWrapItemInput2']);
    expect(refsIn(replace.responses['200'])).toEqual(['GiftWrapItem']);
    expect(doc.components.schemas.GiftWrapItemInput2.additionalProperties).toBeUndefined();
    expect(doc.components.schemas.GiftWrapItem.additionalProperties).toBe(false);
  });

  it('keeps only the components an operation uses, and every reference resolves', async () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).not.toContain('GiftWrapUnused');
    expect(names.some((name) => name.includes('\u001f'))).toBe(false);
    for (const ref of refsIn(doc)) expect(names, ref).toContain(ref);
    const reached = new Set(refsIn(doc.paths));
    for (const name of reached) for (const inner of refsIn(doc.components.schemas[name])) reached.add(inner);
    expect(names.filter((name) => !reached.has(name))).toEqual([]);
  });
});

describe('security and operation ids', () => {
  it('declares the bearer token and X-Tenant-ID and applies them by each route\'s auth rule', async () => {
    expect(doc.components.securitySchemes).toMatchObject({
      bearer: { type: 'http', scheme: 'bearer' },
      tenant: { type: 'apiKey', in: 'header', name: 'X-Tenant-ID' },
    });
    expect(doc.paths['/api/v1/gift-wrap/items'].post.security).toEqual([{ bearer: [], tenant: [] }]);
    expect(doc.paths['/api/v1/gift-wrap/note'].put.security).toEqual([{ tenant: [] }]);
    expect(doc.paths['/api/v1/gift-wrap/catalogue'].get.security).toEqual([]);
    expect(doc.paths['/api/v1/tenants'].post.security).toEqual([{ bearer: [] }]);
    // What the document says is what the service does.
    expect((await t.request({ method: 'GET', url: '/api/v1/gift-wrap/catalogue' })).statusCode).toBe(200);
    const shop = await t.createTenant();
    expect((await t.request({ method: 'PUT', url: '/api/v1/gift-wrap/note', headers: { 'x-tenant-id': shop.id }, payload: { text: 'Hi' } })).statusCode).toBe(200);
    expect((await t.request({ method: 'PUT', url: '/api/v1/gift-wrap/note', payload: { text: 'Hi' } })).json().error.code).toBe('TENANT_REQUIRED');
  });

  it('gives every operation a unique operationId from its method and path, or the one its route names', async () => {
    expect(doc.paths['/api/v1/gift-wrap/items/{id}'].get.operationId).toBe('getGiftWrapItemsById');
    expect(doc.paths['/api/v1/gift-wrap/catalogue'].get.operationId).toBe('giftWrapCatalogue');
    expect(doc.paths['/graphql'].post.operationId).toBe('postGraphql');
    const ids = Object.values<Record<string, { operationId: string }>>(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operationIdOf('POST', '/webhooks/:gateway/:tenant_id')).toBe('postWebhooksByGatewayByTenantId');
    expect(operationIdOf('GET', '/media/files/*')).toBe('getMediaFilesByPath');
  });

  it('refuses to start when two routes would share an operationId, naming both and the way out', async () => {
    const clash = definePlugin({
      name: 'clash',
      routes: async (app: FastifyInstance) => {
        app.get('/gift-cards', { config: { auth: 'public' }, schema: { operationId: 'listGiftCards' } }, async () => ({}));
        app.get('/gift-cards/all', { config: { auth: 'public' }, schema: { operationId: 'listGiftCards' } }, async () => ({}));
      },
    });
    await expect(createTestApp({ plugins: [clash] })).rejects.toThrow(
      /GET \/api\/v1\/gift-cards \(plugin clash\) and GET \/api\/v1\/gift-cards\/all \(plugin clash\) both have the OpenAPI operationId "listGiftCards".*operationId/,
    );
  });
});
