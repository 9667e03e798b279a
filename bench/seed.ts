/**
 * Seeds the benchmark store through the public HTTP API, the way an integrator would: a tenant, an
 * admin API key and products with three variants each.
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

async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${new URL(url).pathname} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

export async function seedStore(baseUrl: string, platformToken: string, productCount: number, cartCount: number): Promise<SeededStore> {
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
  return { tenantId, adminToken, storefrontToken: storefront.data.token, productIds: products.map((p) => p.id), variantIds: products.flatMap((p) => p.variantIds), cartIds };
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
