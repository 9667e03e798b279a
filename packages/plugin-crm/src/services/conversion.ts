import { AppError, Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Account } from '../entities/account.js';
import { Activity } from '../entities/activity.js';
import { Contact } from '../entities/contact.js';
import { Deal } from '../entities/deal.js';
import type { Lead } from '../entities/lead.js';
import { Task } from '../entities/task.js';
import { leadMachine } from '../machines/lead.js';
import type { ConvertInput } from '../schemas/lead.js';
import { Accounts } from './accounts.js';
import { Contacts } from './contacts.js';
import { Deals } from './deals.js';
import { leadEvent } from './events.js';
import { Leads } from './leads.js';

export interface Conversion {
  lead: Lead;
  contact: Contact;
  account: Account | null;
  deal: Deal | null;
}

/**
 * Converting a lead: in one transaction, with the lead's row locked, a contact (and an account
 * and a deal when asked), the lead's activities and open tasks moved to the contact, and the
 * lead `converted` with the ids. Concurrent conversions of one lead wait on the lock; all but the
 * first then find it converted and answer with the same records (idempotent, whatever they ask).
 */
@injectable()
export class LeadConversion {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Leads) private readonly leads: Leads,
    @inject(Contacts) private readonly contacts: Contacts,
    @inject(Accounts) private readonly accounts: Accounts,
    @inject(Deals) private readonly deals: Deals,
  ) {}

  async convert(id: string, input: ConvertInput): Promise<Conversion> {
    return this.db.tenant(async (tx) => {
      const lead = await this.leads.find(tx, id, true);
      if (lead.status === 'converted') return this.existing(tx, lead);
      if (!leadMachine.can(lead, 'convert')) {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot convert a lead that is ${lead.status}; qualify it first`, [
          { message: 'allowed from: new, working, mql, sql', from: lead.status, action: 'convert' },
        ]);
      }
      const accountName = input.account_name ?? lead.company ?? undefined;
      if (input.create_account && !accountName) {
        throw AppError.validation('An account needs a name: send account_name, or give the lead a company', [{ path: 'body.account_name', message: 'is required when the lead has no company' }]);
      }
      const account = input.create_account
        ? this.accounts.insert(tx, { ownerId: lead.ownerId ?? null, name: accountName!, domain: null, industry: null, phone: null, website: null, tags: [], metadata: {} })
        : null;
      // Each record is written before the next, which the database checks against it.
      await tx.em.flush();
      const contact = this.contacts.insert(tx, {
        accountId: account?.id ?? null,
        ownerId: lead.ownerId ?? null,
        leadId: lead.id,
        email: lead.email ?? null,
        firstName: lead.firstName ?? null,
        lastName: lead.lastName,
        phone: lead.phone ?? null,
        jobTitle: lead.jobTitle ?? null,
        tags: lead.tags,
        metadata: lead.metadata,
        lastActivityAt: lead.lastActivityAt ?? null,
      });
      await tx.em.flush();
      const deal = input.create_deal
        ? await this.deals.insert(
            tx,
            {
              title: input.deal_title ?? `${lead.company ?? [lead.firstName, lead.lastName].filter(Boolean).join(' ')} deal`,
              amount: input.deal_amount ?? 0,
              currency: input.deal_currency,
              pipelineId: input.deal_pipeline_id,
              contactId: contact.id,
              accountId: account?.id ?? null,
              ownerId: lead.ownerId ?? null,
              expectedClose: null,
              tags: [],
              metadata: {},
            },
            'deal_pipeline_id',
          )
        : null;
      await tx.em.flush();
      await tx.em.nativeUpdate(Activity, { entityKind: 'lead', entityId: lead.id }, { entityKind: 'contact', entityId: contact.id });
      await tx.em.nativeUpdate(Task, { entityKind: 'lead', entityId: lead.id, status: 'open' }, { entityKind: 'contact', entityId: contact.id, updatedAt: tx.now() });
      await leadMachine.apply(tx, lead, 'convert');
      lead.convertedAt = tx.now();
      lead.convertedContactId = contact.id;
      lead.convertedAccountId = account?.id ?? null;
      lead.convertedDealId = deal?.id ?? null;
      lead.updatedAt = tx.now();
      await tx.em.flush();
      tx.publish('crm.lead.converted', leadEvent(lead));
      return { lead, contact, account, deal };
    });
  }

  /** What the first conversion made; an account or deal deleted since is null, a deleted contact a 409. */
  private async existing(tx: Tx, lead: Lead): Promise<Conversion> {
    const contact = lead.convertedContactId ? await tx.em.findOne(Contact, { id: lead.convertedContactId }) : null;
    if (!contact) throw AppError.conflict('The lead was converted, and its contact has been deleted since', 'CONVERTED_CONTACT_DELETED');
    const account = lead.convertedAccountId ? await tx.em.findOne(Account, { id: lead.convertedAccountId }) : null;
    const deal = lead.convertedDealId ? await tx.em.findOne(Deal, { id: lead.convertedDealId }) : null;
    return { lead, contact, account, deal };
  }
}
