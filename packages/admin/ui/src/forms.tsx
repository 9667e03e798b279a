import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useAuth } from './auth';
import { useI18n } from './i18n';
import { Empty, ErrorBox, Field, Loaded, useAction, useLoad } from './ui';

/** A field of an `ActionForm`: an input, or a select when it has options. */
export interface FormField {
  name: string;
  label: string;
  type?: string;
  required?: boolean;
  value?: string;
  hint?: string;
  min?: number;
  max?: number;
  step?: number | 'any';
  maxLength?: number;
  options?: Array<{ value: string; label?: string }>;
}

/** The values of a form, by name, as strings (check-boxes: "on" when checked, absent otherwise). */
export const valuesOf = (form: HTMLFormElement): Record<string, string> => Object.fromEntries([...new FormData(form)].map(([k, v]) => [k, String(v)]));

/** An optional whole number typed in a field: undefined when left empty. */
export const optionalNumber = (value: string | undefined): number | undefined => (value === undefined || value.trim() === '' ? undefined : Number(value));

/** An optional text typed in a field: undefined when left empty. */
export const optionalText = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

export function FormFields({ fields }: { fields: FormField[] }) {
  return (
    <>
      {fields.map((f) =>
        f.type === 'checkbox' ? (
          <label key={f.name} className="check">
            <input type="checkbox" name={f.name} defaultChecked={f.value === 'on'} />
            <span>{f.label}</span>
          </label>
        ) : (
        <Field key={f.name} label={f.label} hint={f.hint}>
          {f.options ? (
            <select name={f.name} defaultValue={f.value} required={f.required}>
              {f.options.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label ?? o.value.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          ) : (
            <input name={f.name} type={f.type ?? 'text'} required={f.required} defaultValue={f.value} min={f.min} max={f.max} step={f.step} maxLength={f.maxLength} />
          )}
        </Field>
        ),
      )}
    </>
  );
}

/**
 * One write behind a button: the button opens a small form (its `fields`), `send` gets their
 * values; a form without fields is a confirmation. Closed again once the write succeeded.
 */
export function ActionForm({ title, fields = [], send, danger, children }: { title: string; fields?: FormField[]; send(values: Record<string, string>): Promise<unknown>; danger?: boolean; children?: ReactNode }) {
  const { t } = useI18n();
  const action = useAction();
  const [open, setOpen] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (await action.run(() => send(valuesOf(event.currentTarget)))) setOpen(false);
  };
  if (!open)
    return (
      <button type="button" className={danger ? 'danger' : 'primary'} onClick={() => setOpen(true)}>
        {title}
      </button>
    );
  return (
    <form className="card action-form" onSubmit={(e) => void submit(e)} aria-label={title}>
      <h3>{title}</h3>
      <FormFields fields={fields} />
      {children}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <div className="buttons">
        <button type="submit" className={danger ? 'danger' : 'primary'} disabled={action.busy}>
          {action.busy ? t('saving') : title}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {t('cancel')}
        </button>
      </div>
    </form>
  );
}

export interface FoundVariant {
  id: string;
  label: string;
  price: number;
  currency: string;
}

/**
 * A variant found by its product's title or SKU: a search box (Enter), then a select of the
 * variants of the products found, named `variant_id` inside the form that holds `children`.
 */
