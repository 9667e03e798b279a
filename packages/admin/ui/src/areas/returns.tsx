import { useState, type FormEvent } from 'react';
import { Link, NavLink, Route, Routes, useParams } from 'react-router';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { useInstalled } from '../extensions';
import { ActionForm, LinesTable, LineTitle, optionalNumber, optionalText, valuesOf } from '../forms';
import { useI18n } from '../i18n';
import { ListTable, ListToolbar, listParams, useList } from '../list';
import { Empty, ErrorBox, Field, Loaded, SaveFooter, Status, useAction, useLoad } from '../ui';

type Return = ItemOf<'/api/v1/returns'>;
type Reason = ItemOf<'/api/v1/return-reasons'>;
type Order = ItemOf<'/api/v1/orders'>;
const STATUSES = ['requested', 'approved', 'partially_received', 'received', 'refunded', 'closed', 'rejected', 'cancelled'] as const;
const KINDS = ['return', 'exchange', 'claim'] as const;
const REFUND_METHODS = ['original_payments', 'store_credit', 'account'] as const;
type RefundMethod = (typeof REFUND_METHODS)[number];
/** The refund methods the installed plugins make possible: store credit and a company's account need theirs. */
function useRefundMethods(): RefundMethod[] {
  const credit = useInstalled('store-credit');
  const b2b = useInstalled('b2b');
  return REFUND_METHODS.filter((m) => (m === 'store_credit' ? credit : m === 'account' ? b2b : true));
}

function Tabs() {
  const { t } = useI18n();
  return (
    <nav aria-label={t('returns.sections')} className="tabs">
      <NavLink to="/returns" end>
        {t('returns.title')}
      </NavLink>
      <NavLink to="/returns/reasons">
        {t('returns.reasons')}
      </NavLink>
    </nav>
  );
}

