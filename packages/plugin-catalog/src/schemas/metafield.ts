import { IdParams, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { METAFIELD_TYPES } from '../entities/product-metafield.js';

const Name = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, - and _');

/** Checked against value_type by the service; the stored and returned form is a string. */
const Value = z
  .union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
    error: 'must be a string (or, for typed values, a number, boolean, object or array)',
  })
  .meta({ description: 'Must match value_type; returned as a string (json values as their JSON text)' });

export const MetafieldCreate = z
  .strictObject({
    namespace: Name,
    key: Name,
    value: Value,
    value_type: z.enum(METAFIELD_TYPES),
    variant_id: Uuid.nullable().optional().meta({ description: 'A variant of this product; null: the product itself' }),
  })
  .meta({ id: 'ProductMetafieldCreate' });
export type MetafieldCreate = z.output<typeof MetafieldCreate>;

export const MetafieldPatch = z
  .strictObject({ value: Value })
  .meta({ id: 'ProductMetafieldPatch', description: 'Only the value changes; namespace, key, value_type and variant_id are fixed' });
export type MetafieldPatch = z.output<typeof MetafieldPatch>;

export const MetafieldOut = z
  .object({
    id: z.uuid(),
    product_id: z.uuid(),
    variant_id: z.uuid().nullable(),
    namespace: z.string(),
    key: z.string(),
    value: z.string(),
    value_type: z.enum(METAFIELD_TYPES),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'ProductMetafield' });

export const MetafieldParams = IdParams.extend({ metafield_id: Uuid });
