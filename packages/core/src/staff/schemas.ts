import { z } from 'zod';
import { listQuery } from '../http/pagination.js';
import { Timestamp } from '../http/schemas.js';
import { STAFF_STATUSES } from '../db/entities.js';

/** Stored trimmed and lower-case: one staff member per e-mail and store, whatever the case. */
export const StaffEmail = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: 'must be an e-mail address' }))
  .meta({ example: 'rosa.quispe@example.com' });

export const StaffPassword = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(200, 'must be at most 200 characters')
  .meta({ description: '8 to 200 characters' });

/** A first or last name; empty means none. */
const Name = z.string().trim().max(100);
const RoleId = z.uuid({ message: 'must be a UUID' });

export const StaffOut = z
  .object({
    id: z.uuid(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    role_id: z.uuid(),
    status: z.enum(STAFF_STATUSES),
    last_login_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'StaffMember' });

export const StaffMe = StaffOut.extend({
  role: z.object({ id: z.uuid(), name: z.string(), built_in: z.boolean() }),
  permissions: z.array(z.string()).meta({ description: 'Every permission the member holds' }),
}).meta({ id: 'StaffMe' });

export const StaffCreate = z
  .strictObject({
    email: StaffEmail,
    first_name: Name.default(''),
    last_name: Name.default(''),
    role_id: RoleId,
    password: StaffPassword.optional().meta({
      description: 'Without it, the member is e-mailed a single-use link to set one (an invitation)',
    }),
  })
  .meta({ id: 'StaffCreate' });
export type StaffCreate = z.output<typeof StaffCreate>;

export const StaffPatch = z
  .strictObject({
    email: StaffEmail.optional(),
    first_name: Name.optional(),
    last_name: Name.optional(),
    role_id: RoleId.optional(),
    status: z.enum(STAFF_STATUSES).optional().meta({ description: '`disabled` ends the member’s sessions at once' }),
  })
  .meta({ id: 'StaffPatch' });
export type StaffPatch = z.output<typeof StaffPatch>;

export const StaffListQuery = listQuery({
  filters: { status: z.enum(STAFF_STATUSES), role_id: RoleId },
  sorts: ['created_at', 'email'],
  defaultSort: 'created_at',
  search: true,
});

export const StaffLogin = z
  .strictObject({
    email: StaffEmail,
    // Any length is checked against the hash (a rule change must not lock anyone out), up to the cap.
    password: z.string().min(1).max(200),
  })
  .meta({ id: 'StaffLogin' });
export type StaffLogin = z.output<typeof StaffLogin>;

export const StaffSession = z
  .object({
    token: z.string().meta({ description: 'A staff bearer token; shown only here' }),
    expires_at: Timestamp,
    staff: StaffOut,
  })
  .meta({ id: 'StaffSession' });

export const PasswordResetRequest = z.strictObject({ email: StaffEmail }).meta({ id: 'StaffPasswordResetRequest' });

export const PasswordSet = z
  .strictObject({
    token: z.string().min(1).max(200).meta({ description: 'The token of the invitation or reset link' }),
    password: StaffPassword,
  })
  .meta({ id: 'StaffPasswordSet' });

export const PasswordChange = z
  .strictObject({
    current_password: z.string().min(1).max(200),
    password: StaffPassword,
  })
  .meta({ id: 'StaffPasswordChange' });

const PermissionList = z
  .array(z.string().min(1).max(100))
  .max(500)
  .overwrite((names) => [...new Set(names)])
  .meta({ description: 'Permission names (GET /permissions); duplicates are dropped' });

export const RoleCreate = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(100),
    permissions: PermissionList,
  })
  .meta({ id: 'RoleCreate' });
export type RoleCreate = z.output<typeof RoleCreate>;

export const RolePatch = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(100).optional(),
    permissions: PermissionList.optional(),
  })
  .meta({ id: 'RolePatch' });
export type RolePatch = z.output<typeof RolePatch>;

export const RoleOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    built_in: z.boolean().meta({ description: '`owner` and `admin`: every permission; they cannot be changed or deleted' }),
    permissions: z.array(z.string()),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Role' });

export const RoleListQuery = listQuery({ sorts: ['created_at'], defaultSort: 'created_at' });

export const PermissionOut = z.object({ name: z.string(), description: z.string() }).meta({ id: 'Permission' });
