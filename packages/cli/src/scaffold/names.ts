import { z } from 'zod';

/** What `plugin new <name>` accepts: core's plugin-name rule, kept short enough for SQL identifiers. */
export const PluginName = z
  .string()
  .max(40, 'must be at most 40 characters (it prefixes SQL table and index names)')
  .regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single dashes, starting with a letter')
  .refine((name) => name !== 'core', 'is taken by Qhatu core')
  .refine((name) => !name.startsWith('plugin-'), 'must not start with "plugin-": the folder and package get that prefix already');

/** Every name the scaffold derives from the plugin's name, in one place. */
export interface PluginNames {
  /** `gift-cards`: the plugin's name, its route segment and its event prefix. */
  name: string;
  /** `plugin-gift-cards` */
  folder: string;
  /** `@qhatu/plugin-gift-cards` */
  packageName: string;
  /** `gift_cards`: prefix of its tables and indexes. */
  sql: string;
  /** `GiftCards` */
  pascal: string;
  /** `giftCards` */
  camel: string;
  /** `gift_cards_item` */
  table: string;
  /** `GiftCardsItem`: the entity. */
  entity: string;
  /** `GiftCardsItems`: the service. */
  service: string;
  /** `gift-cards-item`: file name of the entity, schemas and service. */
  file: string;
}

export function namesOf(name: string): PluginNames {
  const pascal = name
    .split('-')
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
  const sql = name.replaceAll('-', '_');
  return {
    name,
    folder: `plugin-${name}`,
    packageName: `@qhatu/plugin-${name}`,
    sql,
    pascal,
    camel: pascal[0].toLowerCase() + pascal.slice(1),
    table: `${sql}_item`,
    entity: `${pascal}Item`,
    service: `${pascal}Items`,
    file: `${name}-item`,
  };
}
