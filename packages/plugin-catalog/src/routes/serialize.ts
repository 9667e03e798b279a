import type { Product } from '../entities/product.js';
import type { Variant } from '../entities/variant.js';
import type { ProductView } from '../services/products.js';

export function variantOut(v: Variant) {
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
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
  };
}

export function productOut({ product: p, variants }: { product: Product; variants: Variant[] } | ProductView) {
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
    variants: variants.map(variantOut),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
