/**
 * Seeds the benchmark store through the public HTTP API, the way an integrator would: a tenant, an
 * admin API key, products with three variants each, empty carts, and a history of orders placed
 * through the checkout.
 */

export interface SeededStore {
  tenantId: string;
  adminToken: string;
  /** A storefront key: its reads are answered from the read cache. */
  storefrontToken: string;
  productIds: string[];
  /** Every variant of the seeded products (3 per product), in product order. */
  variantIds: string[];
  /** Empty carts made for the add-to-cart scenario. */
  cartIds: string[];
}

/** The shipping step's body that places an order: an address and a rate of a carrier. */
export const SHIPPING = {
  shipping_address: { first_name: 'Bench', last_name: 'Shopper', address1: '1 Load St', city: 'Lima', province: 'Lima', country_code: 'PE', zip: '15001', phone: '+51900000000' },
  shipping_rate: { carrier: 'Bench', service: 'Standard', price: 500 },
};

const SEED_CONCURRENCY = 8;

/** A product body with three sized variants; `label` makes its title, handle and SKUs unique. */
export function productBody(label: string) {
  return {
    title: `Bench ${label}`,
    description_html: '<p>A product made by the benchmark.</p>',
    tags: ['bench'],
    variants: ['S', 'M', 'L'].map((size, position) => ({
      title: size,
      sku: `${label}-${size}`,
      price: 1990 + position * 100,
    })),
  };
}

async function postJson(url: string, headers: Record<string, string>, body: unknown, method = 'POST', expected = 201): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${new URL(url).pathname} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

/**
 * `historyOrders` orders placed the way a shopper places them (a cart of two lines, the checkout,
 * the shipping step), before the database's statistics are taken: a store has a past, and its
 * tables are not empty when PostgreSQL plans the statements that the load runs against them.
 */
export async function seedStore(baseUrl: string, platformToken: string, productCount: number, cartCount: number, historyOrders: number): Promise<SeededStore> {
  const platform = { authorization: `Bearer ${platformToken}` };
  const tenant = await postJson(`${baseUrl}/api/v1/tenants`, platform, { name: 'Bench store', currency: 'USD' });
  const tenantId: string = tenant.data.id;
  const key = await postJson(`${baseUrl}/api/v1/tenants/${tenantId}/api-keys`, platform, { name: 'bench admin', scope: 'admin' });
  const adminToken: string = key.data.token;
  const storefront = await postJson(`${baseUrl}/api/v1/tenants/${tenantId}/api-keys`, platform, { name: 'bench storefront', scope: 'storefront' });

  const headers = { authorization: `Bearer ${adminToken}`, 'x-tenant-id': tenantId };
  const products = await inBatches(productCount, SEED_CONCURRENCY, async (i) => {
    const created = await postJson(`${baseUrl}/api/v1/catalog/products`, headers, productBody(`seed-${i}`));
    return { id: created.data.id as string, variantIds: (created.data.variants as Array<{ id: string }>).map((v) => v.id) };
  });
  const cartIds = await inBatches(cartCount, SEED_CONCURRENCY, async () => (await postJson(`${baseUrl}/api/v1/checkout/carts`, headers, {})).data.id as string);
  const variantIds = products.flatMap((p) => p.variantIds);
  await inBatches(historyOrders, SEED_CONCURRENCY, async (i) => {
    const cart = (await postJson(`${baseUrl}/api/v1/checkout/carts`, headers, {})).data.id as string;
    for (const k of [0, 1]) await postJson(`${baseUrl}/api/v1/checkout/carts/${cart}/items`, headers, { variant_id: variantIds[(2 * i + k) % variantIds.length], quantity: 1 });
    const checkout = (await postJson(`${baseUrl}/api/v1/checkout/checkouts`, headers, { cart_id: cart, email: `history-${i}@example.com` })).data.id as string;
    await postJson(`${baseUrl}/api/v1/checkout/checkouts/${checkout}/shipping`, headers, SHIPPING, 'PUT', 200);
  });
  return { tenantId, adminToken, storefrontToken: storefront.data.token, productIds: products.map((p) => p.id), variantIds, cartIds };
}

/** Runs `work(0..count-1)` with at most `concurrency` calls in flight; results keep their order. */
async function inBatches<T>(count: number, concurrency: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return results;
}
