import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { Database } from '@qhatu/core';
import { crmApp, crmCaller, fails, ok, staffMember } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let call: ReturnType<typeof crmCaller>;

beforeAll(async () => {
  t = await crmApp();
  a = await t.createTenant({ currency: 'PEN' });
  b = await t.createTenant();
  call = crmCaller(t, a);
});
afterAll(() => t?.close());

const lead = (body: Record<string, unknown>, as = call) => ok(as('POST', '/leads', body), 201);

/** Rows of a table in a store, counted as the owner (no tenant filter in the way). */
async function count(table: string, tenantId: string, where = 'true', params: unknown[] = []): Promise<number> {
  const [row] = await t.app.container.resolve(Database).query<{ n: string }>(`select count(*) as n from ${table} where tenant_id = ? and ${where}`, [tenantId, ...params]);
  return Number(row.n);
}

describe('converting a lead', () => {
  it('makes a contact, an account and a deal in the default pipeline, moves activities and open tasks, and says so in an event', async () => {
    const member = await staffMember(t, a);
    const as = crmCaller(t, a, member.token);
    const l = await lead({ first_name: 'Rosa', last_name: 'Ccori', email: 'rosa@alpaca.pe', phone: '+51 84 222 333', company: 'Alpaca Fina', job_title: 'Founder', tags: ['expo'], metadata: { fair: 2026 } }, as);
    const activity = await ok(call('POST', `/leads/${l.id}/activities`, { type: 'meeting', subject: 'Visit', occurred_at: '2026-11-20T10:00:00Z' }), 201);
    const open = await ok(call('POST', `/leads/${l.id}/tasks`, { title: 'Send prices' }), 201);
    const done = await ok(call('POST', `/leads/${l.id}/tasks`, { title: 'Book visit' }), 201);
    await ok(call('POST', `/tasks/${done.id}/complete`));
    await ok(call('POST', `/leads/${l.id}/qualify`));

    const res = await call('POST', `/leads/${l.id}/convert`, { create_account: true, create_deal: true, deal_amount: 1_250_000 });
    expect(res.statusCode, res.body).toBe(200);
    const { lead: converted, contact, account, deal } = res.json().data;
    expect(contact).toMatchObject({ first_name: 'Rosa', last_name: 'Ccori', email: 'rosa@alpaca.pe', phone: '+51 84 222 333', job_title: 'Founder', account_id: account.id, owner_id: member.id, lead_id: l.id, tags: ['expo'], metadata: { fair: 2026 }, last_activity_at: '2026-11-20T10:00:00.000Z' });
    expect(account).toMatchObject({ name: 'Alpaca Fina', owner_id: member.id });
    const pipelines = (await call('GET', '/pipelines')).json().data;
    expect(pipelines).toHaveLength(1);
    expect(pipelines[0]).toMatchObject({ name: 'Sales', is_default: true });
    expect(deal).toMatchObject({
      title: 'Alpaca Fina deal',
      amount: 1_250_000,
      currency: 'PEN',
      status: 'open',
      pipeline_id: pipelines[0].id,
      stage_id: pipelines[0].stages[0].id,
      probability: pipelines[0].stages[0].probability,
      contact_id: contact.id,
      account_id: account.id,
      owner_id: member.id,
    });
    expect(converted).toMatchObject({ status: 'converted', converted_contact_id: contact.id, converted_account_id: account.id, converted_deal_id: deal.id });
    expect(converted.converted_at).not.toBeNull();

    // The lead's activity and its open task now belong to the contact; the completed task stays.
    expect((await call('GET', `/leads/${l.id}/activities`)).json().data).toEqual([]);
    expect((await call('GET', `/contacts/${contact.id}/activities`)).json().data.map((x: { id: string }) => x.id)).toEqual([activity.id]);
    expect(await ok(call('GET', `/tasks/${open.id}`))).toMatchObject({ entity_kind: 'contact', entity_id: contact.id, status: 'open' });
    expect(await ok(call('GET', `/tasks/${done.id}`))).toMatchObject({ entity_kind: 'lead', entity_id: l.id, status: 'completed' });

    const [event] = await t.app.container.resolve(Database).query<{ type: string; data: Record<string, unknown> }>(
      `select type, data from core_outbox where tenant_id = ? and type = 'crm.lead.converted'`, [a.id]);
    expect(event.data).toMatchObject({ id: l.id, status: 'converted', converted_contact_id: contact.id, converted_account_id: account.id, converted_deal_id: deal.id });

    // Converting again answers with the same records, whatever is asked, and makes nothing.
    const again = await ok(call('POST', `/leads/${l.id}/convert`, { create_account: false, create_deal: true, deal_title: 'Other' }));
    expect(again).toEqual(res.json().data);
    expect(await count('crm_contact', a.id, 'lead_id = ?', [l.id])).toBe(1);
    expect(await count('crm_deal', a.id)).toBe(1);
  });

  it('makes just a contact by default; an account named by account_name; a deal with its title, currency and pipeline', async () => {
    const plain = await lead({ last_name: 'Solo' });
    const only = await ok(call('POST', `/leads/${plain.id}/convert`));
    expect(only.account).toBeNull();
    expect(only.deal).toBeNull();
    expect(only.contact).toMatchObject({ last_name: 'Solo', account_id: null });
    expect(only.lead).toMatchObject({ converted_account_id: null, converted_deal_id: null });

    const pipeline = await ok(call('POST', '/pipelines', { name: 'Wholesale', stages: [{ name: 'Quote', probability: 30 }, { name: 'Order', probability: 80 }] }), 201);
    const l = await lead({ last_name: 'Mayta', company: 'Ignored' });
    const out = await ok(call('POST', `/leads/${l.id}/convert`, {
      create_account: true, account_name: 'Mayta Hnos', create_deal: true, deal_title: 'Uniforms', deal_amount: 90_000, deal_currency: 'USD', deal_pipeline_id: pipeline.id,
    }));
    expect(out.account.name).toBe('Mayta Hnos');
    expect(out.deal).toMatchObject({ title: 'Uniforms', amount: 90_000, currency: 'USD', pipeline_id: pipeline.id, stage_id: pipeline.stages[0].id, probability: 30 });
  });

  it('refuses what cannot be converted, and changes nothing then', async () => {
    const noCompany = await lead({ last_name: 'Nadie' });
    const error = await fails(call('POST', `/leads/${noCompany.id}/convert`, { create_account: true }), 400, 'VALIDATION_ERROR');
    expect(error.details[0].path).toBe('body.account_name');
    const theirPipeline = (await ok(crmCaller(t, b)('POST', '/pipelines', { name: 'Theirs', stages: [{ name: 'One', probability: 5 }] }), 201)).id;
    const wrong = await fails(call('POST', `/leads/${noCompany.id}/convert`, { create_deal: true, deal_pipeline_id: theirPipeline }), 422, 'PIPELINE_NOT_FOUND');
    expect(wrong.details[0].path).toBe('body.deal_pipeline_id');
    for (const body of [{ create_deal: 'yes' }, { deal_amount: -1 }, { deal_currency: 'soles' }, { deal_pipeline_id: 'x' }, { extra: 1 }]) {
      await fails(call('POST', `/leads/${noCompany.id}/convert`, body), 400, 'VALIDATION_ERROR');
    }
    expect(await ok(call('GET', `/leads/${noCompany.id}`))).toMatchObject({ status: 'new', converted_contact_id: null });
    expect(await count('crm_contact', a.id, 'lead_id = ?', [noCompany.id])).toBe(0);
    await fails(call('POST', `/leads/${crypto.randomUUID()}/convert`), 404, 'LEAD_NOT_FOUND');
  });

  it('makes exactly one contact, account and deal when ten conversions of a lead arrive at once', async () => {
    const store = await t.createTenant();
    const as = crmCaller(t, store);
    const l = await lead({ last_name: 'Paucar', company: 'Paucar SAC' }, as);
    // The store's first CRM use: the default pipeline is made by whichever conversion gets there first.
    const answers = await Promise.all(Array.from({ length: 10 }, () => as('POST', `/leads/${l.id}/convert`, { create_account: true, create_deal: true, deal_amount: 500 })));
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const bodies = answers.map((res) => res.json().data);
    for (const body of bodies) {
      expect(body.contact.id).toBe(bodies[0].contact.id);
      expect(body.account.id).toBe(bodies[0].account.id);
      expect(body.deal.id).toBe(bodies[0].deal.id);
    }
    expect(await count('crm_contact', store.id)).toBe(1);
    expect(await count('crm_account', store.id)).toBe(1);
    expect(await count('crm_deal', store.id)).toBe(1);
    expect(await count('crm_pipeline', store.id)).toBe(1);
    expect(await count('core_outbox', store.id, `type = 'crm.lead.converted'`)).toBe(1);
  });

  it('makes one default pipeline when a store first uses the CRM from many requests at once', async () => {
    const store = await t.createTenant();
    const as = crmCaller(t, store);
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => as('GET', '/pipelines')),
      ...Array.from({ length: 4 }, (_, i) => as('POST', '/deals', { title: `Deal ${i}` })),
    ]);
    for (const res of answers) expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await count('crm_pipeline', store.id)).toBe(1);
    expect(await count('crm_stage', store.id)).toBe(5);
    const pipelines = (await as('GET', '/pipelines')).json().data;
    expect(pipelines[0].stages.map((s: { name: string; probability: number; position: number }) => [s.position, s.name, s.probability])).toEqual([
      [0, 'Qualification', 10], [1, 'Needs analysis', 25], [2, 'Proposal', 50], [3, 'Negotiation', 75], [4, 'Closing', 90],
    ]);
  });
});
