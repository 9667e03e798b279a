import { AppError, StaffDirectory, TenantContext, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Account } from '../entities/account.js';
import { Contact } from '../entities/contact.js';
import { Deal } from '../entities/deal.js';
import { Lead } from '../entities/lead.js';
import type { EntityKind } from '../entities/task.js';

const ENTITIES = { contact: Contact, account: Account, deal: Deal, lead: Lead } as const;

/** The staff member calling, when the caller is one (an API key is nobody's). */
export function callingStaffMember(): string | null {
  const principal = TenantContext.principal();
  return principal?.kind === 'staff' ? (principal.subjectId ?? principal.id) : null;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Checks the ids a request names, inside the caller's store: an id of another store is unknown,
 * like an id that names nothing, and answers 422 with the field in the details.
 */
@injectable()
export class CrmReferences {
  constructor(@inject(StaffDirectory) private readonly staff: StaffDirectory) {}

  /** `owner_id` / `assigned_to`: sent (checked), sent null, or absent (the calling staff member). */
  async staffMember(value: string | null | undefined, field: string, defaultToCaller: boolean): Promise<string | null | undefined> {
    if (value === undefined) return defaultToCaller ? callingStaffMember() : undefined;
    if (value !== null) await this.staff.assertMember(value, `body.${field}`);
    return value;
  }

  async entity(tx: Tx, kind: EntityKind, id: string, field = 'entity_id'): Promise<void> {
    const found = await tx.em.count(ENTITIES[kind] as typeof Contact, { id });
    if (!found) {
      throw AppError.unprocessable('ENTITY_NOT_FOUND', `No ${kind} ${id} exists in this store`, [{ path: `body.${field}`, message: `is not a ${kind} of this store` }]);
    }
  }

  async account(tx: Tx, id: string | null | undefined, field = 'account_id'): Promise<void> {
    if (!id) return;
    if (!(await tx.em.count(Account, { id }))) {
      throw AppError.unprocessable('ACCOUNT_NOT_FOUND', `Account ${id} does not exist in this store`, [{ path: `body.${field}`, message: 'is not an account of this store' }]);
    }
  }

  async contact(tx: Tx, id: string | null | undefined, field = 'contact_id'): Promise<void> {
    if (!id) return;
    if (!(await tx.em.count(Contact, { id }))) {
      throw AppError.unprocessable('CONTACT_NOT_FOUND', `Contact ${id} does not exist in this store`, [{ path: `body.${field}`, message: 'is not a contact of this store' }]);
    }
  }
}

/**
 * Copies the fields a PATCH (or a create) sent onto an entity: `job_title` → `jobTitle`;
 * timestamps given in `dates` become Dates. Absent fields are left alone.
 */
export function assignFields<E extends object>(entity: E, body: Record<string, unknown>, dates: readonly string[] = []): E {
  const target = entity as Record<string, unknown>;
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    const property = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    target[property] = dates.includes(key) && typeof value === 'string' ? new Date(value) : value;
  }
  return entity;
}

export { snake };
