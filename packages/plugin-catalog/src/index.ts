import { definePlugin, EventBus, ReadCache } from '@qhatu/core';
import { Brand } from './entities/brand.js';
import { Collection } from './entities/collection.js';
import { CollectionProduct } from './entities/collection-product.js';
import { Product } from './entities/product.js';
import { ProductDownload } from './entities/product-download.js';
import { ProductMetafield } from './entities/product-metafield.js';
import { Supplier } from './entities/supplier.js';
import { Variant } from './entities/variant.js';
import { productGraphQL } from './graphql/products.js';
import { productsMigration } from './migrations/0001_products.js';
import { brandsSuppliersMigration } from './migrations/0002_brands_suppliers.js';
import { collectionsMigration } from './migrations/0003_collections.js';
import { downloadsMetafieldsMigration } from './migrations/0004_downloads_metafields.js';
import { cacheVersionMigration } from './migrations/0005_cache_version.js';
import { catalogSearchMigration } from './migrations/0006_search.js';
import { catalogCustomFieldsMigration } from './migrations/0007_custom_fields.js';
import { catalogTranslationsMigration } from './migrations/0008_translations.js';
import { catalogTranslatedKeysMigration } from './migrations/0009_translated_keys.js';
import { variantPricesMigration } from './migrations/0010_variant_prices.js';
import { brandRoutes } from './routes/brands.js';
import { collectionRoutes } from './routes/collections.js';
import { downloadRoutes } from './routes/downloads.js';
import { metafieldRoutes } from './routes/metafields.js';
import { productRoutes } from './routes/products.js';
import { CATALOG_TOPIC, dropOnCommit } from './services/catalog-cache.js';
import { supplierRoutes } from './routes/suppliers.js';
import { translationRoutes } from './routes/translations.js';
import { BRAND_EVENTS, Brands } from './services/brands.js';
import { CollectionProducts, ProductCollections } from './services/collection-products.js';
import { COLLECTION_EVENTS, Collections } from './services/collections.js';
import { DOWNLOAD_EVENTS, Downloads } from './services/downloads.js';
import { CatalogMedia, detachDeletedMedia } from './services/media.js';
import { METAFIELD_EVENTS, Metafields } from './services/metafields.js';
import { PRODUCT_EVENTS, Products, STOCK_KEEPER, type StockKeeper } from './services/products.js';
import { CatalogPriceResolver, PriceResolver } from './services/prices.js';
import { SUPPLIER_EVENTS, Suppliers } from './services/suppliers.js';
import { CatalogTranslations, TRANSLATION_EVENTS } from './services/translations.js';

export { Product, PRODUCT_STATUSES, type ProductStatus } from './entities/product.js';
export { Variant } from './entities/variant.js';
export { Collection, COLLECTION_SORT_ORDERS, COLLECTION_STATUSES } from './entities/collection.js';
export { CollectionProduct } from './entities/collection-product.js';
export { Brand } from './entities/brand.js';
export { Supplier } from './entities/supplier.js';
export { ProductDownload } from './entities/product-download.js';
export { ProductMetafield, METAFIELD_TYPES, type MetafieldType } from './entities/product-metafield.js';
export { Products, productEvent, STOCK_KEEPER, type ProductView, type StockKeeper, type VariantView } from './services/products.js';
export { type VariantPrice, type VariantPriceInput } from './services/variant-prices.js';
export { Collections } from './services/collections.js';
export { CollectionProducts, ProductCollections, type CollectionsOfProducts } from './services/collection-products.js';
export { Brands, type BrandView } from './services/brands.js';
export { Suppliers } from './services/suppliers.js';
export { Downloads } from './services/downloads.js';
export { Metafields } from './services/metafields.js';
export { CatalogTranslations, CATALOG_TRANSLATIONS, TRANSLATION_EVENTS } from './services/translations.js';
export { PriceResolver, CatalogPriceResolver, catalogPriceOf, catalogPricesIn, unitPricesFor, type PricedVariant, type PriceResolverStrategy, type ResolvedPrice, type PriceBuyer } from './services/prices.js';
export { SELLABLE_FACTS, sellablesFrom, sellablesSql, variantsWithProducts, type Sellable, type SellableFacts } from './services/sellables.js';

/** The catalog: products, variants, collections, brands, suppliers, downloads, metafields and their translations. */
export default definePlugin({
  name: 'catalog',
  permissions: [
    { name: 'catalog.read', description: 'See catalog data kept from shoppers: suppliers, metafields and downloads' },
    { name: 'catalog.write', description: 'Create, change and delete products, variants, collections, brands, suppliers, metafields and downloads, and translate them' },
  ],
  dependsOn: ['media'],
  entities: [Product, Variant, Brand, Supplier, Collection, CollectionProduct, ProductDownload, ProductMetafield],
  migrations: [productsMigration, brandsSuppliersMigration, collectionsMigration, downloadsMetafieldsMigration, cacheVersionMigration, catalogSearchMigration, catalogCustomFieldsMigration, catalogTranslationsMigration, catalogTranslatedKeysMigration, variantPricesMigration],
  // Other plugins and the project add fields to products and variants (`customFields: { product: {...}, variant: {...} }`).
  customFieldHosts: [
    { entity: 'product', table: 'catalog_product', graphqlType: 'Product' },
    { entity: 'variant', table: 'catalog_variant', graphqlType: 'ProductVariant' },
  ],
  events: [...PRODUCT_EVENTS, ...COLLECTION_EVENTS, ...BRAND_EVENTS, ...SUPPLIER_EVENTS, ...DOWNLOAD_EVENTS, ...METAFIELD_EVENTS, ...TRANSLATION_EVENTS],
  register(container) {
    // The catalog keeps stock itself until a plugin that keeps it (inventory) registers after it.
    container.register(STOCK_KEEPER, { useValue: { adjustWith: null } satisfies StockKeeper });
    container.registerSingleton(CatalogMedia);
    container.registerSingleton(CollectionProducts);
    if (!container.isRegistered(ProductCollections)) container.register(ProductCollections, { useToken: CollectionProducts });
    // What a buyer pays: the catalog price, until a plugin with price lists (B2B) registers its own after the catalog.
    if (!container.isRegistered(PriceResolver)) container.register(PriceResolver, { useValue: new CatalogPriceResolver() });
    container.registerSingleton(Collections);
    container.registerSingleton(Products);
    container.registerSingleton(Brands);
    container.registerSingleton(Suppliers);
    container.registerSingleton(Downloads);
    container.registerSingleton(Metafields);
    container.registerSingleton(CatalogTranslations);
    // Storefront answers: dropped in every process when the store's catalog version moves.
    container.resolve(ReadCache).join(CATALOG_TOPIC);
  },
  onReady: ({ container }) => {
    dropOnCommit(container.resolve(EventBus), container.resolve(ReadCache));
    // A media file being deleted leaves product images, collection covers and brand logos first.
    return detachDeletedMedia(container, [Products, Collections, Brands]);
  },
  routes: async (app, { container }) => {
    await productRoutes(app, container);
    await collectionRoutes(app, container);
    await brandRoutes(app, container);
    await supplierRoutes(app, container);
    await downloadRoutes(app, container);
    await metafieldRoutes(app, container);
    await translationRoutes(app, container);
  },
  graphql: productGraphQL,
});
