import { CurrencyCode, listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { METHOD_KINDS } from '../entities/method.js';

const Name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const Kind = z.enum(METHOD_KINDS, { message: `must be one of: ${METHOD_KINDS.join(', ')}` });
const Instructions = z
  .string()
  .max(2000, 'must be at most 2000 characters')
  .meta({ description: 'Plain text shown to the shopper who picks the method: the account number, the wallet phone, what the courier takes' });
const Currencies = z
  .array(CurrencyCode)
  .min(1, 'must name at least one currency')
  .max(20, 'must name at most 20 currencies')
  .refine((codes) => new Set(codes).size === codes.length, { message: 'must not repeat a currency' });
const Position = z.number().int('must be a whole number').min(0, 'must be at least 0').max(10000, 'must be at most 10000');

export const MethodInput = z
  .strictObject({
    name: Name,
    kind: Kind,
    instructions: Instructions.default(''),
    currencies: Currencies.meta({ description: 'The ISO 4217 currencies the method takes' }),
    enabled: z.boolean().default(true),
    position: Position.default(0).meta({ description: 'Where the storefront lists it, lowest first' }),
  })
  .meta({ id: 'OfflinePaymentMethodCreate' });
export type MethodInput = z.infer<typeof MethodInput>;

export const MethodPatch = z
  .strictObject({
    name: Name.optional(),
    kind: Kind.optional(),
    instructions: Instructions.optional(),
    currencies: Currencies.optional(),
    enabled: z.boolean().optional(),
    position: Position.optional(),
  })
  .meta({ id: 'OfflinePaymentMethodUpdate' });
export type MethodPatch = z.infer<typeof MethodPatch>;

export const MethodOut = z
  .object({
    id: Uuid,
    name: z.string(),
    kind: z.enum(METHOD_KINDS),
    instructions: z.string(),
    currencies: z.array(z.string()),
    enabled: z.boolean(),
    position: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'OfflinePaymentMethod' });

const BooleanText = z.enum(['true', 'false'], { message: 'must be true or false' }).transform((v) => v === 'true');

export const MethodListQuery = listQuery({
  filters: { enabled: BooleanText, kind: Kind, currency: CurrencyCode },
  sorts: ['position', 'name', 'created_at'],
  defaultSort: 'position',
});

export const AvailableQuery = z.strictObject({ currency: CurrencyCode.meta({ description: 'The currency of the order to pay' }) });