function ReturnList() {
  const { client } = useAuth();
  const { t, money, date } = useI18n();
  const list = useList<Return, 'status' | 'kind'>((query) => client.GET('/api/v1/returns', { params: { query: listParams(query) as never } }));
  return (
    <>
      <h1>{t('returns.title')}</h1>
      <Tabs />
      <ListToolbar
        list={list}
        placeholder={t('returns.search')}
        filters={[
          { name: 'status', label: t('status'), options: STATUSES.map((value) => ({ value })) },
          { name: 'kind', label: t('returns.kind'), options: KINDS.map((value) => ({ value, label: t(`returns.kind.${value}`) })) },
        ]}
      />
      <ListTable
        list={list}
        caption={t('returns.title')}
        empty={<Empty>{t('returns.none')}</Empty>}
        columns={[{ label: t('returns.return') }, { label: t('orders.customer') }, { label: t('returns.kind') }, { label: t('status') }, { label: t('returns.worth'), num: true }, { label: t('created') }]}
        row={(r) => (
          <tr key={r.id}>
            <td>
              <Link to={r.id}>{r.name}</Link>
            </td>
            <td>{r.email}</td>
            <td>{t(`returns.kind.${r.kind}`)}</td>
            <td>
              <Status value={r.status} />
            </td>
            <td className="num">{money(r.refund_amount, r.currency)}</td>
            <td>{date(r.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

/** Receiving what came back, line by line: how many, into which warehouse or written off. */
function Receive({ ret, onDone }: { ret: Return; onDone(): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const warehouses = useLoad(async () => (can('inventory.read') ? (await client.GET('/api/v1/inventory/warehouses', { params: { query: { limit: 100 } } })).data : []), []);
  const lines = ret.lines.filter((l) => l.kind === 'returned' && l.received_quantity < l.quantity);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const v = valuesOf(event.currentTarget);
    const body = {
      lines: lines
        .map((l) => ({ line_id: l.id, quantity: Number(v[`qty-${l.id}`] || 0), disposition: v[`disposition-${l.id}`] as 'restock' | 'damaged', warehouse_id: optionalText(v[`warehouse-${l.id}`]) }))
        .filter((l) => l.quantity > 0),
      complete: v.complete === 'on',
    };
    if (await action.run(() => client.POST('/api/v1/returns/{id}/receive', { params: { path: { id: ret.id } }, body }))) onDone();
  };
  if (lines.length === 0) return null;
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={t('returns.receive')}>
      <h2>{t('returns.receive')}</h2>
      {lines.map((l) => (
        <fieldset key={l.id} className="variants">
          <legend>
            {l.title} {l.sku && <code>{l.sku}</code>} · {t('returns.waiting', { n: l.quantity - l.received_quantity })}
          </legend>
          <div className="grid3">
            <Field label={t('returns.units')}>
              <input name={`qty-${l.id}`} type="number" min={0} max={l.quantity - l.received_quantity} step={1} defaultValue={l.quantity - l.received_quantity} />
            </Field>
            <Field label={t('returns.disposition')}>
              <select name={`disposition-${l.id}`} defaultValue="restock">
                <option value="restock">{t('returns.restock')}</option>
                <option value="damaged">{t('returns.damaged')}</option>
              </select>
            </Field>
            <Field label={t('inventory.warehouse')}>
              <select name={`warehouse-${l.id}`} defaultValue="">
                <option value="">{t('returns.defaultwarehouse')}</option>
                {(warehouses.data ?? []).map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
            </Field>
          </div>
        </fieldset>
      ))}
      <label className="check">
        <input type="checkbox" name="complete" />
        <span>{t('returns.complete')}</span>
      </label>
      <SaveFooter action={action} label={t('returns.receive')} disableWhileBusy />
    </form>
  );
}

function ReturnDetail() {
  const { id = '' } = useParams();
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const methods = useRefundMethods();
  const state = useLoad(() => client.GET('/api/v1/returns/{id}', { params: { path: { id } } }), [id]);
  return (
    <Loaded state={state}>
      {({ data: r }) => {
        const at = { params: { path: { id: r.id } } };
        const then = (work: () => Promise<unknown>) => async () => {
          await work();
          state.reload();
        };
        const write = can('returns.write');
        const refundable = r.status === 'received' || (r.kind === 'claim' && r.resolution === 'refund' && r.status === 'approved');
        const ships = (r.kind === 'exchange' && ['approved', 'partially_received', 'received', 'refunded'].includes(r.status) && !r.shipment) || (r.kind === 'claim' && r.resolution === 'replace' && r.status === 'approved');
        const facts: Array<[string, string]> = [
          [t('orders.customer'), r.email],
          [t('returns.kind'), t(`returns.kind.${r.kind}`)],
          [t('returns.requestedby'), r.requested_by],
          [t('returns.reason'), r.reason_code ?? '—'],
          [t('returns.refundmethod'), r.refund_method ? t(`returns.method.${r.refund_method}`) : '—'],
          [t('returns.items'), money(r.items_amount, r.currency)],
          [t('orders.tax'), money(r.tax_amount, r.currency)],
          [t('orders.shipping'), money(r.shipping_amount, r.currency)],
          [t('returns.worth'), money(r.refund_amount, r.currency)],
          ...(r.kind === 'exchange' ? ([[t('orders.due'), money(r.amount_due, r.currency)], [t('orders.paid'), money(r.amount_paid, r.currency)]] as Array<[string, string]>) : []),
          [t('created'), date(r.created_at)],
        ];
        return (
          <>
            <p>
              <Link to="/returns">← {t('returns.title')}</Link>
            </p>
            <h1>
              {t('returns.return')} {r.name} <Status value={r.status} />
            </h1>
            <p>
              <Link to={`/orders/${r.order_id}`}>{t('returns.order')}</Link>
              {r.note ? ` · ${r.note}` : ''}
            </p>
            <div className="buttons">
              {write && r.status === 'requested' && (
                <ActionForm title={t('returns.approve')} send={then(() => client.POST('/api/v1/returns/{id}/approve', at))} />
              )}
              {write && r.status === 'requested' && (
                <ActionForm
                  title={t('returns.reject')}
                  danger
                  fields={[{ name: 'reason', label: t('returns.rejectreason'), maxLength: 1000 }]}
                  send={async (v) => {
                    await client.POST('/api/v1/returns/{id}/reject', { params: { path: { id: r.id } }, body: { reason: optionalText(v.reason) } });
                    state.reload();
                  }}
                />
              )}
              {can('returns.refund') && refundable && (
                <ActionForm
                  title={t('returns.refund')}
                  fields={[
                    { name: 'method', label: t('returns.refundmethod'), value: r.refund_method ?? 'original_payments', options: methods.map((value) => ({ value, label: t(`returns.method.${value}`) })) },
                    { name: 'amount', label: t('returns.refundamount'), type: 'number', min: 0, max: r.refund_amount, step: 1, hint: t('returns.refundamount.hint', { amount: money(r.refund_amount, r.currency) }) },
                    { name: 'note', label: t('inventory.note'), maxLength: 500 },
                  ]}
                  send={async (v) => {
                    await client.POST('/api/v1/returns/{id}/refund', { params: { path: { id: r.id } }, body: { method: v.method as RefundMethod, amount: optionalNumber(v.amount), note: optionalText(v.note) } });
                    state.reload();
                  }}
                />
              )}
              {can('returns.refund') && r.kind === 'exchange' && r.amount_due > 0 && (
                <ActionForm
                  title={t('returns.payment')}
                  fields={[
                    { name: 'amount', label: t('orders.receipt.amount'), type: 'number', min: 1, step: 1, required: true, value: String(r.amount_due) },
                    { name: 'reference', label: t('orders.receipt.reference'), maxLength: 200 },
                  ]}
                  send={async (v) => {
                    await client.POST('/api/v1/returns/{id}/payments', { params: { path: { id: r.id } }, body: { amount: Number(v.amount), reference: optionalText(v.reference) } });
                    state.reload();
                  }}
                />
              )}
              {write && ships && (
                <ActionForm
                  title={t('returns.ship')}
                  fields={[
                    { name: 'carrier', label: t('orders.fulfil.carrier'), maxLength: 100 },
                    { name: 'tracking_number', label: t('orders.fulfil.tracking'), maxLength: 200 },
                  ]}
                  send={async (v) => {
                    await client.POST('/api/v1/returns/{id}/shipment', { params: { path: { id: r.id } }, body: { carrier: optionalText(v.carrier), tracking_number: optionalText(v.tracking_number) } });
                    state.reload();
                  }}
                />
              )}
              {write && ['received', 'refunded'].includes(r.status) && <ActionForm title={t('returns.close')} send={then(() => client.POST('/api/v1/returns/{id}/close', at))} />}
              {write && ['requested', 'approved'].includes(r.status) && <ActionForm title={t('returns.cancel')} danger send={then(() => client.POST('/api/v1/returns/{id}/cancel', at))} />}
            </div>
            {r.reject_reason && (
              <p className="state">
                {t('returns.rejectreason')}: {r.reject_reason}
              </p>
            )}
            {r.payment_url && (
              <p>
                {t('edits.paymentlink')}: <code>{r.payment_url}</code>
              </p>
            )}
            {write && ['approved', 'partially_received'].includes(r.status) && r.kind !== 'claim' && <Receive ret={r} onDone={state.reload} />}
            <div className="grid2">
              <LinesTable
                label={t('orders.lines')}
                lines={r.lines}
                rowKey={(l) => l.id}
                item={(l) => (
                  <LineTitle title={l.title} sku={l.sku}>
                    {l.kind === 'new' && (
                      <>
                        {' '}
                        <Status value="new" />
                      </>
                    )}
                  </LineTitle>
                )}
                columns={[
                  { label: t('orders.quantity'), num: true, cell: (l) => l.quantity },
                  {
                    label: t('returns.received'),
                    num: true,
                    cell: (l) => (
                      <>
                        {l.received_quantity}
                        {l.received_quantity > 0 && (
                          <small>
                            {' '}
                            ({t('returns.restocked', { n: l.restocked_quantity })}, {t('returns.writtenoff', { n: l.damaged_quantity })})
                          </small>
                        )}
                      </>
                    ),
                  },
                  { label: t('returns.reason'), cell: (l) => l.reason_code ?? '—' },
                  { label: t('returns.worth'), num: true, cell: (l) => money(l.refund_amount, r.currency) },
                ]}
              />
              <section className="card" aria-labelledby="return-summary">
                <h2 id="return-summary">{t('orders.summary')}</h2>
                <dl className="fields">
                  {facts.map(([label, value]) => (
                    <div key={label}>
                      <dt>{label}</dt>
                      <dd>{value}</dd>
                    </div>
                  ))}
                </dl>
              </section>
              <section className="card" aria-labelledby="return-refunds">
                <h2 id="return-refunds">{t('orders.refunds')}</h2>
                {r.refunds.length === 0 && r.refund_method !== 'store_credit' ? (
                  <Empty>{t('returns.norefund')}</Empty>
                ) : (
                  <ul className="plain">
                    {r.refunds.map((f) => (
                      <li key={f.id}>
                        {money(f.amount, r.currency)} · <Status value={f.status} /> {f.failure_reason ?? ''}
                      </li>
                    ))}
                    {r.refunded_at && r.refund_method === 'store_credit' && (
                      <li>
                        {t('returns.method.store_credit')} · {date(r.refunded_at)}
                      </li>
                    )}
                  </ul>
                )}
                {r.refunded_at && (
                  <p>
                    {t('returns.refundedat')}: {date(r.refunded_at)}
                  </p>
                )}
              </section>
              {r.shipment && (
                <section className="card" aria-labelledby="return-shipment">
                  <h2 id="return-shipment">{t('returns.shipment')}</h2>
                  <p>
                    {r.shipment.carrier ?? ''} {r.shipment.tracking_number ?? ''} · {date(r.shipment.shipped_at)}
                  </p>
                </section>
              )}
            </div>
          </>
        );
      }}
    </Loaded>
  );
}

function NewReason({ onSaved }: { onSaved(): void }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const v = valuesOf(form);
    if (await action.run(() => client.POST('/api/v1/return-reasons', { body: { code: v.code.trim(), label: v.label.trim() } }))) {
      form.reset();
      onSaved();
    }
  };
  return (
    <form className="card inline-form" onSubmit={(e) => void submit(e)} aria-label={t('returns.newreason')}>
      <Field label={t('returns.code')} hint={t('returns.code.hint')}>
        <input name="code" required maxLength={50} pattern="[a-z0-9_\-]+" spellCheck={false} />
      </Field>
      <Field label={t('returns.label')}>
        <input name="label" required maxLength={200} />
      </Field>
      <SaveFooter action={action} label={t('add')} disableWhileBusy />
    </form>
  );
}

function ReturnSettings() {
  const { client } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const state = useLoad(() => client.GET('/api/v1/returns/settings', {}), []);
  return (
    <section className="card" aria-labelledby="return-settings">
      <h2 id="return-settings">{t('returns.settings')}</h2>
      <Loaded state={state}>
        {({ data }) => (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              const v = valuesOf(e.currentTarget);
              const body = { shipping_refund: v.shipping_refund as typeof data.shipping_refund, window_days: optionalNumber(v.window_days) ?? null };
              void action.run(() => client.PUT('/api/v1/returns/settings', { body }));
            }}
            aria-label={t('returns.settings')}
          >
            <div className="grid3">
              <Field label={t('returns.shippingrefund')}>
                <select name="shipping_refund" defaultValue={data.shipping_refund}>
                  {(['none', 'proportional', 'full_return'] as const).map((p) => (
                    <option key={p} value={p}>
                      {t(`returns.shippingrefund.${p}`)}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label={t('returns.window')} hint={t('returns.window.hint')}>
                <input name="window_days" type="number" min={1} max={3650} step={1} defaultValue={data.window_days ?? ''} />
              </Field>
            </div>
            <SaveFooter action={action} disableWhileBusy />
          </form>
        )}
      </Loaded>
    </section>
  );
}

function Reasons() {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const list = useList<Reason, 'active'>((query) => client.GET('/api/v1/return-reasons', { params: { query: listParams({ ...query, q: undefined }) as never } }));
  const write = can('returns.write');
  const change = (work: () => Promise<unknown>) => void action.run(work).then((ok) => ok && list.reload());
  return (
    <>
      <h1>{t('returns.reasons')}</h1>
      <Tabs />
      {write && <NewReason onSaved={list.reload} />}
      <ListToolbar
        list={list}
        search={false}
        filters={[{ name: 'active', label: t('returns.offered'), options: [{ value: 'true', label: t('yes') }, { value: 'false', label: t('no') }] }]}
      />
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <ListTable
        list={list}
        caption={t('returns.reasons')}
        columns={[{ label: t('returns.code') }, { label: t('returns.label') }, { label: t('returns.offered') }, ...(write ? [{ label: t('actions') }] : [])]}
        row={(r) => (
          <tr key={r.id}>
            <td>
              <code>{r.code}</code>
            </td>
            <td>{r.label}</td>
            <td>{r.active ? t('yes') : t('no')}</td>
            {write && (
              <td className="row-actions">
                <button type="button" disabled={action.busy} onClick={() => change(() => client.PATCH('/api/v1/return-reasons/{id}', { params: { path: { id: r.id } }, body: { active: !r.active } }))}>
                  {r.active ? t('settings.disable') : t('settings.enable')} <span className="sr-only">{r.code}</span>
                </button>
                <button type="button" className="danger" disabled={action.busy} onClick={() => change(() => client.DELETE('/api/v1/return-reasons/{id}', { params: { path: { id: r.id } } }))}>
                  {t('remove')} <span className="sr-only">{r.code}</span>
                </button>
              </td>
            )}
          </tr>
        )}
      />
      {write && <ReturnSettings />}
    </>
  );
}

/** An order's returns on its page, and asking for one of what was fulfilled. */
export function OrderReturns({ order }: { order: Order }) {
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const [asking, setAsking] = useState(false);
  const action = useAction();
  const methods = useRefundMethods();
  const list = useList<Return>((query) => client.GET('/api/v1/orders/{id}/returns', { params: { path: { id: order.id }, query: { limit: query.limit, cursor: query.cursor } } }), { limit: 10, deps: [order.id] });
  const reasons = useLoad(async () => (asking ? (await client.GET('/api/v1/return-reasons', { params: { query: { 'filter[active]': 'true', limit: 100 } as never } })).data : []), [asking]);
  const fulfilled = order.line_items.filter((l) => l.fulfilled_quantity > 0);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const v = valuesOf(event.currentTarget);
    const lines = fulfilled.map((l) => ({ line_item_id: l.id, quantity: Number(v[`qty-${l.id}`] || 0) })).filter((l) => l.quantity > 0);
    const body = { order_id: order.id, kind: 'return' as const, lines, reason_code: v.reason_code, note: optionalText(v.note), refund_method: (optionalText(v.refund_method) as RefundMethod | undefined) };
    if (await action.run(() => client.POST('/api/v1/returns', { body }))) {
      setAsking(false);
      list.reload();
    }
  };
  return (
    <section className="card" aria-labelledby="order-returns">
      <h2 id="order-returns">{t('returns.oforder')}</h2>
      {can('returns.write') && fulfilled.length > 0 && !asking && (
        <button type="button" className="primary" onClick={() => setAsking(true)}>
          {t('returns.ask')}
        </button>
      )}
      {asking && (
        <Loaded state={reasons}>
          {(found) => (
            <form className="card" onSubmit={(e) => void submit(e)} aria-label={t('returns.ask')}>
              <h3>{t('returns.ask')}</h3>
              {fulfilled.map((l) => (
                <Field key={l.id} label={`${l.title} · ${l.variant_title}`} hint={t('returns.fulfilled', { n: l.fulfilled_quantity })}>
                  <input name={`qty-${l.id}`} type="number" min={0} max={l.fulfilled_quantity} step={1} defaultValue={0} />
                </Field>
              ))}
              <Field label={t('returns.reason')}>
                <select name="reason_code" required>
                  {found.map((r) => (
                    <option key={r.id} value={r.code}>
                      {r.label}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label={t('returns.refundmethod')}>
                <select name="refund_method" defaultValue="">
                  <option value="">{t('returns.method.default')}</option>
                  {methods.map((m) => (
                    <option key={m} value={m}>
                      {t(`returns.method.${m}`)}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label={t('inventory.note')}>
                <input name="note" maxLength={2000} />
              </Field>
              {found.length === 0 && <p className="state">{t('returns.noreasons')}</p>}
              {action.error !== undefined && <ErrorBox error={action.error} />}
              <div className="buttons">
                <button type="submit" className="primary" disabled={action.busy || found.length === 0}>
                  {action.busy ? t('saving') : t('returns.ask')}
                </button>
                <button type="button" onClick={() => setAsking(false)}>
                  {t('cancel')}
                </button>
              </div>
            </form>
          )}
        </Loaded>
      )}
      <ListTable
        list={list}
        caption={t('returns.oforder')}
        empty={<p className="state empty">{t('returns.none')}</p>}
        columns={[{ label: t('returns.return') }, { label: t('returns.kind') }, { label: t('status') }, { label: t('returns.worth'), num: true }, { label: t('created') }]}
        row={(r) => (
          <tr key={r.id}>
            <td>
              <Link to={`/returns/${r.id}`}>{r.name}</Link>
            </td>
            <td>{t(`returns.kind.${r.kind}`)}</td>
            <td>
              <Status value={r.status} />
            </td>
            <td className="num">{money(r.refund_amount, r.currency)}</td>
            <td>{date(r.created_at)}</td>
          </tr>
        )}
      />
    </section>
  );
}

export default function Returns() {
  return (
    <Routes>
      <Route index element={<ReturnList />} />
      <Route path="reasons" element={<Reasons />} />
      <Route path=":id" element={<ReturnDetail />} />
    </Routes>
  );
}
