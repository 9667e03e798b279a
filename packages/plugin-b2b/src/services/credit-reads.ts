import { Database } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { B2BCustomer } from '../entities/b2b-customer.js';
import { b2bCustomerNotFound } from './b2b-customers.js';
import { creditOf, type CreditState } from './credit.js';

/** A company's credit now: its limit, its open balance on account, what is left. */
@injectable()
export class Credit {
  constructor(@inject(Database) private readonly db: Database) {}

  async of(b2bCustomerId: string): Promise<CreditState> {
    return this.db.tenant(async (tx) => {
      const customer = await tx.em.findOne(B2BCustomer, { id: b2bCustomerId });
      if (!customer) throw b2bCustomerNotFound();
      return creditOf(tx, customer);
    });
  }
}
