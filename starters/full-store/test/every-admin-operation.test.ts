import { isAdminRule } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { createTestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../qhatu.config.js';

// Every admin operation is found from what the app serves (its OpenAPI document, its GraphQL
// schema), never from a list kept here: an operation added tomorrow is walked tomorrow.
let t: TestApp;
let shop: TestTenant;
let nobody: Record<string, string>;
const SOME_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins });
  shop = await t.createTenant({ currency: 'PEN' });
  const role = await t.request({ method: 'POST', url: '/api/v1/roles', headers: shop.headers(), payload: { name: 'Nothing at all', permissions: [] } });
  expect(role.statusCode, role.body).toBe(201);
  const email = 'nobody@example.com';
  const member = await t.request({
    method: 'POST',
    url: '/api/v1/staff',
    headers: shop.headers(),
    payload: { email, first_name: 'Nadie', last_name: 'Quispe', role_id: role.json().data.id, password: 'a long password' },
  });
  expect(member.statusCode, member.body).toBe(201);
  const session = await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': shop.id }, payload: { email, password: 'a long password' } });
  expect(session.statusCode, session.body).toBe(200);
  nobody = { authorization: `Bearer ${session.json().data.token}`, 'x-tenant-id': shop.id };
}, 60_000);
afterAll(async () => t?.close());

describe('a staff member whose role holds no permission', () => {
  it('is refused every admin operation of the OpenAPI document, each naming its permission', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { 'x-permission'?: string }>>;
    };
    // Each admin route the app serves is in the document, naming its permission.
    const operations = t.app.routes
      .filter((r) => isAdminRule(r.auth) && r.method !== 'HEAD')
      .map((r) => ({ method: r.method, path: r.url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}'), permission: r.permission }));
    expect(operations.length).toBeGreaterThan(150);
    const undocumented = operations.filter((op) => doc.paths[op.path]?.[op.method.toLowerCase()]?.['x-permission'] !== op.permission);
    expect(undocumented).toEqual([]);

    const admitted: string[] = [];
    for (const op of operations) {
      const url = op.path.replace(/\{[^}]+\}/g, SOME_ID);
      const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
      const res = await t.request({ method: op.method as 'GET', url, headers: nobody, payload: body });
      const error = res.statusCode === 403 ? res.json().error : undefined;
      if (error?.code !== 'FORBIDDEN' || error.details?.[0]?.permission !== op.permission) admitted.push(`${op.method} ${op.path} → ${res.statusCode} ${res.body.slice(0, 160)}`);
    }
    expect(admitted).toEqual([]);
  });

  it('is refused every admin field of the GraphQL schema with FORBIDDEN', async () => {
    const ask = async (query: string) => {
      const res = await t.request({ method: 'POST', url: '/graphql', headers: shop.headers(), payload: { query } });
      expect(res.json().errors, res.body).toBeUndefined();
      return res.json().data;
    };
    const types = new Map<string, IntrospectedType>((await ask(INPUT_TYPES)).__schema.types.map((x: IntrospectedType) => [x.name, x]));
    for (const root of ['Query', 'Mutation']) types.set(root, (await ask(ROOT_FIELDS.replace('$ROOT', root))).__type);
    const rootFields = (type: 'Query' | 'Mutation') => types.get(type)!.fields!;
    // Every root field a plugin adds declares who may call it.
    const declared = new Set(t.app.graphqlFields.map((f) => `${f.type}.${f.field}`));
    const all = (['Query', 'Mutation'] as const).flatMap((type) => rootFields(type).map((f) => `${type}.${f.name}`));
    expect(all.filter((f) => !declared.has(f))).toEqual(['Query.apiVersion', 'Mutation.noop']);

    const adminFields = t.app.graphqlFields.filter((f) => isAdminRule(f.auth));
    expect(adminFields.map((f) => `${f.type}.${f.field}`)).toContain('Query.analytics');
    const admitted: string[] = [];
    for (const f of adminFields) {
      const field = rootFields(f.type).find((x) => x.name === f.field)!;
      const query = `${f.type === 'Query' ? 'query' : 'mutation'} { ${call(field, types)} }`;
      const res = await t.request({ method: 'POST', url: '/graphql', headers: nobody, payload: { query } });
      const error = res.json().errors?.[0];
      if (error?.extensions?.code !== 'FORBIDDEN' || !f.permission || !error.message.includes(f.permission)) admitted.push(`${f.type}.${f.field} → ${res.body.slice(0, 200)}`);
    }
    expect(admitted).toEqual([]);
  });

  it('still reads what needs no permission: the storefront’s products', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', headers: nobody, payload: { query: '{ products(limit: 1) { edges { cursor } } }' } });
    expect(res.json().errors).toBeUndefined();
  });
});

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface IntrospectedType {
  kind: string;
  name: string;
  fields: Array<{ name: string; args: Array<{ name: string; type: TypeRef }>; type: TypeRef }> | null;
  inputFields: Array<{ name: string; type: TypeRef }> | null;
  enumValues: Array<{ name: string }> | null;
}

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
// Two questions, as one would pass the depth limit that guards the endpoint.
const INPUT_TYPES = `{ __schema { types { kind name inputFields { name type { ${TYPE_REF} } } enumValues { name } } } }`;
const ROOT_FIELDS = `{ __type(name: "$ROOT") { kind name fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } } }`;

const named = (ref: TypeRef): string => (ref.ofType ? named(ref.ofType) : ref.name!);

/** A call of `field` with a value for each required argument, selecting `__typename` of an object. */
function call(field: NonNullable<IntrospectedType['fields']>[number], types: Map<string, IntrospectedType>): string {
  const args = field.args.filter((a) => a.type.kind === 'NON_NULL').map((a) => `${a.name}: ${literal(a.type, types)}`);
  const selection = types.get(named(field.type))?.kind === 'OBJECT' ? ' { __typename }' : '';
  return `${field.name}${args.length ? `(${args.join(', ')})` : ''}${selection}`;
}

function literal(ref: TypeRef, types: Map<string, IntrospectedType>): string {
  if (ref.kind === 'NON_NULL') return literal(ref.ofType!, types);
  if (ref.kind === 'LIST') return `[${literal(ref.ofType!, types)}]`;
  const type = types.get(ref.name!)!;
  if (type.kind === 'ENUM') return type.enumValues![0]!.name;
  if (type.kind === 'INPUT_OBJECT') {
    const required = type.inputFields!.filter((f) => f.type.kind === 'NON_NULL');
    return `{ ${required.map((f) => `${f.name}: ${literal(f.type, types)}`).join(', ')} }`;
  }
  if (type.name === 'Int' || type.name === 'Float') return '1';
  if (type.name === 'Boolean') return 'true';
  if (type.name === 'ID') return `"${SOME_ID}"`;
  return '"2026-01-01"';
}
