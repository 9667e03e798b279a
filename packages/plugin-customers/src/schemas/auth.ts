import { Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { Email, Password, PersonName } from './common.js';
import { CustomerOut } from './customer.js';

export const CustomerRegister = z
  .strictObject({
    email: Email,
    password: Password,
    first_name: PersonName.nullable().optional(),
    last_name: PersonName.nullable().optional(),
  })
  .meta({ id: 'CustomerRegister' });
export type CustomerRegister = z.output<typeof CustomerRegister>;

export const CustomerLogin = z
  .strictObject({
    email: Email,
    // Any length is checked against the hash (a rule change must not lock anyone out), up to the cap.
    password: z.string().min(1).max(200),
  })
  .meta({ id: 'CustomerLogin' });
export type CustomerLogin = z.output<typeof CustomerLogin>;

export const CustomerSession = z
  .object({
    token: z.string().meta({ description: 'A customer bearer token; shown only here' }),
    expires_at: Timestamp,
    customer: CustomerOut,
  })
  .meta({ id: 'CustomerSession' });
