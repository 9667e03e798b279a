import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createCustomer, customersApp, MISSING, register } from './helpers.js';

let last = 0;
const clock = { now: () => new Date((last = Math.max(Date.now(), last + 1))) };

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await customersApp({ clock });
  shop = await t.createTenant();
  api = caller(t, shop);
});
afterAll(async () => t?.close());

interface AddressJson {
  id: string;
  customer_id: string;
  address1: string;
  is_default: boolean;
  updated_at: string;
  [field: string]: unknown;
}

const HOME = { address1: 'Av. El Sol 123', city: 'Cusco', country_code: 'PE' };
const urlOf = (customerId: string) => `/api/v1/customers/${customerId}/addresses`;
const newCustomer = () => createCustomer(t, shop, { email: `addr-${Math.random().toString(36).slice(2)}@example.com` });

async function add(customerId: string, body: Record<string, unknown>, as = api): Promise<AddressJson> {
  const res = await as('POST', urlOf(customerId), body);
  if (res.statusCode !== 201) throw new Error(`address not added: ${res.body}`);
  return res.json().data;
}
async function book(customerId: string, as = api): Promise<AddressJson[]> {
  const res = await as('GET', urlOf(customerId));
  expect(res.statusCode, res.body).toBe(200);
  expect(Object.keys(res.json())).toEqual(['data']);
  return res.json().data;
}
const defaults = (list: AddressJson[]) => list.filter((a) => a.is_default).map((a) => a.address1);

