import { createContext, useContext, useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { callPath } from './api';
import { useAuth } from './auth';
import { useI18n } from './i18n';
import { ListTable, ListToolbar, listParams, useList, type ListPage } from './list';
import { ErrorBox, Field, Loaded, SaveFooter, Status, useAction, useLoad } from './ui';

/** The manifest the store serves at /admin/ui/manifest.json (what @qhatu/admin's AdminDeclaration checked). */
type Text = { en: string; es?: string };
interface Column {
  field: string;
  label: Text;
}
interface Action {
  label: Text;
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, string | number | boolean | null>;
  permission?: string;
  when_status?: string[];
}
interface FormField {
  name: string;
  label: Text;
  type: 'text' | 'email' | 'number' | 'decimal' | 'select';
  required: boolean;
  options?: string[];
  hint?: Text;
}
interface CreateForm {
  label: Text;
  path: string;
  permission?: string;
  fields: FormField[];
}
export type View =
  | { type: 'list'; source: string; columns: Column[]; statuses?: string[]; actions?: Action[]; row_id?: string; create?: CreateForm }
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

type ListView = Extract<View, { type: 'list' }>;
type FieldsView = Extract<View, { type: 'fields' }>;
type Row = Record<string, unknown>;

/** One record's fields. */
function RecordFields({ view, id }: { view: FieldsView; id?: string }) {
  const { client } = useAuth();
  const { text } = useI18n();
  const state = useLoad(async () => (await callPath(client, 'GET', fill(view.source, id))) as { data?: Row } & Row, [view.source, id]);
  return (
    <Loaded state={state}>
      {(answer) => {
        const record = (answer.data ?? answer) as Row;
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

/** A declared form that adds a row: its fields' values POSTed to its path, empty ones left out. */
function DeclaredForm({ form, onSaved }: { form: CreateForm; onSaved(): void }) {
  const { client } = useAuth();
  const { text } = useI18n();
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const element = event.currentTarget;
    const values = new FormData(element);
    const body: Record<string, string | number> = {};
    for (const f of form.fields) {
      const value = String(values.get(f.name) ?? '').trim();
      if (value === '') continue;
      body[f.name] = f.type === 'number' || f.type === 'decimal' ? Number(value) : value;
    }
    if (await action.run(() => callPath(client, 'POST', form.path, body))) {
      element.reset();
      onSaved();
    }
  };
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={text(form.label)}>
      <h3>{text(form.label)}</h3>
      <div className="grid3">
        {form.fields.map((f) => (
          <Field key={f.name} label={text(f.label)} hint={f.hint && text(f.hint)}>
            {f.type === 'select' ? (
              <select name={f.name} required={f.required}>
                {!f.required && <option value="">—</option>}
                {(f.options ?? []).map((o) => (
                  <option key={o} value={o}>
                    {o.replace(/_/g, ' ')}
                  </option>
                ))}
              </select>
            ) : (
              <input name={f.name} required={f.required} type={f.type === 'email' ? 'email' : f.type === 'text' ? 'text' : 'number'} step={f.type === 'decimal' ? 'any' : f.type === 'number' ? 1 : undefined} />
            )}
          </Field>
        ))}
      </div>
      <SaveFooter action={action} label={text(form.label)} disableWhileBusy />
    </form>
  );
}

/** The rows of a list: cursor pages, a status filter, row actions, a form that adds one. */
function Rows({ view, id, label }: { view: ListView; id?: string; label: string }) {
  const { client, can } = useAuth();
  const { t, text } = useI18n();
  const action = useAction();
  const list = useList<Row, 'status'>(
    async (query) => {
      const source = fill(view.source, id);
      const params = new URLSearchParams(Object.entries(listParams({ ...query, limit: 10 })).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
      return (await callPath(client, 'GET', `${source}${source.includes('?') ? '&' : '?'}${params}`)) as ListPage<Row>;
    },
    { filters: { status: view.statuses?.[0] ?? '' }, deps: [view.source, id] },
  );
  const actions = (view.actions ?? []).filter((a) => can(a.permission));
  return (
    <div>
      {view.create && can(view.create.permission) && <DeclaredForm form={view.create} onSaved={list.reload} />}
      {view.statuses && <ListToolbar list={list} search={false} filters={[{ name: 'status', label: t('status'), options: view.statuses.map((value) => ({ value })) }]} />}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <ListTable
        list={list}
        caption={label}
        columns={[...view.columns.map((c) => ({ label: text(c.label) })), ...(actions.length > 0 ? [{ label: t('actions') }] : [])]}
        row={(row) => (
          <tr key={String(row.id ?? row[view.row_id ?? 'id'] ?? JSON.stringify(row))}>
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
                      key={`${a.method} ${a.path} ${JSON.stringify(a.body ?? {})}`}
                      disabled={action.busy}
                      onClick={() => void action.run(() => callPath(client, a.method, fill(a.path, String(row[view.row_id ?? 'id'])), a.body)).then((ok) => ok && list.reload())}
                    >
                      {text(a.label)}
                    </button>
                  ))}
              </td>
            )}
          </tr>
        )}
      />
    </div>
  );
}

/** A declared view: the rows of a list or one record's fields. */
export function ExtensionView({ view, id, label }: { view: View; id?: string; label: string }) {
  return view.type === 'fields' ? <RecordFields view={view} id={id} /> : <Rows view={view} id={id} label={label} />;
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
