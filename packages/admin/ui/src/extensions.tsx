import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { callPath } from './api';
import { useAuth } from './auth';
import { useI18n } from './i18n';
import { ErrorBox, Loaded, Pager, Status, useAction, useLoad, usePager } from './ui';

/** The manifest the store serves at /admin/ui/manifest.json (what @qhatu/admin's AdminDeclaration checked). */
type Text = { en: string; es?: string };
interface Column {
  field: string;
  label: Text;
}
interface Action {
  label: Text;
  method: 'POST' | 'DELETE';
  path: string;
  permission?: string;
  when_status?: string[];
}
export type View =
  | { type: 'list'; source: string; columns: Column[]; statuses?: string[]; actions?: Action[] }
  | { type: 'fields'; source: string; fields: Column[] };
export interface ExtensionPage {
  path: string;
  title: Text;
  permission?: string;
  nav: boolean;
  view: View;
}
export interface Widget {
  zone: 'home' | 'order.detail' | 'product.detail';
  title: Text;
  permission?: string;
  view: View;
}
export interface Manifest {
  plugins: string[];
  extensions: Array<{ plugin: string; pages: ExtensionPage[]; widgets: Widget[] }>;
}

const ManifestContext = createContext<Manifest>({ plugins: [], extensions: [] });

export function ManifestProvider({ children }: { children: ReactNode }) {
  const [manifest, setManifest] = useState<Manifest>({ plugins: [], extensions: [] });
  useEffect(() => {
    fetch(`${import.meta.env.BASE_URL}manifest.json`)
      .then((res) => (res.ok ? (res.json() as Promise<Manifest>) : undefined))
      .then((m) => m && setManifest(m))
      .catch(() => undefined);
  }, []);
  return <ManifestContext.Provider value={manifest}>{children}</ManifestContext.Provider>;
}

export const useManifest = () => useContext(ManifestContext);

/** Whether a plugin of that name is installed (a page of the core dashboard may depend on one). */
export function useInstalled(plugin: string): boolean {
  return useManifest().plugins.includes(plugin);
}

const fill = (path: string, id?: string) => (id ? path.replaceAll('{id}', encodeURIComponent(id)) : path);
const valueAt = (row: Record<string, unknown>, field: string): unknown =>
  field.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), row);

function show(value: unknown): ReactNode {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? '✓' : '✗';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A declared view: the rows of a list (cursor pages, a status filter, row actions) or one record's fields. */
export function ExtensionView({ view, id, label }: { view: View; id?: string; label: string }) {
  const { client, can } = useAuth();
  const { t, text } = useI18n();
  const [status, setStatus] = useState(view.type === 'list' && view.statuses ? view.statuses[0] : '');
  const pager = usePager([status, id]);
  const action = useAction();
  const state = useLoad(async () => {
    const source = fill(view.source, id);
    if (view.type === 'fields') return { rows: [], one: (await callPath(client, 'GET', source)) as any, pagination: undefined };
    const join = source.includes('?') ? '&' : '?';
    const query = new URLSearchParams({ limit: '10' });
    if (status) query.set('filter[status]', status);
    if (pager.cursor) query.set('cursor', pager.cursor);
    const answer = (await callPath(client, 'GET', `${source}${join}${query}`)) as { data: Record<string, unknown>[]; meta?: { pagination?: { cursor?: string | null; has_next?: boolean } } };
    return { rows: answer.data, one: undefined, pagination: answer.meta?.pagination };
  }, [view.source, id, status, pager.cursor]);

  if (view.type === 'fields') {
    return (
      <Loaded state={state}>
        {(d) => {
          const record = (d.one?.data ?? d.one ?? {}) as Record<string, unknown>;
          return (
            <dl className="fields">
              {view.fields.map((f) => (
                <div key={f.field}>
                  <dt>{text(f.label)}</dt>
                  <dd>{show(valueAt(record, f.field))}</dd>
                </div>
              ))}
            </dl>
          );
        }}
      </Loaded>
    );
  }
  const actions = (view.actions ?? []).filter((a) => can(a.permission));
  return (
    <div>
      {view.statuses && (
        <label className="inline">
          {t('status')}{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">{t('all')}</option>
            {view.statuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      )}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <Loaded state={state} empty={(d) => d.rows.length === 0}>
        {(d) => (
          <>
            <div className="table-wrap">
              <table>
                <caption className="sr-only">{label}</caption>
                <thead>
                  <tr>
                    {view.columns.map((c) => (
                      <th key={c.field} scope="col">
                        {text(c.label)}
                      </th>
                    ))}
                    {actions.length > 0 && <th scope="col">{t('actions')}</th>}
                  </tr>
                </thead>
                <tbody>
                  {d.rows.map((row, i) => (
                    <tr key={String(row.id ?? i)}>
                      {view.columns.map((c) => (
                        <td key={c.field}>{c.field === 'status' ? <Status value={String(row.status)} /> : show(valueAt(row, c.field))}</td>
                      ))}
                      {actions.length > 0 && (
                        <td className="row-actions">
                          {actions
                            .filter((a) => !a.when_status || a.when_status.includes(String(row.status)))
                            .map((a) => (
                              <button
                                type="button"
                                key={a.path}
                                disabled={action.busy}
                                onClick={() => void action.run(() => callPath(client, a.method, fill(a.path, String(row.id)))).then((ok) => ok && state.reload())}
                              >
                                {text(a.label)}
                              </button>
                            ))}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager pager={pager} pagination={d.pagination} />
          </>
        )}
      </Loaded>
    </div>
  );
}

/** The widgets plugins put in a zone, each shown to those holding its permission. */
export function Zone({ name, id }: { name: Widget['zone']; id?: string }) {
  const { can } = useAuth();
  const { text } = useI18n();
  const widgets = useManifest().extensions.flatMap((e) => e.widgets.filter((w) => w.zone === name && can(w.permission)).map((w) => ({ ...w, plugin: e.plugin })));
  if (widgets.length === 0) return null;
  return (
    <>
      {widgets.map((w, i) => (
        <section key={`${w.plugin}-${i}`} className="card widget" data-zone={name} data-plugin={w.plugin} aria-label={text(w.title)}>
          <h2>{text(w.title)}</h2>
          <ExtensionView view={w.view} id={id} label={text(w.title)} />
        </section>
      ))}
    </>
  );
}
