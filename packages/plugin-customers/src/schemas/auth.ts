import { LocaleTag, Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { Email, Password, PersonName } from './common.js';
import { CustomerOut } from './customer.js';

export const CustomerRegister = z
  .strictObject({
    email: Email,
    password: Password.optional().meta({
      description:
        "Required when the store signs shoppers in at once (registration instant or claim). With verify (the default) it is not kept: the password is the one sent with the account link, so that whoever registered someone else's address gets nothing",
    }),
    first_name: PersonName.nullable().optional(),
    last_name: PersonName.nullable().optional(),
    locale: LocaleTag.optional().meta({
      description:
        "The locale the registration's e-mail is written in and the customer keeps (one of the store's locales, 422 LOCALE_NOT_LISTED otherwise). Without it, the request's locale (`locale` parameter, market, Accept-Language); the customer keeps that one only when it is not the store's default",
    }),
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

export const RegistrationPending = z
  .object({
    status: z.literal('verification_sent').meta({ description: 'An e-mail went to the address; the same answer whether the store knows it or not' }),
    email: z.string().meta({ description: 'The address, as stored (trimmed, lower-case)' }),
  })
  .meta({ id: 'CustomerRegistrationPending' });

export const CustomerActivate = z
  .strictObject({
    token: z.string().min(1).max(200).meta({ description: 'The `token` parameter of the account link the e-mail carried' }),
    password: Password,
  })
  .meta({ id: 'CustomerActivate' });
export type CustomerActivate = z.output<typeof CustomerActivate>;
