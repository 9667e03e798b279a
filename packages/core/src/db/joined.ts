import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';

/**
 * Two entities read in one statement (a join) and handed back as managed entities, as `em.find`
 * would give them: `select ${joinedColumns(em, Cart, "c", "cart")}, ${joinedColumns(em, CartItem, "i", "item")}
 * from ... join ...`, then `joinedEntity(em, Cart, row, 'cart')` for each side of each row. The columns
 * keep PostgreSQL's own types (no JSON round trip), so dates, bigints and json map as the ORM maps them.
 */
export function joinedColumns<T extends object>(em: EntityManager, entity: EntityName<T>, alias: string, prefix: string): string {
  return fieldsOf(em, entity)
    .map((field) => `"${alias}"."${field}" as "${prefix}.${field}"`)
    .join(', ');
}

/** The entity whose columns `joinedColumns(.., prefix)` put in `row`; null when its primary key is null (the empty side of an outer join). */
export function joinedEntity<T extends object>(em: EntityManager, entity: EntityName<T>, row: Record<string, unknown>, prefix: string): T | null {
  const meta = em.getMetadata().get(entity);
  const own: Record<string, unknown> = {};
  for (const field of fieldsOf(em, entity)) own[field] = row[`${prefix}.${field}`];
  if (meta.primaryKeys.some((key) => own[meta.properties[key].fieldNames[0]] == null)) return null;
  return em.map(entity, own as never) as T;
}

// The column names of each entity, worked out once per entity's metadata.
const fields = new WeakMap<object, string[]>();

function fieldsOf<T extends object>(em: EntityManager, entity: EntityName<T>): string[] {
  const meta = em.getMetadata().get(entity);
  let known = fields.get(meta);
  if (!known) {
    known = meta.props.filter((prop) => prop.persist !== false && prop.fieldNames?.length).flatMap((prop) => prop.fieldNames);
    fields.set(meta, known);
  }
  return known;
}
