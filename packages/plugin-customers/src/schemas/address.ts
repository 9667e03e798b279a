import { Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { CountryCode, PersonName, Phone } from './common.js';

const Line = z.string().trim().max(255);

export const CustomerAddressCreate = z
  .strictObject({
    first_name: PersonName.nullable().optional(),
    last_name: PersonName.nullable().optional(),
    company: Line.nullable().optional(),
    address1: Line.min(1),
    address2: Line.nullable().optional(),
    city: z.string().trim().min(1).max(100),
    province: z.string().trim().max(100).nullable().optional(),
    country_code: CountryCode,
    zip: z.string().trim().max(20).nullable().optional(),
    phone: Phone.nullable().optional(),
    is_default: z.boolean().optional().meta({
      description:
        'true makes it the default (the previous default is unset); the first address is the default whatever is sent. ' +
        'Absent or false leaves the default where it is; false on the default itself is a 409 (make another one the default)',
    }),
  })
  .meta({ id: 'CustomerAddressCreate', description: 'Also the body of PUT, which replaces the address (absent fields become null)' });
export type CustomerAddressCreate = z.output<typeof CustomerAddressCreate>;

export const CustomerAddressOut = z
  .object({
    id: z.uuid(),
    customer_id: z.uuid(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    company: z.string().nullable(),
    address1: z.string(),
    address2: z.string().nullable(),
    city: z.string(),
    province: z.string().nullable(),
    country_code: z.string(),
    zip: z.string().nullable(),
    phone: z.string().nullable(),
    is_default: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'CustomerAddress' });

export const AddressParams = z.object({ id: Uuid, address_id: Uuid });
