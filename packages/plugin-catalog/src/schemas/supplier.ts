import { listQuery, Timestamp } from '@qhatu/core';
import { z } from 'zod';

const Phone = z
  .string()
  .trim()
  .min(3)
  .max(32)
  .regex(/^\+?[0-9][0-9 ()./-]*$/, 'must be a phone number: digits, spaces and + ( ) - . /');

const Line = z.string().trim().max(255).nullable().optional();

const Metadata = z
  .record(z.string().min(1).max(64), z.unknown())
  .refine((m) => Object.keys(m).length <= 50, 'has more than 50 keys')
  .refine((m) => JSON.stringify(m).length <= 16_384, 'is larger than 16 KiB')
  .meta({ description: 'Free-form JSON object; replaced whole by PATCH' });

export const SupplierCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    code: z.string().trim().min(1).max(64).nullable().optional().meta({ description: 'Unique in the store' }),
    email: z.email({ message: 'must be an e-mail address' }).max(254).nullable().optional(),
    phone: Phone.nullable().optional(),
  })
  .meta({ id: 'SupplierCreate' });
export type SupplierCreate = z.output<typeof SupplierCreate>;

export const SupplierPatch = SupplierCreate.partial()
  .extend({
    address: z.strictObject({ street: Line, city: Line, country: Line }).nullable().optional(),
    metadata: Metadata.optional(),
  })
  .meta({ id: 'SupplierPatch' });
export type SupplierPatch = z.output<typeof SupplierPatch>;

export const SupplierOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    code: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    address: z.object({ street: z.string().nullable(), city: z.string().nullable(), country: z.string().nullable() }).nullable(),
    metadata: z.record(z.string(), z.unknown()),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Supplier' });

export const SupplierListQuery = listQuery({ sorts: ['created_at', 'name'], defaultSort: '-created_at' });
export type SupplierListQuery = z.output<typeof SupplierListQuery>;
