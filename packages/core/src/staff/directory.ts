import { inject, injectable } from 'tsyringe';
import { Database } from '../db/database.js';
import { StaffMember } from '../db/entities.js';
import { AppError } from '../errors.js';
import { isUuid } from '../http/schemas.js';

/**
 * For other plugins: whether staff ids (an `owner_id`, an `assigned_to`) name members of the
 * caller's store. A member of another store is unknown here, like any id that names nothing.
 * Inside an open `Database.tenant` transaction it reads in that transaction.
 */
@injectable()
export class StaffDirectory {
  constructor(@inject(Database) private readonly db: Database) {}

  /** The ids among `ids` that are staff members of the current store. */
  async existing(ids: readonly string[]): Promise<Set<string>> {
    const wanted = [...new Set(ids)].filter(isUuid);
    if (!wanted.length) return new Set();
    const found = await this.db.tenant(({ em }) => em.find(StaffMember, { id: { $in: wanted } }, { fields: ['id'] }));
    return new Set(found.map((m) => m.id));
  }

  /**
   * 422 STAFF_NOT_FOUND unless `id` is a staff member of the current store. `path` names the
   * field in the error's details, e.g. `body.owner_id`.
   */
  async assertMember(id: string, path = 'body.staff_id'): Promise<void> {
    if (!(await this.existing([id])).has(id)) {
      throw AppError.unprocessable('STAFF_NOT_FOUND', `Staff member ${id} does not exist in this store`, [{ path, message: 'is not a staff member of this store' }]);
    }
  }
}
