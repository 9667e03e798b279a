import { useState, type ReactNode } from 'react';
import { useI18n } from './i18n';
import { Field, Loaded, Pager, useLoad, usePager } from './ui';

/** A page of a list endpoint, as every list of the API answers it. */
export interface ListPage<T> {
  data: T[];
  meta: { pagination?: { cursor?: string | null; has_next?: boolean } };
}

/** What a list's loader is asked for: the page's cursor, the search and the chosen filters. */
export interface ListQuery<F extends string> {
  limit: number;
  cursor: string | undefined;
  q: string | undefined;
  filters: Partial<Record<F, string>>;
}

/** The query parameters of a list call: `q`, `cursor`, `limit` and `filter[<name>]` for each chosen filter. */
export function listParams<F extends string>(query: ListQuery<F>): Record<string, string | number | undefined> {
  const params: Record<string, string | number | undefined> = { limit: query.limit, cursor: query.cursor, q: query.q };
  for (const [name, value] of Object.entries(query.filters)) if (value) params[`filter[${name}]`] = value as string;
  return params;
}

/**
 * A list page's state: its search, its filters and the cursor pages, reloaded when any of them
 * changes (back to the first page when the search or a filter does); `deps` reload it too.
 */
export function useList<T, F extends string = string>(load: (query: ListQuery<F>) => Promise<ListPage<T>>, options: { limit?: number; filters?: Partial<Record<F, string>>; deps?: unknown[] } = {}) {
  const [filters, setFilters] = useState<Partial<Record<F, string>>>(options.filters ?? {});
  const [q, setQ] = useState('');
  const deps = options.deps ?? [];
  const pager = usePager([q, JSON.stringify(filters), ...deps]);
  const state = useLoad(() => load({ limit: options.limit ?? 25, cursor: pager.cursor, q: q || undefined, filters }), [q, JSON.stringify(filters), pager.cursor, ...deps]);
  return {
    state,
    pager,
    q,
    filters,
    search: (value: string) => setQ(value.trim()),
    setFilter: (name: F, value: string) => setFilters((f) => ({ ...f, [name]: value })),
    reload: state.reload,
  };
}

export type List<T, F extends string = string> = ReturnType<typeof useList<T, F>>;

export interface ListFilter<F extends string> {
  name: F;
  label: string;
  options: Array<{ value: string; label?: string }>;
}

/** The search box and the filters of a list, as a search form. */
export function ListToolbar<F extends string>({ list, search = true, placeholder, filters = [], children }: { list: List<unknown, F>; search?: boolean; placeholder?: string; filters?: ListFilter<F>[]; children?: ReactNode }) {
  const { t } = useI18n();
  const [text, setText] = useState(list.q);
  return (
    <form
      className="toolbar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        list.search(text);
      }}
    >
      {search && (
        <Field label={t('search')}>
          <input type="search" value={text} placeholder={placeholder} onChange={(e) => setText(e.target.value)} />
        </Field>
      )}
      {filters.map((f) => (
        <Field key={f.name} label={f.label}>
          <select value={list.filters[f.name] ?? ''} onChange={(e) => list.setFilter(f.name, e.target.value)}>
            <option value="">{t('all')}</option>
            {f.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label ?? o.value.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </Field>
      ))}
      {search && <button type="submit">{t('search')}</button>}
      {children}
    </form>
  );
}

/**
 * A list's rows as a table with its caption and header, its loading, empty and error states, and its
 * pager. `region`: its scrolling box is reachable with the keyboard, named by the caption (a table
 * with no link or button in it, wider than a phone, is scrolled from its box).
 */
export function ListTable<T>({ list, caption, columns, row, empty, region }: { list: List<T, any>; caption: string; columns: Array<{ label: string; num?: boolean }>; row(item: T): ReactNode; empty?: ReactNode; region?: boolean }) {
  return (
    <Loaded state={list.state} empty={empty === undefined ? (d) => d.data.length === 0 : undefined}>
      {(d) =>
        d.data.length === 0 ? (
          empty
        ) : (
          <>
            <div className="table-wrap" {...(region ? { tabIndex: 0, role: 'region', 'aria-label': caption } : {})}>
              <table>
                <caption className="sr-only">{caption}</caption>
                <thead>
                  <tr>
                    {columns.map((c) => (
                      <th key={c.label} scope="col" className={c.num ? 'num' : undefined}>
                        {c.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>{d.data.map(row)}</tbody>
              </table>
            </div>
            <Pager pager={list.pager} pagination={d.meta.pagination} />
          </>
        )
      }
    </Loaded>
  );
}