export function VariantPicker({ label, children, onSubmit, busy, submitLabel }: { label: string; children?: ReactNode; onSubmit(variant: FoundVariant, form: HTMLFormElement): Promise<boolean>; busy: boolean; submitLabel: string }) {
  const { client } = useAuth();
  const { t, money } = useI18n();
  const [q, setQ] = useState('');
  const [text, setText] = useState('');
  const found = useLoad(async () => (q ? (await client.GET('/api/v1/catalog/products', { params: { query: { q, limit: 10 } } })).data : []), [q]);
  const variants: FoundVariant[] = (found.data ?? []).flatMap((p) =>
    p.variants.map((v) => ({ id: v.id, price: v.price, currency: v.currency, label: `${p.title} · ${v.title}${v.sku ? ` (${v.sku})` : ''} · ${money(v.price, v.currency)}` })),
  );
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const id = String(new FormData(form).get('variant_id'));
    const variant = variants.find((v) => v.id === id);
    if (variant && (await onSubmit(variant, form))) form.reset();
  };
  return (
    <div>
      <form
        className="toolbar"
        role="search"
        aria-label={t('forms.findvariant')}
        onSubmit={(e) => {
          e.preventDefault();
          setQ(text.trim());
        }}
      >
        <Field label={t('forms.findvariant')}>
          <input type="search" value={text} placeholder={t('products.search')} onChange={(e) => setText(e.target.value)} />
        </Field>
        <button type="submit">{t('search')}</button>
      </form>
      {q && (
        <Loaded state={found}>
          {() =>
            variants.length === 0 ? (
              <Empty />
            ) : (
              <form className="inline-form" onSubmit={(e) => void submit(e)} aria-label={label}>
                <Field label={t('products.variant')}>
                  <select name="variant_id">
                    {variants.map((v) => (
                      <option key={v.id} value={v.id}>
                        {v.label}
                      </option>
                    ))}
                  </select>
                </Field>
                {children}
                <button type="submit" className="primary" disabled={busy}>
                  {submitLabel}
                </button>
              </form>
            )
          }
        </Loaded>
      )}
    </div>
  );
}

/**
 * A table's scrolling box, reachable with the keyboard (a table of no link or button that is wider
 * than the screen is scrolled from its box), named for the table it holds.
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

/** A column of a `LinesTable` after the item: its header and each line's cell. */
export interface LineColumn<L> {
  label: string;
  num?: boolean;
  /** A cell of buttons (kept on one line). */
  actions?: boolean;
  cell(line: L): ReactNode;
}

/** How a line is named in its table: the item's title, its variant and its SKU, and what follows. */
export function LineTitle({ title, variant, sku, children }: { title: string; variant?: string | null; sku?: string | null; children?: ReactNode }) {
  return (
    <>
      {title} {variant && <small>{variant}</small>} {sku && <code>{sku}</code>}
      {children}
    </>
  );
}

/**
 * The line items of an order, a draft, a quote, an edit or a return: the item, then the columns
 * the page needs, in a card of its own named by `label` (`bare`: the table alone, inside a card of
 * the caller's). Its box scrolls with the keyboard on a phone.
 */
export function LinesTable<L>({ label, lines, rowKey, item, columns, empty, bare, before, children }: {
  label: string;
  lines: readonly L[];
  rowKey(line: L, index: number): string;
  item(line: L): ReactNode;
  columns: Array<LineColumn<L>>;
  empty?: ReactNode;
  bare?: boolean;
  /** Shown between the heading and the table (an error of the lines' actions). */
  before?: ReactNode;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  const id = useId();
  const table =
    lines.length === 0 ? (
      (empty ?? <Empty />)
    ) : (
      <TableWrap label={label}>
        <table>
          <caption className="sr-only">{label}</caption>
          <thead>
            <tr>
              <th scope="col">{t('products.name')}</th>
              {columns.map((c) => (
                <th key={c.label} scope="col" className={c.num ? 'num' : undefined}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {lines.map((line, i) => (
              <tr key={rowKey(line, i)}>
                <td>{item(line)}</td>
                {columns.map((c) => (
                  <td key={c.label} className={c.num ? 'num' : c.actions ? 'row-actions' : undefined}>
                    {c.cell(line)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    );
  if (bare) return table;
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{label}</h2>
      {before}
      {table}
      {children}
    </section>
  );
}

/** The amounts of an order, a draft or a quote, labelled, in a card named by `label`; `children` below them. */
export function Totals({ label, currency, rows, children }: { label: string; currency: string; rows: Array<[string, number]>; children?: ReactNode }) {
  const { money } = useI18n();
  const id = useId();
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{label}</h2>
      <dl className="fields">
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{money(value, currency)}</dd>
          </div>
        ))}
      </dl>
      {children}
    </section>
  );
}
