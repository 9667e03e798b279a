export {
  CUSTOM_FIELD_TYPES,
  type CustomFieldDeclarations,
  type CustomFieldDefinition,
  type CustomFieldHost,
  type CustomFieldType,
  type CustomFieldValue,
  type CustomFieldValues,
  type KnownCustomFieldEntity,
} from './declarations.js';
export {
  audienceOf,
  CUSTOM_FIELDS_FILTER,
  CustomFields,
  type CustomFieldAudience,
  type CustomFieldFilter,
  type CustomFieldInputOptions,
  type DeclaredField,
} from './registry.js';
export { customFieldsIn, customFieldsOut, documentCustomFields } from './openapi.js';
export { customFieldsGraphQL } from './graphql.js';
export { syncCustomFieldIndexes } from './indexes.js';
