import { listQuery, Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { LOCATION_TYPES } from '../entities/warehouse.js';
import { BooleanText, StockLevelOut } from './stock.js';

export const CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

const Code = z
  .string()
  .trim()
  .regex(CODE_PATTERN, 'must be 1 to 32 letters, digits, - or _, starting with a letter or digit')
  .transform((code) => code.toUpperCase())
  .meta({ description: 'Unique in the store; stored in upper case', example: 'LIM-01' });

const Phone = z
  .string()
  .trim()
  .min(3)
  .max(32)
  .regex(/^\+?[0-9][0-9 ()./-]*$/, 'must be a phone number: digits, spaces and + ( ) - . /');

const Line = z.string().trim().max(255).nullable().optional();

const Address = z.strictObject({
  line1: Line,
  city: Line,
  state: Line,
  postal_code: z.string().trim().max(32).nullable().optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in capitals, e.g. PE')
    .nullable()
    .optional(),
});

const RANGE = /^([01]\d|2[0-3]):([0-5]\d)-(?:([01]\d|2[0-3]):([0-5]\d)|(24):(00))$/;

/** `HH:MM-HH:MM` with real times (closing may be 24:00) and opening before closing, or `closed`. */
export function isDayHours(value: string): boolean {
  if (value === 'closed') return true;
  const m = RANGE.exec(value);
  if (!m) return false;
  const open = Number(m[1]) * 60 + Number(m[2]);
  const close = Number(m[3] ?? m[5]) * 60 + Number(m[4] ?? m[6]);
  return open < close;
}

const DayHours = z
  .string()
  .refine(isDayHours, 'must be "HH:MM-HH:MM" with real times, opening before closing (closing may be 24:00), or "closed"')
  .meta({ example: '09:00-18:00' });

const OperatingHours = z
  .strictObject({
    mon: DayHours.optional(),
    tue: DayHours.optional(),
    wed: DayHours.optional(),
    thu: DayHours.optional(),
    fri: DayHours.optional(),
    sat: DayHours.optional(),
    sun: DayHours.optional(),
  })
  .meta({ description: 'Day (mon … sun) to "HH:MM-HH:MM" or "closed"; a day left out has no published hours' });

export const WarehouseCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    code: Code,
    location_type: z.enum(LOCATION_TYPES).optional().meta({ description: 'Defaults to warehouse' }),
    address: Address.nullable().optional(),
    phone: Phone.nullable().optional(),
    email: z.email({ message: 'must be an e-mail address' }).max(254).nullable().optional(),
    latitude: z.number().min(-90).max(90).nullable().optional(),
    longitude: z.number().min(-180).max(180).nullable().optional(),
    operating_hours: OperatingHours.nullable().optional(),
    fulfills_online_orders: z.boolean().optional().meta({ description: 'Defaults to true' }),
    allows_pickup: z.boolean().optional().meta({ description: 'Defaults to false' }),
    is_active: z.boolean().optional().meta({ description: 'Defaults to true; the default warehouse must be active' }),
    is_default: z
      .boolean()
      .optional()
      .meta({ description: 'true makes this the default (the old one stops being it); the first warehouse is always the default; absent on PUT keeps the current value' }),
  })
  .refine((w) => (w.latitude == null) === (w.longitude == null), {
    message: 'give latitude and longitude together',
    path: ['longitude'],
  })
  .meta({ id: 'WarehouseCreate', description: 'Also the body of PUT, which replaces the warehouse' });
export type WarehouseCreate = z.output<typeof WarehouseCreate>;

const AddressOut = z.object({
  line1: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  postal_code: z.string().nullable(),
  country: z.string().nullable(),
});

export const WarehouseOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    code: z.string(),
    location_type: z.enum(LOCATION_TYPES),
    address: AddressOut.nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    operating_hours: z.record(z.string(), z.string()),
    fulfills_online_orders: z.boolean(),
    allows_pickup: z.boolean(),
    is_active: z.boolean(),
    is_default: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Warehouse' });

export const WarehouseDetailOut = WarehouseOut.extend({
  stock: z.array(StockLevelOut).meta({ description: 'Every variant the warehouse has a stock record of' }),
}).meta({ id: 'WarehouseWithStock' });

export const WarehouseListQuery = listQuery({
  sorts: ['created_at', 'name', 'code'],
  defaultSort: 'created_at',
  search: true,
  filters: {
    is_active: BooleanText,
    is_default: BooleanText,
    allows_pickup: BooleanText,
    fulfills_online_orders: BooleanText,
    location_type: z.enum(LOCATION_TYPES),
  },
});
export type WarehouseListQuery = z.output<typeof WarehouseListQuery>;
