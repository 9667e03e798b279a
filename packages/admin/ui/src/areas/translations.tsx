import type { FormEvent } from 'react';
import { Link, NavLink, Navigate, Route, Routes, useParams } from 'react-router';
import { callPath } from '../api';
import { useAuth } from '../auth';
import { useInstalled } from '../extensions';
import { valuesOf } from '../forms';
import { useI18n, type Key } from '../i18n';
import { ListTable, ListToolbar, listParams, useList, type ListPage } from '../list';
import { Empty, Field, Loaded, SaveFooter, useAction, useLoad } from '../ui';

type Row = Record<string, unknown> & { id: string };

/** A kind of text the store translates (decision 0089): where its resources and their translations are, and its fields. */
interface Kind {
  path: string;
  label: Key;
  plugin: string;
  read: string;
  write: string;
  /** The list of resources, and whether it takes `q`. */
  list: string;
  search: boolean;
  name(row: Row): string;
  /** The translated fields: long ones (HTML, descriptions) in a text area. */
  fields: Array<{ name: string; long?: boolean }>;
}

const KINDS: Kind[] = [
  {
    path: 'products', label: 'translations.products', plugin: 'catalog', read: 'catalog.read', write: 'catalog.write', list: '/api/v1/catalog/products', search: true,
    name: (r) => String(r.title), fields: [{ name: 'title' }, { name: 'handle' }, { name: 'description_html', long: true }],
  },
  {
    path: 'collections', label: 'translations.collections', plugin: 'catalog', read: 'catalog.read', write: 'catalog.write', list: '/api/v1/catalog/collections', search: false,
    name: (r) => String(r.title), fields: [{ name: 'title' }, { name: 'slug' }, { name: 'description', long: true }, { name: 'seo_title' }, { name: 'seo_description', long: true }],
  },
  {
    path: 'posts', label: 'translations.posts', plugin: 'blog', read: 'blog.read', write: 'blog.write', list: '/api/v1/blog/posts', search: true,
    name: (r) => String(r.title), fields: [{ name: 'title' }, { name: 'excerpt', long: true }, { name: 'content', long: true }],
  },
  {
    path: 'shipping', label: 'translations.shipping', plugin: 'shipping', read: 'shipping.read', write: 'shipping.write', list: '/shipping/rates', search: false,
    name: (r) => `${String(r.carrier)} · ${String(r.service_name)}`, fields: [{ name: 'service_name' }],
  },
];

/** Where a resource of a kind lives (its translations are under it). */
const resourcePath = (kind: Kind, id: string) => `${kind.list}/${encodeURIComponent(id)}`;

function useKinds(): Kind[] {
  const { can } = useAuth();
  const blog = useInstalled('blog');
  const shipping = useInstalled('shipping');
  const catalog = useInstalled('catalog');
  const installed: Record<string, boolean> = { blog, shipping, catalog };
  return KINDS.filter((k) => installed[k.plugin] && can(k.read));
}

function Tabs({ kinds }: { kinds: Kind[] }) {
  const { t } = useI18n();
  return (
    <nav className="tabs" aria-label={t('nav.translations')}>
      {kinds.map((k) => (
        <NavLink key={k.path} to={`/translations/${k.path}`}>
          {t(k.label)}
        </NavLink>
      ))}
    </nav>
  );
}

