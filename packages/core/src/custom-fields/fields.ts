import { z, type ZodType } from 'zod';
import { PluginLoadError, PROJECT_PLUGIN } from '../plugin.js';
import { CUSTOM_FIELD_TYPES, type CustomFieldDefinition, type CustomFieldType, type CustomFieldValue } from './declarations.js';

/** A declared field, checked, with its owner and its GraphQL name. */
export interface DeclaredField {
  entity: string;
  name: string;
  /** The plugin that declared it (`project` for the project's own). */
  plugin: string;
  type: CustomFieldType;
  description?: string;
  nullable: boolean;
  default?: string | number | boolean;
  values?: readonly string[];
  maxLength?: number;
  indexed: boolean;
  public: boolean;
  /** `gift_wrap` → `giftWrap`. */
  graphqlName: string;
}

export const NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
export const MAX_NAME = 48;
export const TABLE = /^[a-z_][a-z0-9_]*$/;
export const DEFAULT_MAX_LENGTH = 255;
const MAX_MAX_LENGTH = 10_000;
const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;
const DEFINITION_KEYS = new Set(['type', 'description', 'nullable', 'default', 'values', 'maxLength', 'indexed', 'public']);

/** How messages name who declared a field. */
export const label = (plugin: string) => (plugin === PROJECT_PLUGIN ? 'the project (qhatu.config.ts)' : `plugin "${plugin}"`);
export const graphqlNameOf = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The zod schema of one non-null value of `field`, as inputs take it (a `datetime` comes out as UTC ISO text). */
export function valueSchema(field: Pick<DeclaredField, 'type' | 'values' | 'maxLength'>): ZodType {
  switch (field.type) {
    case 'boolean':
      return z.boolean();
    case 'string':
      return z.string().max(field.maxLength ?? DEFAULT_MAX_LENGTH);
    case 'integer':
      return z.number().int('must be a whole number').min(INT_MIN).max(INT_MAX);
    case 'decimal':
      return z.number();
    case 'datetime':
      return z.iso
        .datetime({ offset: true, message: 'must be an ISO 8601 date and time, e.g. 2025-01-31T12:00:00Z' })
        .transform((s) => new Date(s).toISOString());
    case 'enum':
      return z.enum(field.values as [string, ...string[]]);
  }
}

/** A value of `field` as documents show it (a `datetime` is ISO 8601 text). */
export function documentedValueSchema(field: DeclaredField): ZodType {
  return field.type === 'datetime' ? z.iso.datetime({ offset: true }) : valueSchema(field);
}

/** The same value as a list's query string carries it (text). */
export function queryValueSchema(field: DeclaredField): ZodType {
  switch (field.type) {
    case 'boolean':
      return z.enum(['true', 'false']).transform((v) => v === 'true');
    case 'integer':
      return z.string().regex(/^-?\d{1,10}$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(INT_MIN).max(INT_MAX));
    case 'decimal':
      return z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a number, e.g. 12.5').transform(Number);
    case 'string':
      return z.string().min(1).max(field.maxLength ?? DEFAULT_MAX_LENGTH);
    default:
      return valueSchema(field);
  }
}

/** Whether a stored value is one the field takes now (a definition may have changed since it was written). */
export function fits(field: DeclaredField, value: unknown): value is CustomFieldValue {
  if (value === null) return field.nullable;
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string' && value.length <= (field.maxLength ?? DEFAULT_MAX_LENGTH);
    case 'integer':
      return Number.isInteger(value) && (value as number) >= INT_MIN && (value as number) <= INT_MAX;
    case 'decimal':
      return typeof value === 'number' && Number.isFinite(value);
    case 'datetime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    case 'enum':
      return typeof value === 'string' && (field.values ?? []).includes(value);
  }
}

/** A definition checked as declared (the start stops on the first fault) and completed. */
export function checkDefinition(where: string, d: CustomFieldDefinition): Omit<DeclaredField, 'entity' | 'name' | 'plugin' | 'graphqlName'> {
  if (!d || typeof d !== 'object') throw new PluginLoadError(`${where}: a definition is an object such as { type: 'boolean' }`);
  const unknown = Object.keys(d).filter((k) => !DEFINITION_KEYS.has(k));
  if (unknown.length) throw new PluginLoadError(`${where}: unknown option ${unknown.join(', ')} (options: ${[...DEFINITION_KEYS].join(', ')})`);
  if (!CUSTOM_FIELD_TYPES.includes(d.type)) throw new PluginLoadError(`${where}: type must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`);
  for (const flag of ['nullable', 'indexed', 'public'] as const) {
    if (d[flag] !== undefined && typeof d[flag] !== 'boolean') throw new PluginLoadError(`${where}: ${flag} must be true or false`);
  }
  if (d.description !== undefined && (typeof d.description !== 'string' || d.description.length > 500)) {
    throw new PluginLoadError(`${where}: description must be text of at most 500 characters`);
  }
  if (d.type === 'enum') {
    const values = d.values;
    if (!Array.isArray(values) || values.length === 0 || values.some((v) => typeof v !== 'string' || v.length === 0 || v.length > 255)) {
      throw new PluginLoadError(`${where}: an enum field lists its values, e.g. values: ['small', 'large']`);
    }
    if (new Set(values).size !== values.length) throw new PluginLoadError(`${where}: its values repeat one`);
  } else if (d.values !== undefined) {
    throw new PluginLoadError(`${where}: values is for enum fields only`);
  }
  if (d.maxLength !== undefined) {
    if (d.type !== 'string') throw new PluginLoadError(`${where}: maxLength is for string fields only`);
    if (!Number.isInteger(d.maxLength) || d.maxLength < 1 || d.maxLength > MAX_MAX_LENGTH) {
      throw new PluginLoadError(`${where}: maxLength must be a whole number from 1 to ${MAX_MAX_LENGTH}`);
    }
  }
  const field = {
    type: d.type,
    ...(d.description !== undefined ? { description: d.description } : {}),
    nullable: d.nullable ?? true,
    ...(d.values ? { values: [...d.values] } : {}),
    ...(d.type === 'string' ? { maxLength: d.maxLength ?? DEFAULT_MAX_LENGTH } : {}),
    indexed: d.indexed ?? false,
    public: d.public ?? false,
  };
  if (d.default !== undefined) {
    const parsed = valueSchema(field).safeParse(d.default);
    if (!parsed.success) throw new PluginLoadError(`${where}: its default ${JSON.stringify(d.default)} is not a ${d.type} value it takes (${parsed.error.issues[0].message})`);
    return { ...field, default: parsed.data as string | number | boolean };
  }
  if (!field.nullable) throw new PluginLoadError(`${where}: a field that is not nullable needs a default`);
  return field;
}
