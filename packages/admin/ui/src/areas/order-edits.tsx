import { useState, type FormEvent } from 'react';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { FormFields, LinesTable, LineTitle, optionalNumber, optionalText, TableWrap, valuesOf, VariantPicker, type FoundVariant } from '../forms';
import { useI18n } from '../i18n';
import { ListTable, useList } from '../list';
import { ErrorBox, Field, Status, useAction } from '../ui';

type Order = ItemOf<'/api/v1/orders'>;
type Edit = ItemOf<'/api/v1/orders/{id}/edits'>;
type Snapshot = Edit['after'];

/** The orders an edit may change (the plugin refuses the others with 409). */
export const EDITABLE = ['pending', 'confirmed', 'paid', 'ready_to_ship', 'partially_fulfilled'];

/** The totals of an order before and after an edit, side by side. */
function Totals({ edit }: { edit: Edit }) {
  const { t, money } = useI18n();
  const rows: Array<[string, (s: Snapshot) => number]> = [
    [t('orders.subtotal'), (s) => s.subtotal],
    [t('orders.discount'), (s) => -s.discount_total],
    [t('orders.shipping'), (s) => s.shipping_total],
    [t('orders.tax'), (s) => s.tax_total],
    [t('total'), (s) => s.total],
  ];
  return (
    <TableWrap label={t('edits.totals')}>
      <table>
        <caption className="sr-only">{t('edits.totals')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('edits.figure')}</th>
            <th scope="col" className="num">
              {t('edits.before')}
            </th>
            <th scope="col" className="num">
              {t('edits.after')}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([label, of]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              <td className="num">{money(of(edit.before), edit.currency)}</td>
              <td className="num">{money(of(edit.after), edit.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** An edit's preview: its lines as they would be, the totals, the difference; confirmed or dropped while open. */
function Preview({ edit, onDone, onClose }: { edit: Edit; onDone(): void; onClose?: () => void }) {
  const { client, can } = useAuth();
  const { t, money } = useI18n();
  const action = useAction();
  const [notify, setNotify] = useState(true);
  const writable = can('order-edits.write') && edit.status === 'open';
  const run = (work: () => Promise<unknown>) => void action.run(work).then((ok) => ok && onDone());
  return (
    <section className="card" aria-labelledby={`edit-${edit.id}`}>
      <h3 id={`edit-${edit.id}`}>
        {edit.status === 'open' ? t('edits.preview') : `${t('edits.version')} ${edit.version ?? '—'}`} <Status value={edit.status} />
      </h3>
      <LinesTable
        bare
        label={t('orders.lines')}
        lines={edit.after.lines}
        rowKey={(l, i) => l.line_item_id ?? `new-${i}`}
        item={(l) => <LineTitle title={l.title} variant={l.variant_title} />}
        columns={[
          { label: t('orders.quantity'), num: true, cell: (l) => l.quantity },
          { label: t('orders.tax'), num: true, cell: (l) => money(l.tax_amount, edit.currency) },
          { label: t('total'), num: true, cell: (l) => money(l.total, edit.currency) },
          { label: t('edits.change'), cell: (l) => <Status value={l.change} /> },
        ]}
      />
      <Totals edit={edit} />
      <dl className="fields">
        <div>
          <dt>{t('edits.difference')}</dt>
          <dd>{money(edit.difference, edit.currency)}</dd>
        </div>
        <div>
          <dt>{t('edits.due')}</dt>
          <dd>{money(edit.amount_due, edit.currency)}</dd>
        </div>
        <div>
          <dt>{t('edits.refund')}</dt>
          <dd>{money(edit.refund_amount, edit.currency)}</dd>
        </div>
        {edit.after.coupon && (
          <div>
            <dt>{t('drafts.coupon')}</dt>
            <dd>
              {edit.after.coupon.code} · {money(edit.after.coupon.amount, edit.currency)} {edit.after.coupon.refusal ? `(${edit.after.coupon.refusal.replace(/_/g, ' ')})` : ''}
            </dd>
          </div>
        )}
      </dl>
      {edit.payment_url && (
        <p>
          {t('edits.paymentlink')}: <code>{edit.payment_url}</code>
        </p>
      )}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      {!writable && onClose && (
        <button type="button" onClick={onClose}>
          {t('close')}
        </button>
      )}
      {writable && (
        <div className="buttons">
          <label className="check">
            <input type="checkbox" checked={notify} onChange={(e) => setNotify(e.target.checked)} />
            <span>{t('edits.notify')}</span>
          </label>
          <button type="button" className="primary" disabled={action.busy} onClick={() => run(() => client.POST('/api/v1/order-edits/{id}/confirm', { params: { path: { id: edit.id } }, body: { notify } }))}>
            {t('edits.confirm')}
          </button>
          <button type="button" className="danger" disabled={action.busy} onClick={() => run(() => client.POST('/api/v1/order-edits/{id}/cancel', { params: { path: { id: edit.id } } }))}>
            {t('edits.drop')}
          </button>
        </div>
      )}
    </section>
  );
}

/** The editor: each line's new quantity (0 removes it), lines added, the shipping; previewed, nothing changes yet. */
function Editor({ order, onPreviewed, onClose }: { order: Order; onPreviewed(edit: Edit): void; onClose(): void }) {
  const { client, can } = useAuth();
  const { t, money } = useI18n();
  const action = useAction();
  const adding = useAction();
  const [added, setAdded] = useState<Array<FoundVariant & { quantity: number }>>([]);
  const [shipping, setShipping] = useState<'keep' | 'change' | 'none'>('keep');
  const override = can('order-edits.override-price');
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const v = valuesOf(event.currentTarget);
    const changes: Array<{ action: 'add'; variant_id: string; quantity: number } | { action: 'update'; line_item_id: string; quantity: number } | { action: 'remove'; line_item_id: string }> = [];
    for (const line of order.line_items) {
      const quantity = Number(v[`qty-${line.id}`]);
      if (quantity === line.quantity) continue;
      changes.push(quantity === 0 ? { action: 'remove', line_item_id: line.id } : { action: 'update', line_item_id: line.id, quantity });
    }
    for (const a of added) changes.push({ action: 'add', variant_id: a.id, quantity: a.quantity });
    const price = optionalNumber(v.price);
    const body = {
      changes,
      note: optionalText(v.note),
      ...(shipping === 'none' ? { shipping: null } : shipping === 'change' ? { shipping: { carrier: v.carrier.trim(), service: v.service.trim(), price, reason: price === undefined ? undefined : optionalText(v.reason) } } : {}),
    };
    let edit: Edit | undefined;
    if (await action.run(async () => (edit = (await client.POST('/api/v1/orders/{id}/edits', { params: { path: { id: order.id } }, body })).data))) onPreviewed(edit!);
  };
  return (
    <section className="card" aria-labelledby="edit-order">
      <h3 id="edit-order">{t('edits.edit')}</h3>
      <VariantPicker
        label={t('edits.addline')}
        busy={adding.busy}
        submitLabel={t('edits.addline')}
        onSubmit={async (variant, form) => {
          const quantity = Number(new FormData(form).get('quantity'));
          setAdded((list) => [...list, { ...variant, quantity }]);
          return true;
        }}
      >
        <Field label={t('orders.quantity')}>
          <input name="quantity" type="number" min={1} step={1} required defaultValue="1" />
        </Field>
      </VariantPicker>
      <form onSubmit={(e) => void submit(e)} aria-label={t('edits.edit')}>
        <fieldset>
          <legend>{t('orders.lines')}</legend>
          {order.line_items.map((l) => (
            <Field key={l.id} label={`${l.title} · ${l.variant_title}`} hint={l.fulfilled_quantity > 0 ? t('edits.fulfilled', { n: l.fulfilled_quantity }) : t('edits.zero')}>
              <input name={`qty-${l.id}`} type="number" min={l.fulfilled_quantity} step={1} required defaultValue={l.quantity} />
            </Field>
          ))}
          {added.length > 0 && (
            <ul className="plain" aria-label={t('edits.added')}>
              {added.map((a, i) => (
                <li key={`${a.id}-${i}`}>
                  {a.label} × {a.quantity} · {money(a.price * a.quantity, a.currency)}{' '}
                  <button type="button" onClick={() => setAdded((list) => list.filter((_, j) => j !== i))}>
                    {t('remove')}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </fieldset>
        <Field label={t('orders.shipping')}>
          <select name="shipping_mode" value={shipping} onChange={(e) => setShipping(e.target.value as typeof shipping)}>
            <option value="keep">{t('edits.shipping.keep')}</option>
            <option value="change">{t('edits.shipping.change')}</option>
            <option value="none">{t('edits.shipping.none')}</option>
          </select>
        </Field>
        {shipping === 'change' && (
          <div className="grid3">
            <FormFields
              fields={[
                { name: 'carrier', label: t('settings.carrier'), required: true },
                { name: 'service', label: t('settings.servicecode'), required: true },
                ...(override ? [{ name: 'price', label: t('drafts.customprice'), type: 'number', min: 0, step: 1 }, { name: 'reason', label: t('drafts.reason') }] : []),
              ]}
            />
          </div>
        )}
        <Field label={t('inventory.note')}>
          <input name="note" maxLength={1000} />
        </Field>
        {action.error !== undefined && <ErrorBox error={action.error} />}
        <div className="buttons">
          <button type="submit" className="primary" disabled={action.busy}>
            {action.busy ? t('saving') : t('edits.previewit')}
          </button>
          <button type="button" onClick={onClose}>
            {t('cancel')}
          </button>
        </div>
      </form>
    </section>
  );
}

/** An order's edits on its page: start one, preview it, confirm or drop it; the confirmed ones are its versions. */
export default function OrderEdits({ order, onChanged }: { order: Order; onChanged(): void }) {
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const [editing, setEditing] = useState(false);
  const [shown, setShown] = useState<Edit | null>(null);
  const list = useList<Edit>((query) => client.GET('/api/v1/orders/{id}/edits', { params: { path: { id: order.id }, query: { limit: query.limit, cursor: query.cursor } } }), { limit: 10, deps: [order.id, order.updated_at] });
  const open = list.state.data?.data.find((e) => e.status === 'open');
  const done = () => {
    setShown(null);
    list.reload();
    onChanged();
  };
  return (
    <section className="card" aria-labelledby="order-edits">
      <h2 id="order-edits">{t('edits.title')}</h2>
      {can('order-edits.write') && EDITABLE.includes(order.status) && !editing && !open && !shown && (
        <button type="button" className="primary" onClick={() => setEditing(true)}>
          {t('edits.edit')}
        </button>
      )}
      {editing && (
        <Editor
          order={order}
          onClose={() => setEditing(false)}
          onPreviewed={(edit) => {
            setEditing(false);
            setShown(edit);
            list.reload();
          }}
        />
      )}
      {(shown ?? open) && <Preview edit={(shown ?? open)!} onDone={done} onClose={shown ? () => setShown(null) : undefined} />}
      <ListTable
        list={list}
        caption={t('edits.title')}
        empty={<p className="state empty">{t('edits.none')}</p>}
        columns={[{ label: t('edits.version') }, { label: t('status') }, { label: t('edits.difference'), num: true }, { label: t('edits.refund'), num: true }, { label: t('created') }, { label: t('actions') }]}
        row={(e) => (
          <tr key={e.id}>
            <td>{e.version ?? '—'}</td>
            <td>
              <Status value={e.status} />
            </td>
            <td className="num">{money(e.difference, e.currency)}</td>
            <td className="num">{money(e.refund_amount, e.currency)}</td>
            <td>{date(e.confirmed_at ?? e.created_at)}</td>
            <td>
              <button type="button" onClick={() => setShown(e)} aria-label={`${t('edits.show')} ${e.version ?? t('edits.preview')}`}>
                {t('edits.show')}
              </button>
            </td>
          </tr>
        )}
      />
    </section>
  );
}
