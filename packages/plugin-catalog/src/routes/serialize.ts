import type { CustomFieldValues } from '@qhatu/core';
import type { Collection } from '../entities/collection.js';
import type { CollectionProduct } from '../entities/collection-product.js';
import type { ProductDownload } from '../entities/product-download.js';
import type { ProductMetafield } from '../entities/product-metafield.js';
import type { Supplier } from '../entities/supplier.js';
import type { Variant } from '../entities/variant.js';
import type { BrandView } from '../services/brands.js';
import type { ProductView } from '../services/products.js';
import type { VariantPrice } from '../services/variant-prices.js';

/** A product's or variant's custom fields as the caller may see them (`CustomFields.present` for one audience). */
export type ShowCustomFields = (entity: 'product' | 'variant', stored: unknown) => CustomFieldValues;

/** `prices`: its explicit prices in the store's other currencies, for admin callers (absent: not shown). */
export function variantOut(v: Variant, show: ShowCustomFields, prices?: VariantPrice[]) {
  return {
    id: v.id,
    product_id: v.productId,
    title: v.title,
    sku: v.sku ?? null,
    price: v.price,
    compare_at_price: v.compareAtPrice ?? null,
    currency: v.currency,
    weight_grams: v.weightGrams ?? null,
    requires_shipping: v.requiresShipping,
    taxable: v.taxable,
    inventory_quantity: v.inventoryQuantity,
    position: v.position,
    custom_fields: show('variant', v.customFields),
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
    ...(prices ? { prices } : {}),
  };
}

export function productOut({ product: p, variants, prices }: ProductView, show: ShowCustomFields) {
  return {
    id: p.id,
    title: p.title,
    handle: p.handle,
    description_html: p.descriptionHtml ?? null,
    status: p.status,
    brand_id: p.brandId ?? null,
    supplier_id: p.supplierId ?? null,
    tags: p.tags,
    images: p.images,
    variants: variants.map((v) => variantOut(v, show, prices ? (prices.get(v.id) ?? []) : undefined)),
    custom_fields: show('product', p.customFields),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

export function collectionOut(c: Collection) {
  return {
    id: c.id,
    title: c.title,
    slug: c.slug,
    description: c.description ?? null,
    status: c.status,
    sort_order: c.sortOrder,
    seo_title: c.seoTitle ?? null,
    seo_description: c.seoDescription ?? null,
    image_media_id: c.imageMediaId ?? null,
    image_url: c.imageUrl ?? null,
    position: c.position,
    product_count: c.productCount,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function collectionProductOut(m: CollectionProduct) {
  return {
    id: m.id,
    collection_id: m.collectionId,
    product_id: m.productId,
    position: m.position,
    created_at: m.createdAt.toISOString(),
  };
}

export function brandOut({ brand: b, productCount }: BrandView) {
  return {
    id: b.id,
    name: b.name,
    slug: b.slug,
    description: b.description ?? null,
    color: b.color ?? null,
    logo_media_id: b.logoMediaId ?? null,
    logo_url: b.logoUrl ?? null,
    website_url: b.websiteUrl ?? null,
    product_count: productCount,
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
}

export function supplierOut(s: Supplier) {
  return {
    id: s.id,
    name: s.name,
    code: s.code ?? null,
    email: s.email ?? null,
    phone: s.phone ?? null,
    address: s.address ?? null,
    metadata: s.metadata,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export function downloadOut(d: ProductDownload) {
  return {
    id: d.id,
    product_id: d.productId,
    variant_id: d.variantId ?? null,
    file_name: d.fileName,
    file_url: d.fileUrl,
    file_size_bytes: d.fileSizeBytes ?? null,
    download_limit: d.downloadLimit ?? null,
    download_expiry_days: d.downloadExpiryDays ?? null,
    position: d.position,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

export function metafieldOut(m: ProductMetafield) {
  return {
    id: m.id,
    product_id: m.productId,
    variant_id: m.variantId ?? null,
    namespace: m.namespace,
    key: m.key,
    value: m.value,
    value_type: m.valueType,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}
