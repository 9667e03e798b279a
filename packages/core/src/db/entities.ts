import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const TENANT_STATUSES = ['active', 'suspended', 'trial', 'expired'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

export const Tenant = defineEntity({
  name: 'Tenant',
  tableName: 'core_tenant',
  properties: {
    id: p.uuid().primary(),
    name: p.string(),
    slug: p.string(),
    status: p.string().$type<TenantStatus>(),
    currency: p.string(),
    defaultLocale: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Tenant = InferEntity<typeof Tenant>;

export const ACCESS_TOKEN_KINDS = ['admin', 'storefront', 'customer', 'vendor', 'staff'] as const;

export const AccessToken = defineEntity({
  name: 'AccessToken',
  tableName: 'core_access_token',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    kind: p.string().$type<(typeof ACCESS_TOKEN_KINDS)[number]>(),
    name: p.string().nullable(),
    tokenHash: p.string(),
    tokenPrefix: p.string(),
    subjectId: p.uuid().nullable(),
    /** An admin key bound to a role has that role's permissions only; without one, every permission. */
    roleId: p.uuid().nullable(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type AccessToken = InferEntity<typeof AccessToken>;

export const OutboxEvent = defineEntity({
  name: 'OutboxEvent',
  tableName: 'core_outbox',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    type: p.string(),
    source: p.string(),
    data: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
    publishedAt: p.datetime().nullable(),
  },
});
export type OutboxEvent = InferEntity<typeof OutboxEvent>;

export const BUILT_IN_ROLES = ['owner', 'admin'] as const;
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];

/** A set of permissions staff members (and admin keys) are given; `owner` and `admin` are built in. */
export const Role = defineEntity({
  name: 'Role',
  tableName: 'core_role',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    builtIn: p.string().$type<BuiltInRole>().nullable(),
    permissions: p.json<string[]>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Role = InferEntity<typeof Role>;

export const STAFF_STATUSES = ['active', 'disabled'] as const;
export type StaffStatus = (typeof STAFF_STATUSES)[number];

/** A person who runs a store. The password lives apart, in `StaffCredential`. */
export const StaffMember = defineEntity({
  name: 'StaffMember',
  tableName: 'core_staff',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    email: p.string(),
    firstName: p.string(),
    lastName: p.string(),
    roleId: p.uuid(),
    status: p.string().$type<StaffStatus>(),
    lastLoginAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type StaffMember = InferEntity<typeof StaffMember>;

export const StaffCredential = defineEntity({
  name: 'StaffCredential',
  tableName: 'core_staff_credential',
  properties: {
    tenantId: p.uuid(),
    staffId: p.uuid().primary(),
    passwordHash: p.string(),
    updatedAt: p.datetime(),
  },
});
export type StaffCredential = InferEntity<typeof StaffCredential>;

/** A single-use link sent by e-mail: an invitation to set a first password, or a password reset. */
export const StaffTicket = defineEntity({
  name: 'StaffTicket',
  tableName: 'core_staff_ticket',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    staffId: p.uuid(),
    purpose: p.string().$type<'invite' | 'reset'>(),
    tokenHash: p.string(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type StaffTicket = InferEntity<typeof StaffTicket>;

export const coreEntities = [Tenant, AccessToken, OutboxEvent, Role, StaffMember, StaffCredential, StaffTicket];