describe('POST /customers/:id/addresses', () => {
  it('adds an address with every field; the first one is the default even when false is sent', async () => {
    const c = await newCustomer();
    const res = await api('POST', urlOf(c.id), {
      first_name: 'Ana', last_name: 'Quispe', company: 'Tejidos Ana SAC', address1: 'Jr. Lima 456', address2: 'Dpto. 3',
      city: 'Arequipa', province: 'Arequipa', country_code: 'pe', zip: '04001', phone: '+51 954 000 111', is_default: false,
    });
    expect(res.statusCode).toBe(201);
    const a = res.json().data;
    expect(a).toEqual({
      id: expect.any(String), customer_id: c.id, first_name: 'Ana', last_name: 'Quispe', company: 'Tejidos Ana SAC',
      address1: 'Jr. Lima 456', address2: 'Dpto. 3', city: 'Arequipa', province: 'Arequipa', country_code: 'PE', zip: '04001',
      phone: '+51954000111', is_default: true, created_at: expect.any(String), updated_at: a.created_at,
    });
    const minimal = await add(c.id, HOME);
    expect(minimal).toMatchObject({ first_name: null, last_name: null, company: null, address2: null, province: null, zip: null, phone: null, is_default: false });
    expect(defaults(await book(c.id))).toEqual(['Jr. Lima 456']);
  });

  it('moves the default to a new address sent with is_default true, in the same transaction', async () => {
    const c = await newCustomer();
    const first = await add(c.id, { ...HOME, address1: 'First' });
    await add(c.id, { ...HOME, address1: 'Second' });
    await add(c.id, { ...HOME, address1: 'Third', is_default: true });
    const list = await book(c.id);
    expect(list.map((a) => a.address1)).toEqual(['Third', 'First', 'Second']); // the default first, then oldest first
    expect(defaults(list)).toEqual(['Third']);
    expect(list.find((a) => a.id === first.id)!.updated_at > first.updated_at).toBe(true);
  });

  it('keeps exactly one default under simultaneous adds', async () => {
    const c = await newCustomer();
    await Promise.all(['A', 'B', 'C', 'D'].map((address1) => add(c.id, { ...HOME, address1 })));
    const list = await book(c.id);
    expect(list).toHaveLength(4);
    expect(defaults(list)).toHaveLength(1);
    await Promise.all(['E', 'F', 'G'].map((address1) => add(c.id, { ...HOME, address1, is_default: true })));
    expect(defaults(await book(c.id))).toHaveLength(1);
  });

  it.each([
    [{}, 'body.address1'],
    [{ ...HOME, address1: '' }, 'body.address1'],
    [{ ...HOME, address1: '   ' }, 'body.address1'],
    [{ ...HOME, city: undefined }, 'body.city'],
    [{ ...HOME, country_code: undefined }, 'body.country_code'],
    [{ ...HOME, country_code: 'XX' }, 'body.country_code'],
    [{ ...HOME, country_code: 'PER' }, 'body.country_code'],
    [{ ...HOME, country_code: 'UK' }, 'body.country_code'],
    [{ ...HOME, country_code: 51 }, 'body.country_code'],
    [{ ...HOME, phone: '954000111' }, 'body.phone'],
    [{ ...HOME, zip: 'x'.repeat(21) }, 'body.zip'],
    [{ ...HOME, address2: 'x'.repeat(256) }, 'body.address2'],
    [{ ...HOME, is_default: 'yes' }, 'body.is_default'],
    [{ ...HOME, customer_id: MISSING }, 'body'],
  ])('refuses %j (%s)', async (payload, path) => {
    const c = await newCustomer();
    const res = await api('POST', urlOf(c.id), payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('answers 404 CUSTOMER_NOT_FOUND for an unknown customer and 400 for a malformed id', async () => {
    for (const [method, body] of [['GET', undefined], ['POST', HOME]] as const) {
      const res = await api(method, urlOf(MISSING), body);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('CUSTOMER_NOT_FOUND');
      expect((await api(method, urlOf('123'), body)).statusCode).toBe(400);
    }
    expect((await api('GET', `${urlOf(MISSING)}?limit=5`)).statusCode).toBe(400);
  });

  it('stops at 100 addresses with 422 ADDRESS_LIMIT_REACHED', async () => {
    const c = await newCustomer();
    for (let i = 0; i < 100; i++) await add(c.id, { ...HOME, address1: `Street ${i}` });
    const res = await api('POST', urlOf(c.id), HOME);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('ADDRESS_LIMIT_REACHED');
  });
});

describe('PUT /customers/:id/addresses/:address_id', () => {
  it('replaces every field (absent ones become null) and keeps the default where it is without is_default', async () => {
    const c = await newCustomer();
    const a = await add(c.id, { ...HOME, company: 'Old SAC', zip: '08000' });
    const res = await api('PUT', `${urlOf(c.id)}/${a.id}`, { address1: 'Calle Nueva 9', city: 'Lima', country_code: 'pe', first_name: 'Rosa' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: a.id, address1: 'Calle Nueva 9', city: 'Lima', country_code: 'PE', first_name: 'Rosa', company: null, zip: null, is_default: true });
    expect(res.json().data.updated_at > a.updated_at).toBe(true);
    expect((await book(c.id))[0]).toEqual(res.json().data);
  });

  it('moves the default with is_default true and refuses false on the default (409 DEFAULT_ADDRESS_REQUIRED)', async () => {
    const c = await newCustomer();
    const first = await add(c.id, { ...HOME, address1: 'First' });
    const second = await add(c.id, { ...HOME, address1: 'Second' });
    const moved = await api('PUT', `${urlOf(c.id)}/${second.id}`, { ...HOME, address1: 'Second', is_default: true });
    expect(moved.json().data.is_default).toBe(true);
    expect(defaults(await book(c.id))).toEqual(['Second']);

    const refused = await api('PUT', `${urlOf(c.id)}/${second.id}`, { ...HOME, address1: 'Second', is_default: false });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'DEFAULT_ADDRESS_REQUIRED', details: [{ path: 'body.is_default' }] });
    expect((await api('PUT', `${urlOf(c.id)}/${first.id}`, { ...HOME, address1: 'First', is_default: false })).json().data.is_default).toBe(false);
    expect((await api('PUT', `${urlOf(c.id)}/${second.id}`, { ...HOME, address1: 'Second', is_default: true })).json().data.is_default).toBe(true);
    expect(defaults(await book(c.id))).toEqual(['Second']);
  });

  it('answers 404 ADDRESS_NOT_FOUND for an unknown address or one of another customer, 400 for bad input', async () => {
    const c = await newCustomer();
    const d = await newCustomer();
    const theirs = await add(d.id, HOME);
    await add(c.id, HOME);
    for (const id of [MISSING, theirs.id]) {
      const res = await api('PUT', `${urlOf(c.id)}/${id}`, HOME);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('ADDRESS_NOT_FOUND');
    }
    expect((await api('PUT', `${urlOf(MISSING)}/${theirs.id}`, HOME)).json().error.code).toBe('CUSTOMER_NOT_FOUND');
    expect((await api('PUT', `${urlOf(c.id)}/nope`, HOME)).statusCode).toBe(400);
    expect((await api('PUT', `${urlOf(d.id)}/${theirs.id}`, { city: 'Lima' })).statusCode).toBe(400);
    expect((await api('PUT', `${urlOf(d.id)}/${theirs.id}`, { ...HOME, country_code: 'ZZ' })).statusCode).toBe(400);
    expect((await book(d.id))[0]).toEqual(theirs);
  });
});

describe('DELETE /customers/:id/addresses/:address_id', () => {
  it('leaves the default alone when another goes; deleting the default promotes the newest remaining one', async () => {
    const c = await newCustomer();
    const a = await add(c.id, { ...HOME, address1: 'A' });
    const b = await add(c.id, { ...HOME, address1: 'B' });
    const cc = await add(c.id, { ...HOME, address1: 'C' });
    await add(c.id, { ...HOME, address1: 'D' });
    const gone = await api('DELETE', `${urlOf(c.id)}/${b.id}`);
    expect(gone.statusCode).toBe(204);
    expect(gone.body).toBe('');
    expect(defaults(await book(c.id))).toEqual(['A']);

    expect((await api('DELETE', `${urlOf(c.id)}/${a.id}`)).statusCode).toBe(204);
    expect(defaults(await book(c.id))).toEqual(['D']);
    expect((await api('DELETE', `${urlOf(c.id)}/${a.id}`)).json().error.code).toBe('ADDRESS_NOT_FOUND');

    const list = await book(c.id);
    await api('DELETE', `${urlOf(c.id)}/${list[0].id}`);
    expect(defaults(await book(c.id))).toEqual(['C']);
    await api('DELETE', `${urlOf(c.id)}/${cc.id}`);
    expect(await book(c.id)).toEqual([]);
    expect((await add(c.id, { ...HOME, address1: 'Again' })).is_default).toBe(true);
  });

  it('answers 404 for an address of another customer and 400 for malformed ids', async () => {
    const c = await newCustomer();
    const d = await newCustomer();
    const theirs = await add(d.id, HOME);
    expect((await api('DELETE', `${urlOf(c.id)}/${theirs.id}`)).statusCode).toBe(404);
    expect((await api('DELETE', `${urlOf(c.id)}/x`)).statusCode).toBe(400);
    expect((await api('DELETE', `${urlOf('x')}/${theirs.id}`)).statusCode).toBe(400);
    expect(await book(d.id)).toHaveLength(1);
  });
});

describe('the default-address index', () => {
  it('refuses a second default even when written around the service', async () => {
    const c = await newCustomer();
    const a = await add(c.id, HOME);
    const b = await add(c.id, HOME);
    const sql = t.app.orm.em.getConnection();
    await expect(sql.execute(`update customers_address set is_default = true where tenant_id = ? and id = ?`, [shop.id, b.id])).rejects.toThrow(/customers_address_default/);
    expect(a.is_default).toBe(true);
  });
});

describe('who may reach an address book', () => {
  it('admin keys reach any; the storefront key none; a customer token its own only', async () => {
    const store = caller(t, shop, shop.storefrontToken);
    const c = await newCustomer();
    for (const [method, url, body] of [['GET', urlOf(c.id)], ['POST', urlOf(c.id), HOME], ['PUT', `${urlOf(c.id)}/${MISSING}`, HOME], ['DELETE', `${urlOf(c.id)}/${MISSING}`]] as const) {
      const res = await store(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }

    const me = await register(t, shop, { email: 'own-book@example.com', password: 'long enough' });
    const mine = caller(t, shop, me.token);
    const a = await add(me.customer.id, { ...HOME, address1: 'Mine' }, mine);
    const b = await add(me.customer.id, { ...HOME, address1: 'Also mine', is_default: true }, mine);
    expect((await mine('PUT', `${urlOf(me.customer.id)}/${a.id}`, { ...HOME, address1: 'Mine, renamed' })).statusCode).toBe(200);
    expect((await mine('DELETE', `${urlOf(me.customer.id)}/${b.id}`)).statusCode).toBe(204);
    expect((await book(me.customer.id, mine)).map((x) => [x.address1, x.is_default])).toEqual([['Mine, renamed', true]]);
    expect((await book(me.customer.id)).map((x) => x.id)).toEqual([a.id]); // the admin sees the same

    const theirs = await add(c.id, HOME);
    for (const [method, url, body] of [['GET', urlOf(c.id)], ['POST', urlOf(c.id), HOME], ['PUT', `${urlOf(c.id)}/${theirs.id}`, HOME], ['DELETE', `${urlOf(c.id)}/${theirs.id}`], ['GET', urlOf(MISSING)]] as const) {
      const res = await mine(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
    // Another customer's address under one's own id is simply not there.
    expect((await mine('DELETE', `${urlOf(me.customer.id)}/${theirs.id}`)).statusCode).toBe(404);
    expect(await book(c.id)).toHaveLength(1);
  });

  it('refuses a customer disabled while their token is still cached elsewhere (403 CUSTOMER_DISABLED)', async () => {
    const me = await register(t, shop, { email: 'stale-token@example.com', password: 'long enough' });
    const mine = caller(t, shop, me.token);
    await add(me.customer.id, HOME, mine);
    // As another process would see it within the token cache's 30 s: the record disabled, the token not yet forgotten.
    await t.app.orm.em.getConnection().execute(`update customers_customer set status = 'disabled' where tenant_id = ? and id = ?`, [shop.id, me.customer.id]);
    for (const [method, body] of [['GET', undefined], ['POST', HOME]] as const) {
      const res = await mine(method, urlOf(me.customer.id), body);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('CUSTOMER_DISABLED');
    }
    expect(await book(me.customer.id)).toHaveLength(1); // the admin still manages them
  });
});
