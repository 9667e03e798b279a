import { createTestApp, type TestApp } from '@qhatu/core/testing';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../qhatu.config.js';

/**
 * The full store's /openapi.json through Redocly's recommended rules, as `redocly lint` runs them:
 * no error, and only the warnings that the specification's own paths make
 * (`/payments/gateways/{id}` beside `/payments/{id}/confirm`, and the like), the lookups by a
 * record's own key beside its id's sub-resources (`/catalog/products/handle/{handle}` beside
 * `/catalog/products/{id}/variants`, blog posts by slug, coupons by code; fastify's router takes the
 * literal segment first) and no licence.
 */
const ACCEPTED_WARNINGS = new Set(['no-ambiguous-paths', 'info-license']);

let t: TestApp;
let source: string;
beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins });
  const res = await t.request({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  source = res.body;
});
afterAll(async () => t?.close());

const summary = (problems: NormalizedProblem[]) => problems.map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`);

describe('the OpenAPI document under redocly lint (recommended)', () => {
  it('has no error and few warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    expect(summary(problems.filter((p) => p.severity === 'error'))).toEqual([]);
    const warnings = problems.filter((p) => p.severity === 'warn');
    expect(summary(warnings.filter((p) => !ACCEPTED_WARNINGS.has(p.ruleId)))).toEqual([]);
    expect(warnings.length, summary(warnings).join('\n')).toBeLessThanOrEqual(16);
  });

  it('declares its security schemes and applies one rule to every operation', () => {
    const doc = JSON.parse(source);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearer', 'tenant']);
    const operations = Object.entries<Record<string, { security?: unknown[]; operationId?: string }>>(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
    );
    expect(operations.filter(({ op }) => !Array.isArray(op.security)).map(({ name }) => name)).toEqual([]);
    const security = (name: string) => operations.find((o) => o.name === name)!.op.security;
    expect(security('GET /api/v1/catalog/products')).toEqual([{ bearer: [], tenant: [] }]);
    expect(security('POST /api/v1/tenants')).toEqual([{ bearer: [] }]);
    expect(security('POST /api/v1/auth/staff/login')).toEqual([{ tenant: [] }]);
    expect(security('POST /webhooks/stripe')).toEqual([]);
    expect(security('GET /media/files/{path}')).toEqual([]);
    expect(new Set(operations.map(({ op }) => op.operationId)).size).toBe(operations.length);
  });
});
