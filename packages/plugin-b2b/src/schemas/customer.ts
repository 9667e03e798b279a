import { listQuery, Money, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { B2B_CUSTOMER_STATUSES } from '../entities/b2b-customer.js';
import { rucProblem } from '../services/ruc.js';
import { Email, OptionalText, Text } from './common.js';

export const Ruc = z
  .string()
  .trim()
  .superRefine((s, ctx) => {
    const problem = rucProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ description: 'Peruvian RUC: 11 digits, prefix 10, 15, 17 or 20, modulo-11 check digit', example: '20100070970' });

const Phone = z.string().trim().regex(/^\+?[0-9 ()-]{6,30}$/, 'must be a phone number (digits, spaces, +, -, parentheses)');

export const B2BCustomerCreate = z
  .strictObject({
    company_name: Text(200),
    ruc: Ruc,
    email: Email,
    phone: Phone.nullish(),
    credit_limit: Money.default(0).meta({ description: 'Minor units of the store currency; 0 (the default) allows no orders on account' }),
    price_list_id: Uuid.nullish(),
    status: z.enum(B2B_CUSTOMER_STATUSES).default('active'),
  })
  .meta({ id: 'B2BCustomerCreate' });
export type B2BCustomerCreate = z.output<typeof B2BCustomerCreate>;

export const B2BCustomerPatch = z
  .strictObject({
    company_name: Text(200).optional(),
    ruc: Ruc.optional(),
    email: Email.optional(),
    phone: Phone.nullish(),
    credit_limit: Money.optional(),
    price_list_id: Uuid.nullish().meta({ description: 'null removes the list' }),
    status: z.enum(B2B_CUSTOMER_STATUSES).optional().meta({ description: 'active ↔ on_hold, active or on_hold → disabled, disabled → active' }),
  })
  .meta({ id: 'B2BCustomerPatch' });
export type B2BCustomerPatch = z.output<typeof B2BCustomerPatch>;

export const B2BCustomerOut = z
  .object({
    id: z.uuid(),
    company_name: z.string(),
    ruc: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    credit_limit: z.number().int(),
    price_list_id: z.uuid().nullable(),
    status: z.enum(B2B_CUSTOMER_STATUSES),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'B2BCustomer' });

export const B2BCustomerListQuery = listQuery({
  filters: { status: z.enum(B2B_CUSTOMER_STATUSES) },
  sorts: ['created_at'],
  defaultSort: '-created_at',
});
export type B2BCustomerListQuery = z.output<typeof B2BCustomerListQuery>;

export const BuyerCreate = z.strictObject({ customer_id: Uuid }).meta({ id: 'B2BBuyerCreate' });
export const BuyerOut = z
  .object({ b2b_customer_id: z.uuid(), customer_id: z.uuid(), email: z.string(), first_name: z.string().nullable(), last_name: z.string().nullable(), created_at: Timestamp })
  .meta({ id: 'B2BBuyer' });
export const BuyerParams = z.object({ id: Uuid, customer_id: Uuid });

export const CreditOut = z
  .object({
    b2b_customer_id: z.uuid(),
    currency: z.string(),
    credit_limit: z.number().int(),
    open_balance: z.number().int().meta({ description: 'What is owed of the orders on account not paid, cancelled or refunded (part payments and returned goods deducted)' }),
    available: z.number().int().meta({ description: 'credit_limit − open_balance, at least 0' }),
    open_orders: z.array(
      z.object({
        order_id: z.uuid(),
        quote_id: z.uuid(),
        total: z.number().int(),
        credited: z.number().int().meta({ description: 'The worth of goods the company sent back (returns refunded to the account)' }),
        due: z.number().int().meta({ description: 'The total less what returns credited and what was paid of it' }),
        placed_at: Timestamp,
      }),
    ),
  })
  .meta({ id: 'B2BCredit' });

export const Notes = OptionalText(5000);