function Resources({ kind }: { kind: Kind }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const list = useList<Row>(
    async (query) => {
      const params = new URLSearchParams(Object.entries(listParams({ ...query, q: kind.search ? query.q : undefined })).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
      return (await callPath(client, 'GET', `${kind.list}?${params}`)) as ListPage<Row>;
    },
    { deps: [kind.path] },
  );
  return (
    <>
      {kind.search && <ListToolbar list={list} />}
      <ListTable
        list={list}
        caption={t(kind.label)}
        columns={[{ label: t('customers.name') }]}
        row={(r) => (
          <tr key={r.id}>
            <td>
              <Link to={r.id}>{kind.name(r)}</Link>
            </td>
          </tr>
        )}
      />
    </>
  );
}

/** One locale's texts of a resource: saved as that locale's translation, or removed (the default's texts are read there again). */
function LocaleForm({ kind, id, locale, own, current, onSaved }: { kind: Kind; id: string; locale: string; own: Row; current?: Row; onSaved(): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const writable = can(kind.write);
  const path = `${resourcePath(kind, id)}/translations/${encodeURIComponent(locale)}`;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const v = valuesOf(event.currentTarget);
    const body = Object.fromEntries(kind.fields.map((f) => [f.name, v[f.name]?.trim() ?? '']).filter(([, value]) => value !== ''));
        // Every field emptied: the locale reads the default's texts again.
    const work = Object.keys(body).length > 0 ? () => callPath(client, 'PUT', path, body) : current ? () => callPath(client, 'DELETE', path) : async () => undefined;
    if (await action.run(work)) onSaved();
  };
  const title = t('translations.in', { locale });
  return (
    <form className="card" aria-label={title} onSubmit={(e) => void submit(e)} lang={locale}>
      <h2>{title}</h2>
      <fieldset disabled={!writable} key={String(current?.updated_at ?? 'none')}>
        {kind.fields.map((f) => {
          const mine = own[f.name];
          const hint = typeof mine === 'string' && mine ? t('translations.own', { text: mine.length > 80 ? `${mine.slice(0, 80)}…` : mine }) : undefined;
          const value = typeof current?.[f.name] === 'string' ? String(current[f.name]) : '';
          return (
            <Field key={f.name} label={f.name.replace(/_/g, ' ')} hint={hint}>
              {f.long ? <textarea name={f.name} rows={4} defaultValue={value} /> : <input name={f.name} defaultValue={value} />}
            </Field>
          );
        })}
      </fieldset>
      <p className="note">{current ? t('translations.saved') : t('translations.missing')}</p>
      {writable && <SaveFooter action={action} disableWhileBusy />}
    </form>
  );
}

function ResourceTranslations({ kind }: { kind: Kind }) {
  const { id = '' } = useParams();
  const { client } = useAuth();
  const { t } = useI18n();
  const locales = useLoad(async () => (await client.GET('/api/v1/locales')).data, []);
  const own = useLoad(async () => ((await callPath(client, 'GET', resourcePath(kind, id))) as { data: Row }).data, [kind.path, id]);
  const done = useLoad(async () => ((await callPath(client, 'GET', `${resourcePath(kind, id)}/translations`)) as { data: Row[] }).data, [kind.path, id]);
  return (
    <>
      <p>
        <Link to={`/translations/${kind.path}`}>← {t(kind.label)}</Link>
      </p>
      <Loaded state={own}>
        {(resource) => (
          <>
            <h2>{kind.name(resource)}</h2>
            <Loaded state={locales}>
              {(l) => {
                const others = l.locales.filter((x) => x !== l.default_locale);
                if (others.length === 0) return <Empty>{t('translations.nolocales')}</Empty>;
                return (
                  <Loaded state={done}>
                    {(rows) => (
                      <div className="grid2">
                        {others.map((locale) => (
                          <LocaleForm key={locale} kind={kind} id={id} locale={locale} own={resource} current={rows.find((r) => r.locale === locale)} onSaved={done.reload} />
                        ))}
                      </div>
                    )}
                  </Loaded>
                );
              }}
            </Loaded>
          </>
        )}
      </Loaded>
    </>
  );
}

function KindPage({ kinds }: { kinds: Kind[] }) {
  const { kind: path } = useParams();
  const { t } = useI18n();
  const kind = kinds.find((k) => k.path === path);
  if (!kind) return <Empty>{t('notfound')}</Empty>;
  return (
    <Routes>
      <Route index element={<Resources kind={kind} />} />
      <Route path=":id" element={<ResourceTranslations kind={kind} />} />
    </Routes>
  );
}

/** Translations of the store's texts into its other locales: products, collections, blog posts, shipping services. */
export default function Translations() {
  const { client } = useAuth();
  const { t } = useI18n();
  const kinds = useKinds();
  const locales = useLoad(async () => (await client.GET('/api/v1/locales')).data, []);
  return (
    <>
      <h1>{t('nav.translations')}</h1>
      <Loaded state={locales}>
        {(l) => (
          <p className="note">
            {t('translations.note', { locale: l.default_locale })} {l.locales.length < 2 && t('translations.nolocales')}
          </p>
        )}
      </Loaded>
      <Tabs kinds={kinds} />
      <Routes>
        <Route index element={kinds.length > 0 ? <Navigate to={`/translations/${kinds[0].path}`} replace /> : <Empty />} />
        <Route path=":kind/*" element={<KindPage kinds={kinds} />} />
      </Routes>
    </>
  );
}
