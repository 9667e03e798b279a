import { ReadCache, type DomainEvent, type EventBus, type QhatuGraphQLContext } from '@qhatu/core';

/** The topic of the catalog's answers in the read cache; the database trigger (0005) announces it too. */
export const CATALOG_TOPIC = 'catalog';

/** Events after which a store's catalog answers are stale: products (stock included), collections and translations. */
const STALE_AFTER = /^(products\.(product|collection|translation)\.|inventory\.stock\.)/;

/**
 * A committed catalog change drops the store's answers in this process before the writer answers
 * (and, with Redis, tells the other processes; with PostgreSQL the trigger's NOTIFY already did).
 */
export function dropOnCommit(bus: EventBus, cache: ReadCache): void {
  bus.onCommitted(async (events: DomainEvent[]) => {
    const stores = new Set(events.filter((e) => STALE_AFTER.test(e.type)).map((e) => e.tenantId));
    for (const store of stores) await cache.changed(store, CATALOG_TOPIC);
  });
}

/**
 * A storefront GraphQL answer (`product`, `products`) kept in the read cache as JSON under `key`:
 * the database is skipped, and mercurius still serializes the response around it.
 */
export async function rememberedForStorefront<T>(ctx: QhatuGraphQLContext, key: string, read: () => Promise<T>): Promise<T> {
  const slot = ctx.container.resolve(ReadCache).slot(ctx.tenantId, CATALOG_TOPIC, `graphql:${key}`);
  if (slot.hit) return JSON.parse(slot.hit.body) as T;
  const value = await read();
  slot.fill(JSON.stringify(value));
  return value;
}
