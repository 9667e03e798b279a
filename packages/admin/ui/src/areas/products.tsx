import { useState, type FormEvent } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import type { ResponseOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { Zone } from '../extensions';
import { Collections, Images, Metafields } from './product-extras';
import { useI18n } from '../i18n';
import { ListTable, ListToolbar, listParams, useList } from '../list';
import { ErrorBox, Field, Loaded, SaveFooter, Status, useAction, useLoad } from '../ui';

type Product = ResponseOf<'/api/v1/catalog/products/{id}'>['data'];
const PRODUCT_STATUSES = ['active', 'draft', 'archived'] as const;
type ProductStatus = (typeof PRODUCT_STATUSES)[number];
interface VariantRow {
  id?: string;
  title: string;
  sku: string;
  price: string;
  compare_at_price: string;
}

function ProductList() {
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const list = useList<Product, 'status'>((query) => client.GET('/api/v1/catalog/products', { params: { query: listParams(query) as never } }));
  return (
    <>
      <div className="title-row">
        <h1>{t('products.title')}</h1>
        {can('catalog.write') && (
          <Link className="button primary" to="new">
            {t('products.new')}
          </Link>
        )}
      </div>
      <ListToolbar list={list} placeholder={t('products.search')} filters={[{ name: 'status', label: t('status'), options: PRODUCT_STATUSES.map((value) => ({ value })) }]} />
      <ListTable
        list={list}
        caption={t('products.title')}
        columns={[{ label: t('products.name') }, { label: t('status') }, { label: t('products.variants') }, { label: t('products.price'), num: true }, { label: t('created') }]}
        row={(p) => (
          <tr key={p.id}>
            <td>
              <Link to={p.id}>{p.title}</Link>
            </td>
            <td>
              <Status value={p.status} />
            </td>
            <td>{p.variants.length}</td>
            <td className="num">{p.variants[0] ? money(p.variants[0].price, p.variants[0].currency) : '—'}</td>
            <td>{date(p.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

const emptyVariant = (): VariantRow => ({ title: '', sku: '', price: '', compare_at_price: '' });
const cents = (value: string) => (value.trim() === '' ? undefined : Number(value));

function ProductForm({ product, onSaved }: { product?: Product; onSaved(product: Product): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const editable = can('catalog.write');
  const [variants, setVariants] = useState<VariantRow[]>(
    product?.variants.map((v) => ({ id: v.id, title: v.title, sku: v.sku ?? '', price: String(v.price), compare_at_price: v.compare_at_price == null ? '' : String(v.compare_at_price) })) ?? [emptyVariant()],
  );
  const [removed, setRemoved] = useState<string[]>([]);
  const setVariant = (i: number, patch: Partial<VariantRow>) => setVariants((rows) => rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const fields = {
      title: String(form.get('title')).trim(),
      handle: String(form.get('handle') ?? '').trim() || undefined,
      description_html: String(form.get('description') ?? '') || undefined,
      status: String(form.get('status')) as ProductStatus,
    };
    const rows = variants.map((v) => ({ title: v.title.trim(), sku: v.sku.trim() || undefined, price: Number(v.price), compare_at_price: cents(v.compare_at_price) }));
    await action.run(async () => {
      if (!product) {
        const created = await client.POST('/api/v1/catalog/products', { body: { ...fields, variants: rows } });
        onSaved(created.data);
        return;
      }
      await client.PATCH('/api/v1/catalog/products/{id}', { params: { path: { id: product.id } }, body: fields });
      for (const id of removed) await client.DELETE('/api/v1/catalog/products/{id}/variants/{variant_id}', { params: { path: { id: product.id, variant_id: id } } });
      for (const [i, v] of variants.entries()) {
        if (v.id) await client.PATCH('/api/v1/catalog/products/{id}/variants/{variant_id}', { params: { path: { id: product.id, variant_id: v.id } }, body: rows[i] });
        else await client.POST('/api/v1/catalog/products/{id}/variants', { params: { path: { id: product.id } }, body: rows[i] });
      }
      const fresh = await client.GET('/api/v1/catalog/products/{id}', { params: { path: { id: product.id } } });
      setRemoved([]);
      onSaved(fresh.data);
    });
  };

  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={product ? t('products.edit') : t('products.new')}>
      <fieldset disabled={!editable || action.busy}>
        <Field label={t('products.name')}>
          <input name="title" required maxLength={255} defaultValue={product?.title} />
        </Field>
        <div className="grid2">
          <Field label={t('products.handle')}>
            <input name="handle" defaultValue={product?.handle} pattern="[a-z0-9]+(-[a-z0-9]+)*" />
          </Field>
          <Field label={t('products.status')}>
            <select name="status" defaultValue={product?.status ?? 'draft'}>
              <option value="draft">draft</option>
              <option value="active">active</option>
              <option value="archived">archived</option>
            </select>
          </Field>
        </div>
        <Field label={t('products.description')}>
          <textarea name="description" rows={4} defaultValue={product?.description_html ?? ''} />
        </Field>
        <fieldset className="variants">
          <legend>{t('products.variants')}</legend>
          {variants.map((v, i) => (
            <div className="variant-row" key={v.id ?? `new-${i}`} role="group" aria-label={`${t('products.variant')} ${i + 1}`}>
              <Field label={t('products.variant')}>
                <input required value={v.title} onChange={(e) => setVariant(i, { title: e.target.value })} />
              </Field>
              <Field label={t('products.sku')}>
                <input value={v.sku} onChange={(e) => setVariant(i, { sku: e.target.value })} />
              </Field>
              <Field label={t('products.price')}>
                <input required type="number" min={0} step={1} inputMode="numeric" value={v.price} onChange={(e) => setVariant(i, { price: e.target.value })} />
              </Field>
              <Field label={t('products.compare')}>
                <input type="number" min={0} step={1} inputMode="numeric" value={v.compare_at_price} onChange={(e) => setVariant(i, { compare_at_price: e.target.value })} />
              </Field>
              {variants.length > 1 && (
                <button
                  type="button"
                  className="danger"
                  onClick={() => {
                    if (v.id) setRemoved((r) => [...r, v.id!]);
                    setVariants((rows) => rows.filter((_r, j) => j !== i));
                  }}
                >
                  {t('products.removevariant')}
                </button>
              )}
            </div>
          ))}
          <button type="button" onClick={() => setVariants((rows) => [...rows, emptyVariant()])}>
            {t('products.addvariant')}
          </button>
        </fieldset>
        <SaveFooter action={action} />
      </fieldset>
    </form>
  );
}

function NewProduct() {
  const { t } = useI18n();
  const navigate = useNavigate();
  return (
    <>
      <p>
        <Link to="..">← {t('products.title')}</Link>
      </p>
      <h1>{t('products.new')}</h1>
      <ProductForm onSaved={(p) => navigate(`../${p.id}`, { replace: true, state: { created: true } })} />
    </>
  );
}

function EditProduct() {
  const { id = '' } = useParams();
  const { client, can } = useAuth();
  const { t } = useI18n();
  const state = useLoad(() => client.GET('/api/v1/catalog/products/{id}', { params: { path: { id } } }), [id]);
  const publish = useAction();
  return (
    <Loaded state={state}>
      {({ data: product }) => (
        <>
          <p>
            <Link to="..">← {t('products.title')}</Link>
          </p>
          <div className="title-row">
            <h1>
              {product.title} <Status value={product.status} />
            </h1>
            {can('catalog.write') && (
              <button
                type="button"
                className="primary"
                disabled={publish.busy}
                onClick={() =>
                  void publish
                    .run(() => client.PATCH('/api/v1/catalog/products/{id}', { params: { path: { id } }, body: { status: product.status === 'active' ? 'draft' : 'active' } }))
                    .then((ok) => ok && state.reload())
                }
              >
                {product.status === 'active' ? t('products.unpublish') : t('products.publish')}
              </button>
            )}
          </div>
          {publish.error !== undefined && <ErrorBox error={publish.error} />}
          <ProductForm key={product.updated_at} product={product} onSaved={() => state.reload()} />
          <Images product={product} onSaved={state.reload} />
          <div className="grid2">
            <Collections product={product} />
            <Metafields product={product} />
          </div>
          <Zone name="product.detail" id={product.id} />
        </>
      )}
    </Loaded>
  );
}

export default function Products() {
  return (
    <Routes>
      <Route index element={<ProductList />} />
      <Route path="new" element={<NewProduct />} />
      <Route path=":id" element={<EditProduct />} />
    </Routes>
  );
}
