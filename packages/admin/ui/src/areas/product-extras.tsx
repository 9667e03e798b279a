import { useState, type FormEvent } from 'react';
import type { ResponseOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { Empty, ErrorBox, Field, Loaded, useAction, useLoad } from '../ui';
import { uploadFile } from '../upload';

type Product = ResponseOf<'/api/v1/catalog/products/{id}'>['data'];
type ImageIn = { media_id?: string; url?: string; alt_text?: string | null };

const imagesIn = (product: Product): ImageIn[] => product.images.map((i) => (i.media_id ? { media_id: i.media_id, alt_text: i.alt_text } : { url: i.url ?? '', alt_text: i.alt_text }));

/** The product's images: uploaded through the store's signed upload (with its progress), their alt texts, removed. */
export function Images({ product, onSaved }: { product: Product; onSaved(): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const save = useAction();
  const [progress, setProgress] = useState<number | null>(null);
  const editable = can('catalog.write') && can('media.write');
  // A media image's address is the media file's; an image given by URL has its own.
  const urls = useLoad(async () => {
    const found: Record<string, string> = {};
    await Promise.all(
      product.images.map(async (i) => {
        if (i.media_id) found[i.id] = (await client.GET('/api/v1/media/{id}', { params: { path: { id: i.media_id } } })).data.public_url;
        else if (i.url) found[i.id] = i.url;
      }),
    );
    return found;
  }, [product.updated_at]);
  const patch = (images: ImageIn[]) => client.PATCH('/api/v1/catalog/products/{id}', { params: { path: { id: product.id } }, body: { images } });

  const upload = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const file = (form.elements.namedItem('file') as HTMLInputElement).files?.[0];
    if (!file) return;
    const alt = String(new FormData(form).get('alt') ?? '').trim();
    setProgress(0);
    const ok = await save.run(async () => {
      const media = await uploadFile(client, file, setProgress);
      await patch([...imagesIn(product), { media_id: media.id, alt_text: alt || null }]);
    });
    if (ok) {
      form.reset();
      onSaved();
    } else setProgress(null);
  };

  return (
    <section className="card" aria-labelledby="images">
      <h2 id="images">{t('products.images')}</h2>
      {product.images.length === 0 ? (
        <Empty>{t('products.noimages')}</Empty>
      ) : (
        <ul className="thumbs">
          {product.images.map((image, i) => (
            <li key={image.id}>
              {urls.data?.[image.id] ? <img src={urls.data[image.id]} alt={image.alt_text ?? ''} width={120} height={120} /> : <div className="thumb-missing" aria-hidden="true" />}
              <small>{image.alt_text || t('products.noalt')}</small>
              {editable && (
                <button
                  type="button"
                  className="danger"
                  aria-label={`${t('products.removeimage')} ${i + 1}`}
                  disabled={save.busy}
                  onClick={() => void save.run(() => patch(imagesIn(product).filter((_x, j) => j !== i))).then((ok) => ok && onSaved())}
                >
                  {t('remove')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {editable && (
        <form className="inline-form" onSubmit={(e) => void upload(e)} aria-label={t('products.addimage')}>
          <Field label={t('products.imagefile')}>
            <input name="file" type="file" accept="image/*" required />
          </Field>
          <Field label={t('products.alt')}>
            <input name="alt" maxLength={512} />
          </Field>
          <button type="submit" className="primary" disabled={save.busy}>
            {t('products.upload')}
          </button>
          {progress !== null && (
            <label className="progress">
              <span>{progress >= 1 && !save.busy ? t('products.uploaded') : t('products.uploading')}</span>
              <progress max={100} value={Math.round(progress * 100)} aria-valuetext={`${Math.round(progress * 100)}%`} />
              <span aria-live="polite">{Math.round(progress * 100)}%</span>
            </label>
          )}
        </form>
      )}
      {save.error !== undefined && <ErrorBox error={save.error} />}
    </section>
  );
}

/** The collections the product is in, as check-boxes (the store's first 50 collections). */
export function Collections({ product }: { product: Product }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const state = useLoad(async () => {
    const collections = (await client.GET('/api/v1/catalog/collections', { params: { query: { limit: 50 } } })).data;
    // The API lists a collection's products, not a product's collections: each collection is asked.
    const member = await Promise.all(
      collections.map(async (c) => {
        for await (const entry of client.items('/api/v1/catalog/collections/{id}/products', { params: { path: { id: c.id }, query: { limit: 100 } } })) if (entry.id === product.id) return true;
        return false;
      }),
    );
    return collections.map((c, i) => ({ id: c.id, title: c.title, member: member[i] }));
  }, [product.id]);
  const toggle = (id: string, member: boolean) =>
    void action
      .run(() =>
        member
          ? client.DELETE('/api/v1/catalog/collections/{id}/products/{product_id}', { params: { path: { id, product_id: product.id } } })
          : client.POST('/api/v1/catalog/collections/{id}/products', { params: { path: { id } }, body: { product_id: product.id } }),
      )
      .then(state.reload);
  return (
    <section className="card" aria-labelledby="collections">
      <h2 id="collections">{t('products.collections')}</h2>
      <Loaded state={state} empty={(d) => d.length === 0}>
        {(rows) => (
          <fieldset className="checks" disabled={!can('catalog.write') || action.busy}>
            <legend className="sr-only">{t('products.collections')}</legend>
            {rows.map((c) => (
              <label key={c.id} className="check">
                <input type="checkbox" checked={c.member} onChange={() => toggle(c.id, c.member)} />
                <span>{c.title}</span>
              </label>
            ))}
          </fieldset>
        )}
      </Loaded>
      {action.error !== undefined && <ErrorBox error={action.error} />}
    </section>
  );
}

const METAFIELD_TYPES = ['string', 'integer', 'decimal', 'boolean', 'json', 'date', 'datetime', 'url', 'color', 'reference'] as const;

/** The product's metafields: `namespace.key = value`, added and removed. */
export function Metafields({ product }: { product: Product }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const state = useLoad(() => client.GET('/api/v1/catalog/products/{id}/metafields', { params: { path: { id: product.id } } }), [product.id]);
  const editable = can('catalog.write');
  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const values = new FormData(form);
    const body = { namespace: String(values.get('namespace')), key: String(values.get('key')), value: String(values.get('value')), value_type: String(values.get('value_type')) as (typeof METAFIELD_TYPES)[number] };
    if (await action.run(() => client.POST('/api/v1/catalog/products/{id}/metafields', { params: { path: { id: product.id } }, body }))) {
      form.reset();
      state.reload();
    }
  };
  return (
    <section className="card" aria-labelledby="metafields">
      <h2 id="metafields">{t('products.metafields')}</h2>
      <Loaded state={state}>
        {(d) =>
          d.data.length === 0 ? (
            <Empty />
          ) : (
            <ul className="plain">
              {d.data.map((m) => (
                <li key={m.id}>
                  <code>
                    {m.namespace}.{m.key}
                  </code>{' '}
                  = {m.value} <small>({m.value_type})</small>{' '}
                  {editable && (
                    <button
                      type="button"
                      aria-label={`${t('remove')} ${m.namespace}.${m.key}`}
                      onClick={() => void action.run(() => client.DELETE('/api/v1/catalog/products/{id}/metafields/{metafield_id}', { params: { path: { id: product.id, metafield_id: m.id } } })).then(state.reload)}
                    >
                      {t('remove')}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      {editable && (
        <form className="inline-form" onSubmit={(e) => void add(e)} aria-label={t('products.addmetafield')}>
          <Field label={t('products.namespace')}>
            <input name="namespace" required pattern="[A-Za-z0-9_\-]+" defaultValue="custom" />
          </Field>
          <Field label={t('products.key')}>
            <input name="key" required pattern="[A-Za-z0-9_\-]+" />
          </Field>
          <Field label={t('products.valuetype')}>
            <select name="value_type">
              {METAFIELD_TYPES.map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
          </Field>
          <Field label={t('products.value')}>
            <input name="value" required />
          </Field>
          <button type="submit" disabled={action.busy}>
            {t('add')}
          </button>
        </form>
      )}
      {action.error !== undefined && <ErrorBox error={action.error} />}
    </section>
  );
}
