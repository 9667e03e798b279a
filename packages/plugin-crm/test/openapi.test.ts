import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '@qhatu/core/testing';
import { crmApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await crmApp();
});
afterAll(() => t?.close());

describe('the CRM in the OpenAPI document', () => {
  it('documents every operation with the permission it needs', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const doc = res.json();
    const operations = Object.entries<Record<string, { 'x-permission'?: string; summary?: string }>>(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/crm/'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));
    expect(operations.length).toBe(48);
    for (const { name, op } of operations) {
      expect(op['x-permission'], name).toMatch(/^crm\.(leads|contacts|deals|pipelines|tasks|settings)\.(read|write)$/);
      expect(op.summary, name).toBeTruthy();
    }
    for (const schema of ['CrmLead', 'CrmDeal', 'CrmTask', 'CrmContact', 'CrmAccount', 'CrmPipeline', 'CrmStage', 'CrmActivity', 'CrmConversion']) {
      expect(doc.components.schemas[schema], schema).toBeDefined();
    }
    expect(doc.components.schemas.CrmLead.properties.status.enum).toEqual(['new', 'working', 'mql', 'sql', 'converted', 'disqualified']);
  });
});
