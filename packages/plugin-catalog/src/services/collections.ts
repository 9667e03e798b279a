/** The collections each product belongs to; the collections feature provides the real source. */
export interface CollectionsOfProducts {
  collectionsOf(productIds: string[]): Promise<Map<string, Array<{ id: string; title: string }>>>;
}

export const ProductCollections = Symbol.for('qhatu.catalog.product-collections');

/** Until collections exist, no product belongs to one. */
export const noCollections: CollectionsOfProducts = {
  collectionsOf: async () => new Map(),
};
