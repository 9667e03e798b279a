import type { CustomFieldValues } from '@qhatu/core';
import type { CustomerAddress } from '../entities/address.js';
import type { Customer } from '../entities/customer.js';
import type { CustomerSession } from '../services/accounts.js';
import { customerEvent } from '../services/customers.js';

/** The customer as the API shows it: the fields of its events, and its custom fields as the caller may see them (`CustomFields.present`). */
export const customerOut = (c: Customer, customFields: CustomFieldValues) => ({ ...customerEvent(c), custom_fields: customFields });

export function addressOut(a: CustomerAddress) {
  return {
    id: a.id,
    customer_id: a.customerId,
    first_name: a.firstName ?? null,
    last_name: a.lastName ?? null,
    company: a.company ?? null,
    address1: a.address1,
    address2: a.address2 ?? null,
    city: a.city,
    province: a.province ?? null,
    country_code: a.countryCode,
    zip: a.zip ?? null,
    phone: a.phone ?? null,
    is_default: a.isDefault,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

export function sessionOut(s: CustomerSession, customFields: CustomFieldValues) {
  return { token: s.token, expires_at: s.expiresAt.toISOString(), customer: customerOut(s.customer, customFields) };
}
