import { z, type ZodType } from 'zod';
import type { CustomFieldValues } from './declarations.js';
import { documentedValueSchema } from './fields.js';
import type { CustomFields } from './registry.js';

/**
 * The app whose custom fields the OpenAPI document shows. Schema components are process-wide (zod's
 * global registry holds every plugin's), so the document shows the fields of the app built last in
 * the process: a store's own process runs one app. Requests are checked by each app's own fields.
 */
let documented: CustomFields | undefined;

export function documentCustomFields(fields: CustomFields): void {
  documented = fields;
}

const pascal = (entity: string) => entity.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
const outputs = new Map<string, ZodType<CustomFieldValues>>();
const inputs = new Map<string, ZodType<Record<string, unknown>>>();

/** The OpenAPI shape of an entity's custom fields, from the documented app's declarations. */
function jsonSchema(entity: string, io: 'input' | 'output'): Record<string, unknown> {
  const shape: Record<string, ZodType> = {};
  for (const field of documented?.fields(entity) ?? []) {
    let schema: ZodType = documentedValueSchema(field);
    if (field.nullable) schema = schema.nullable();
    const notes = [field.description, field.public ? undefined : 'Admin keys and staff only: storefront keys and customers neither see nor set it.'];
    if (field.default !== undefined) notes.push(`Default: ${JSON.stringify(field.default)}.`);
    schema = schema.meta({ description: notes.filter(Boolean).join(' ') });
    // Answers always hold the public fields; inputs send only the fields they change.
    shape[field.name] = io === 'output' && field.public ? schema : schema.optional();
  }
  const { $schema: _, ...json } = z.toJSONSchema(z.strictObject(shape), { target: 'draft-2020-12', io }) as Record<string, unknown>;
  return json;
}

/** A schema that checks nothing at run time (each app checks its own fields) and documents the declared ones. */
function documentedSchema<T extends ZodType>(schema: T, id: string, entity: string, io: 'input' | 'output', description: string): T {
  // Registered without `.meta()`: a schema of its own (no parent) whose JSON Schema is written here.
  z.globalRegistry.add(schema, { id, description });
  (schema._zod as { toJSONSchema?: () => unknown }).toJSONSchema = () => jsonSchema(entity, io);
  return schema;
}

/** The `custom_fields` of an entity's answers: component `<Entity>CustomFields`. */
export function customFieldsOut(entity: string): ZodType<CustomFieldValues> {
  let schema = outputs.get(entity);
  if (!schema) {
    schema = documentedSchema(
      z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
      `${pascal(entity)}CustomFields`,
      entity,
      'output',
      `The ${entity}'s custom fields, declared by the store's plugins and its qhatu.config.ts; storefront keys and customers see the public ones.`,
    );
    outputs.set(entity, schema);
  }
  return schema;
}

/** The `custom_fields` of an entity's inputs (the fields to set): component `<Entity>CustomFieldValues`. */
export function customFieldsIn(entity: string): ZodType<Record<string, unknown>> {
  let schema = inputs.get(entity);
  if (!schema) {
    schema = documentedSchema(
      z.record(z.string(), z.unknown()),
      `${pascal(entity)}CustomFieldValues`,
      entity,
      'input',
      `Custom fields of the ${entity} to set (only those sent change; null clears a nullable one). An unknown field or a value of the wrong type is a 400 naming it.`,
    );
    inputs.set(entity, schema);
  }
  return schema;
}
