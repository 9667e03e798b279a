import { localeLiteral, type PageRequest, type SqlPart } from '@qhatu/core';

export interface TranslatedSort {
  /** The translated resource's table, e.g. `catalog_product`, and its name in `catalog_translation`. */
  table: string;
  resource: string;
  /** Its own column sorted when untranslated (`title`, `name`), with an index `(tenant_id, <own>, id)`. */
  own: string;
  locale: string;
  /** The columns of the table the page answers (unqualified). */
  columns: string;
  /** The list's conditions on the table (unqualified), made once per walk. */
  conditions: () => SqlPart[];
  tenantId: string;
  page: PageRequest;
  /** The cursor's title and id (`keyset(...).params`); empty on the first page. */
  cursor: unknown[];
}

/**
 * A page in the order of the titles read in a locale (decision 0096): the translation's title
 * (`sort_title`: a title, a brand's name) where the resource has one, else its own. Two walks of
 * an index each, merged: the locale's translated titles (`catalog_translation_sort`, each row
 * probed by its key for the list's conditions), then the own titles of the rows the locale does
 * not retitle (the table's own title index, each row probed in `catalog_translation` by its
 * primary key), which stops at the last translated title of the page: past it nothing of the
 * page can come, and it would otherwise step over every retitled row of the store. Every row
 * carries `sort_key`, the title it was ordered by, which its cursor is made of.
 */
export function translatedSortPage(spec: TranslatedSort): SqlPart {
  const { table, resource, own, page } = spec;
  const desc = page.sort.startsWith('-');
  const dir = desc ? 'desc' : 'asc';
  const after = (key: string, id: string) => (page.cursor ? [{ sql: `(${key}, ${id}) ${desc ? '<' : '>'} (?::text, ?::uuid)`, params: spec.cursor }] : []);
  const locale = localeLiteral(spec.locale);
  const and = (parts: SqlPart[]) => parts.map((c) => `(${c.sql})`).join(' and ');
  const translated = [...spec.conditions(), ...after('t.k', 't.rid')];
  const untranslated = [
    ...spec.conditions(),
    // A scalar subquery, probed per row on the primary key: as NOT EXISTS the planner would hash the store's translations.
    { sql: `(select tl.sort_title from catalog_translation tl where tl.tenant_id = ${table}.tenant_id and tl.resource = '${resource}'
              and tl.resource_id = ${table}.id and tl.locale = ${locale}) is null`, params: [] },
    ...after(own, 'id'),
  ];
  const limit = page.limit + 1;
  const untranslatedArm = (bound: string) => `(select ${spec.columns}, ${own} as sort_key from ${table}
      where ${and(untranslated)} and ${bound} order by ${own} ${dir}, id ${dir} limit ${limit})`;
  return {
    sql: `with translated as materialized (
        select ${spec.columns}, t.k as sort_key
          from (select resource_id as rid, sort_title as k from catalog_translation
                 where tenant_id = ? and resource = '${resource}' and locale = ${locale} and sort_title is not null) t
          join ${table} on ${table}.tenant_id = ? and ${table}.id = t.rid
         where ${and(translated)} order by t.k ${dir}, t.rid ${dir} limit ${limit}),
      edge as materialized (select sort_key as k, id from translated order by sort_key ${dir}, id ${dir} offset ${limit - 1} limit 1)
    select ${spec.columns}, sort_key from (
      (select ${spec.columns}, sort_key from translated)
      union all ${untranslatedArm(`exists (select from edge) and (${own}, id) ${desc ? '>=' : '<='} (select k, id from edge)`)}
      union all ${untranslatedArm('not exists (select from edge)')}
    ) merged order by sort_key ${dir}, id ${dir} limit ${limit}`,
    params: [spec.tenantId, spec.tenantId, ...translated.flatMap((c) => c.params), ...untranslated.flatMap((c) => c.params), ...untranslated.flatMap((c) => c.params)],
  };
}
