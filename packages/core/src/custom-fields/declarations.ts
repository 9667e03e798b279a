/** What a custom field holds; each has its JSON form in answers and inputs. */
export type CustomFieldType = 'boolean' | 'string' | 'integer' | 'decimal' | 'datetime' | 'enum';

export const CUSTOM_FIELD_TYPES: readonly CustomFieldType[] = ['boolean', 'string', 'integer', 'decimal', 'datetime', 'enum'];

/** A custom field's value as stored and answered (a `datetime` is ISO 8601 text in UTC). */
export type CustomFieldValue = string | number | boolean | null;
export type CustomFieldValues = Record<string, CustomFieldValue>;

/**
 * One field a plugin (or the project) adds to an entity of another plugin. Its name is the key
 * it is declared under: lower-case letters, digits and single underscores, e.g. `gift_wrap`.
 */
export interface CustomFieldDefinition {
  type: CustomFieldType;
  /** What the field means: shown in OpenAPI and in the GraphQL schema. */
  description?: string;
  /** Whether null is a value (default true). A field that is not nullable needs a `default`. */
  nullable?: boolean;
  /** The value of a record that was not given one (records made before the field existed read it too). */
  default?: string | number | boolean;
  /** The values an `enum` field takes. */
  values?: readonly string[];
  /** The longest text a `string` field takes, in characters (default 255, at most 10000). */
  maxLength?: number;
  /** Kept in a tenant-led index (made by `qhatu migrate`), and lists of the entity filter by it. */
  indexed?: boolean;
  /** Storefront keys and customers see (and may set) it; otherwise only admin keys and staff do. */
  public?: boolean;
}

/** The entities core's plugins open to custom fields; a plugin may open its own (`customFieldHosts`). */
export type KnownCustomFieldEntity = 'order' | 'product' | 'variant' | 'customer' | 'cart';

/** Fields by entity (`order`, `product`, `variant`, `customer`, `cart`, or another plugin's own), then by name. */
export type CustomFieldDeclarations = { [E in KnownCustomFieldEntity | (string & {})]?: Record<string, CustomFieldDefinition> };

/** An entity of a plugin that takes custom fields: kept in a `custom_fields jsonb` column of its table. */
export interface CustomFieldHost {
  /** The name declarations use, e.g. `order`. */
  entity: string;
  /** Its table, which has `tenant_id` and a `custom_fields jsonb NOT NULL DEFAULT '{}'` column. */
  table: string;
  /** The GraphQL type that answers it, which gets a `customFields` field (when fields are declared). */
  graphqlType?: string;
  /**
   * The entity a record of this one becomes (a cart its order): fields declared on both under the
   * same name are carried over when it is made, and must take the same values.
   */
  carriesTo?: string;
}
