import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DependencyContainer } from 'tsyringe';
import { PermissionRegistry } from '../auth/permissions.js';
import type { Role, StaffMember } from '../db/entities.js';
import { filtersOf } from '../http/pagination.js';
import { CREDENTIAL_RATE_LIMIT } from '../http/rate-limits.js';
import { ADMIN } from '../http/route-config.js';
import { dataOf, errorResponses, IdParams, listOf, NoContent } from '../http/schemas.js';
import { StaffAccounts, type StaffSession as Session } from './accounts.js';
import { StaffMembers } from './members.js';
import { Roles } from './roles.js';
import {
  PasswordChange,
  PasswordResetRequest,
  PasswordSet,
  PermissionOut,
  RoleCreate,
  RoleListQuery,
  RoleOut,
  RolePatch,
  StaffCreate,
  StaffListQuery,
  StaffLogin,
  StaffMe,
  StaffOut,
  StaffPatch,
  StaffSession,
} from './schemas.js';

export function staffOut(m: StaffMember) {
  return {
    id: m.id,
    email: m.email,
    first_name: m.firstName,
    last_name: m.lastName,
    role_id: m.roleId,
    status: m.status,
    last_login_at: m.lastLoginAt?.toISOString() ?? null,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}

const sessionOut = (s: Session) => ({ token: s.token, expires_at: s.expiresAt.toISOString(), staff: staffOut(s.staff) });

/** Staff members, their sign-in, roles and the permissions the installed plugins declare. */
export async function staffRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const members = container.resolve(StaffMembers);
  const accounts = container.resolve(StaffAccounts);
  const roles = container.resolve(Roles);
  const registry = container.resolve(PermissionRegistry);
  const roleOut = (role: Role) => ({
    id: role.id,
    name: role.name,
    built_in: role.builtIn !== null,
    permissions: roles.permissionsOf(role),
    created_at: role.createdAt.toISOString(),
    updated_at: role.updatedAt.toISOString(),
  });

  const auth = ['Staff sign-in'];
  // Each try costs a deliberate scrypt: limited per store, client and e-mail.
  r.post('/auth/staff/login', {
    config: { auth: 'tenant', rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: { tags: auth, summary: 'Sign a staff member in (X-Tenant-ID, no token): a staff token', body: StaffLogin, response: { 200: dataOf(StaffSession), ...errorResponses(400, 401, 403, 429) } },
  }, async (req) => ({ data: sessionOut(await accounts.login(req.body.email, req.body.password)) }));

  r.post('/auth/staff/logout', {
    config: { auth: ['staff'] },
    schema: { tags: auth, summary: 'Revoke the staff token this request carries', response: { 204: NoContent, ...errorResponses(400, 401, 403) } },
  }, async (_req, reply) => {
    await accounts.logout();
    return reply.code(204).send(null);
  });

  r.post('/auth/staff/password-reset', {
    config: { auth: 'tenant', rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: {
      tags: auth,
      summary: 'E-mail a single-use password reset link to an active staff member (the answer is the same for any e-mail)',
      body: PasswordResetRequest,
      response: { 204: NoContent, ...errorResponses(400, 429) },
    },
  }, async (req, reply) => {
    await accounts.requestReset(req.body.email);
    return reply.code(204).send(null);
  });

  r.post('/auth/staff/password', {
    config: { auth: 'tenant', rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: {
      tags: auth,
      summary: 'Choose a password with the token of an invitation or reset link (once, before it expires): a staff token',
      body: PasswordSet,
      response: { 200: dataOf(StaffSession), ...errorResponses(400, 403, 422, 429) },
    },
  }, async (req) => ({ data: sessionOut(await accounts.setPassword(req.body.token, req.body.password)) }));

  const tags = ['Staff'];
  r.get('/staff/me', {
    config: { auth: ['staff'] },
    schema: { tags, summary: 'The signed-in staff member, their role and permissions (staff token)', response: { 200: dataOf(StaffMe), ...errorResponses(400, 401, 403, 404) } },
  }, async () => {
    const { member, role, permissions } = await accounts.me();
    return { data: { ...staffOut(member), role: { id: role.id, name: role.name, built_in: role.builtIn !== null }, permissions } };
  });

  r.post('/staff/me/password', {
    config: { auth: ['staff'], rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: {
      tags,
      summary: "Change the signed-in member's password (staff token): the current one is needed, the other sessions end",
      body: PasswordChange,
      response: { 204: NoContent, ...errorResponses(400, 401, 403, 409, 429) },
    },
  }, async (req, reply) => {
    await accounts.changePassword(req.body.current_password, req.body.password);
    return reply.code(204).send(null);
  });

  r.get('/staff', {
    config: { auth: ADMIN, permission: 'staff.read' },
    schema: { tags, summary: 'List staff members (q: every word in the e-mail or a name)', querystring: StaffListQuery, response: { 200: listOf(StaffOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const f = filtersOf(req.query) as { status?: StaffMember['status']; role_id?: string };
    const page = await members.list(req.query, { status: f.status, roleId: f.role_id, q: req.query.q });
    return { data: page.items.map(staffOut), meta: { pagination: page.pagination } };
  });

  r.post('/staff', {
    config: { auth: ADMIN, permission: 'staff.manage' },
    schema: {
      tags,
      summary: 'Add a staff member: with a password, or e-mailed an invitation link to choose one',
      body: StaffCreate,
      response: { 201: dataOf(StaffOut), ...errorResponses(400, 401, 403, 409, 422, 502) },
    },
  }, async (req, reply) => reply.code(201).send({ data: staffOut(await members.create(req.body)) }));

  r.get('/staff/:id', {
    config: { auth: ADMIN, permission: 'staff.read' },
    schema: { tags, summary: 'Read a staff member', params: IdParams, response: { 200: dataOf(StaffOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: staffOut(await members.get(req.params.id)) }));

  r.patch('/staff/:id', {
    config: { auth: ADMIN, permission: 'staff.manage' },
    schema: {
      tags,
      summary: 'Change a staff member; `status: "disabled"` ends their sessions at once',
      params: IdParams,
      body: StaffPatch,
      response: { 200: dataOf(StaffOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req) => ({ data: staffOut(await members.update(req.params.id, req.body)) }));

  r.delete('/staff/:id', {
    config: { auth: ADMIN, permission: 'staff.manage' },
    schema: { tags, summary: 'Remove a staff member and end their sessions (never the last owner)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => {
    await members.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.post('/staff/:id/invitation', {
    config: { auth: ADMIN, permission: 'staff.manage' },
    schema: {
      tags,
      summary: 'E-mail a new invitation link to a member who has not chosen a password (the earlier link stops working)',
      params: IdParams,
      response: { 200: dataOf(StaffOut), ...errorResponses(400, 401, 403, 404, 409, 502) },
    },
  }, async (req) => ({ data: staffOut(await members.invite(req.params.id)) }));

  const roleTags = ['Roles'];
  r.get('/roles', {
    config: { auth: ADMIN, permission: 'staff.read' },
    schema: { tags: roleTags, summary: 'List roles, the built-in owner and admin included', querystring: RoleListQuery, response: { 200: listOf(RoleOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await roles.list(req.query);
    return { data: page.items.map(roleOut), meta: { pagination: page.pagination } };
  });

  r.post('/roles', {
    config: { auth: ADMIN, permission: 'staff.manage' },
    schema: { tags: roleTags, summary: 'Define a role: a name and permissions (GET /permissions)', body: RoleCreate, response: { 201: dataOf(RoleOut), ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: roleOut(await roles.create(req.body)) }));

  r.get('/roles/:id', {
    config: { auth: ADMIN, permission: 'staff.read' },
    schema: { tags: roleTags, summary: 'Read a role', params: IdParams, response: { 200: dataOf(RoleOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: roleOut(await roles.get(req.params.id)) }));

  r.patch('/roles/:id', {
    config: { auth: ADMIN, permission: 'staff.manage' },
    schema: {
      tags: roleTags,
      summary: "Rename a role or replace its permissions (its members' next request sees them)",
      params: IdParams,
      body: RolePatch,
      response: { 200: dataOf(RoleOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req) => ({ data: roleOut(await roles.update(req.params.id, req.body)) }));

  r.delete('/roles/:id', {
    config: { auth: ADMIN, permission: 'staff.manage' },
    schema: { tags: roleTags, summary: 'Delete a role no member or API key has (never a built-in one)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => {
    await roles.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.get('/permissions', {
    config: { auth: ADMIN, permission: 'staff.read' },
    schema: { tags: roleTags, summary: 'Every permission the installed plugins declare', response: { 200: dataOf(z.array(PermissionOut)), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: registry.list() }));
}
