import { definePlugin } from '@qhatu/core';
import { Product } from './entities/product.js';
import { Variant } from './entities/variant.js';
import { productGraphQL } from './graphql/products.js';
import { productsMigration } from './migrations/0001_products.js';
import { productRoutes } from './routes/products.js';
import { noCollections, ProductCollections } from './services/collections.js';
import { noMedia, ProductMedia } from './services/media.js';
import { PRODUCT_EVENTS, Products } from './services/products.js';

export { Product, PRODUCT_STATUSES, type ProductStatus } from './entities/product.js';
export { Variant } from './entities/variant.js';
export { Products, productEvent, type ProductView } from './services/products.js';
export { ProductMedia, type MediaResolver } from './services/media.js';
export { ProductCollections, type CollectionsOfProducts } from './services/collections.js';

/** The catalog: products and their variants, by REST and GraphQL. */
export default definePlugin({
  name: 'catalog',
  entities: [Product, Variant],
  migrations: [productsMigration],
  events: [...PRODUCT_EVENTS],
  register(container) {
    if (!container.isRegistered(ProductMedia)) container.register(ProductMedia, { useValue: noMedia });
    if (!container.isRegistered(ProductCollections)) container.register(ProductCollections, { useValue: noCollections });
    container.registerSingleton(Products);
  },
  routes: async (app, { container }) => productRoutes(app, container),
  graphql: productGraphQL,
});
