import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import type { components, ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { useInstalled } from '../extensions';
import { ActionForm, FormFields, LinesTable, LineTitle, optionalNumber, optionalText, Totals, valuesOf, VariantPicker } from '../forms';
import { useI18n } from '../i18n';
import { ListTable, ListToolbar, listParams, useList } from '../list';
import { Empty, ErrorBox, Field, Loaded, SaveFooter, Status, useAction, useLoad } from '../ui';
import { DraftSettings, ShippingForm } from './draft-extras';

type Draft = ItemOf<'/api/v1/draft-orders'>;
type Line = Draft['line_items'][number];
type Patch = components['schemas']['DraftOrderPatch'];
/** Runs a change of the draft; the draft it answers is shown. Throws the refusal. */
type Apply = (work: () => Promise<{ data: Draft }>) => Promise<void>;
const STATUSES = ['open', 'invoice_sent', 'completed', 'cancelled'] as const;

function DraftList() {
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const list = useList<Draft, 'status'>((query) => client.GET('/api/v1/draft-orders', { params: { query: listParams(query) as never } }));
  return (
    <>
      <div className="title-row">
        <h1>{t('drafts.title')}</h1>
        <div className="buttons">
          <Link className="button" to="settings">
            {t('drafts.settings')}
          </Link>
          {can('draft-orders.write') && (
            <Link className="button primary" to="new">
              {t('drafts.new')}
            </Link>
          )}
        </div>
      </div>
      <ListToolbar list={list} placeholder={t('drafts.search')} filters={[{ name: 'status', label: t('status'), options: STATUSES.map((value) => ({ value })) }]} />
      <ListTable
        list={list}
        caption={t('drafts.title')}
        empty={<Empty>{t('drafts.none')}</Empty>}
        columns={[{ label: t('drafts.draft') }, { label: t('orders.customer') }, { label: t('status') }, { label: t('total'), num: true }, { label: t('created') }]}
        row={(d) => (
          <tr key={d.id}>
            <td>
              <Link to={d.id}>{d.name}</Link>
            </td>
            <td>{d.email ?? '—'}</td>
            <td>
              <Status value={d.status} />
            </td>
            <td className="num">{money(d.total, d.currency)}</td>
            <td>{date(d.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

/** A customer account found by e-mail or name (Enter), chosen in a select named `customer_id`. */
function CustomerPicker({ current }: { current?: { id: string; email: string | null } | null }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const [q, setQ] = useState('');
  const [text, setText] = useState('');
  const found = useLoad(async () => (q && can('customers.read') ? (await client.GET('/api/v1/customers', { params: { query: { q, limit: 10 } as never } })).data : []), [q]);
  const options = [...(current ? [{ id: current.id, label: current.email ?? current.id }] : []), ...(found.data ?? []).filter((c) => c.id !== current?.id).map((c) => ({ id: c.id, label: `${c.email} ${c.first_name ?? ''} ${c.last_name ?? ''}`.trim() }))];
  return (
    <div className="grid3">
      {can('customers.read') && (
        <Field label={t('drafts.findcustomer')}>
          <input
            type="search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                setQ(text.trim());
              }
            }}
          />
        </Field>
      )}
      <Field label={t('drafts.account')}>
        <select name="customer_id" defaultValue={current?.id ?? ''} key={options.map((o) => o.id).join()}>
          <option value="">{t('drafts.noaccount')}</option>
          {options.map((o) => (
            <option key={o.id} value={o.id}>
              {o.label}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
}

function NewDraft() {
  const { client } = useAuth();
  const { t } = useI18n();
  const navigate = useNavigate();
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const v = valuesOf(event.currentTarget);
    let id = '';
    const body = { customer_id: optionalText(v.customer_id), email: optionalText(v.email), note: optionalText(v.note) };
    if (await action.run(async () => (id = (await client.POST('/api/v1/draft-orders', { body })).data.id))) navigate(`/drafts/${id}`);
  };
  return (
    <>
      <p>
        <Link to="..">← {t('drafts.title')}</Link>
      </p>
      <h1>{t('drafts.new')}</h1>
      <form className="card" onSubmit={(e) => void submit(e)} aria-label={t('drafts.new')}>
        <CustomerPicker />
        <Field label={t('customers.email')} hint={t('drafts.email.hint')}>
          <input name="email" type="email" maxLength={320} />
        </Field>
        <Field label={t('inventory.note')}>
          <input name="note" maxLength={2000} />
        </Field>
        <SaveFooter action={action} label={t('drafts.start')} disableWhileBusy />
      </form>
    </>
  );
}

/** A card of the draft's page holding one form that changes the draft. */
function DraftForm({ title, children, onSubmit, label }: { title: string; children: ReactNode; onSubmit(values: Record<string, string>, form: HTMLFormElement): Promise<unknown>; label?: string }) {
  const action = useAction();
  return (
    <form
      className="card"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        void action.run(() => onSubmit(valuesOf(form), form));
      }}
    >
      <h2>{title}</h2>
      {children}
      <SaveFooter action={action} label={label} disableWhileBusy />
    </form>
  );
}

const ADDRESS_FIELDS = ['first_name', 'last_name', 'address1', 'address2', 'city', 'province', 'zip', 'country_code', 'phone'] as const;
const REQUIRED_ADDRESS = new Set(['first_name', 'last_name', 'address1', 'city', 'zip', 'country_code']);

function Lines({ draft, editable, apply }: { draft: Draft; editable: boolean; apply: Apply }) {
  const { client, can } = useAuth();
  const { t, money } = useI18n();
  const action = useAction();
  const run = (work: () => Promise<{ data: Draft }>) => void action.run(() => apply(work));
  const override = can('draft-orders.override-price');
  const path = (line: Line) => ({ params: { path: { id: draft.id, line_id: line.id } } });
  const quantity = (l: Line) =>
    editable ? (
      <form
        className="inline-form"
        aria-label={`${t('orders.quantity')} ${l.title}`}
        onSubmit={(e) => {
          e.preventDefault();
          const quantity = Number(new FormData(e.currentTarget).get('quantity'));
          run(() => client.PATCH('/api/v1/draft-orders/{id}/line-items/{line_id}', { ...path(l), body: { quantity } }));
        }}
      >
        <input name="quantity" type="number" min={1} step={1} defaultValue={l.quantity} aria-label={`${t('orders.quantity')} ${l.title}`} style={{ width: '5rem' }} />
        <button type="submit">{t('drafts.update')}</button>
      </form>
    ) : (
      l.quantity
    );
  const actions = (l: Line) => (
    <>
      {override && l.variant_id && !l.offer_id && (
        <ActionForm
          title={t('drafts.setprice')}
          fields={[
            { name: 'amount', label: t('drafts.unitprice'), type: 'number', min: 0, step: 1, required: true, value: String(l.unit_price) },
            { name: 'reason', label: t('drafts.reason'), required: true, maxLength: 500 },
          ]}
          send={(v) => apply(() => client.PATCH('/api/v1/draft-orders/{id}/line-items/{line_id}', { ...path(l), body: { price_override: { amount: Number(v.amount), reason: v.reason.trim() } } }))}
        />
      )}
      {override && l.price_override && (
        <button type="button" onClick={() => run(() => client.PATCH('/api/v1/draft-orders/{id}/line-items/{line_id}', { ...path(l), body: { price_override: null } }))}>
          {t('drafts.backtoprice')}
        </button>
      )}
      <button type="button" className="danger" disabled={action.busy} onClick={() => run(() => client.DELETE('/api/v1/draft-orders/{id}/line-items/{line_id}', path(l)))}>
        {t('remove')} <span className="sr-only">{l.title}</span>
      </button>
    </>
  );
  return (
    <LinesTable
      label={t('orders.lines')}
      lines={draft.line_items}
      rowKey={(l) => l.id}
      empty={<Empty>{t('drafts.nolines')}</Empty>}
      before={action.error !== undefined && <ErrorBox error={action.error} />}
      item={(l) => (
        <LineTitle title={l.title} variant={l.variant_title} sku={l.sku}>
          {!l.variant_id && <small> ({t('drafts.custom')})</small>}
          {l.price_override && (
            <div>
              <small>
                {t('drafts.overridden', { price: money(l.catalog_price ?? 0, draft.currency) })}: {l.price_override.reason}
              </small>
            </div>
          )}
        </LineTitle>
      )}
      columns={[
        { label: t('orders.quantity'), num: true, cell: quantity },
        { label: t('orders.unit'), num: true, cell: (l) => money(l.unit_price, draft.currency) },
        { label: t('orders.discount'), num: true, cell: (l) => money(l.discount_amount, draft.currency) },
        { label: t('orders.tax'), num: true, cell: (l) => money(l.tax_amount, draft.currency) },
        { label: t('total'), num: true, cell: (l) => money(l.total, draft.currency) },
        ...(editable ? [{ label: t('actions'), actions: true, cell: actions }] : []),
      ]}
    />
  );
}

function DraftTotals({ draft }: { draft: Draft }) {
  const { t, money } = useI18n();
  return (
    <Totals
      label={t('orders.summary')}
      currency={draft.currency}
      rows={[
        [t('orders.subtotal'), draft.subtotal],
        [t('orders.discount'), -draft.discount_total],
        [t('orders.shipping'), draft.shipping_total],
        [t('orders.tax'), draft.tax_total],
        [t('total'), draft.total],
      ]}
    >
      {draft.prices_include_tax && <p className="note">{t('drafts.taxincluded')}</p>}
      {draft.discount && (
        <p>
          {draft.discount.type === 'coupon' ? `${t('drafts.coupon')} ${draft.discount.code}` : `${t('drafts.manual')}: ${draft.discount.reason ?? ''}`} · {money(draft.discount.amount, draft.currency)}
          {!draft.discount.applies && draft.discount.refusal && <strong> ({t('drafts.notapplying')}: {draft.discount.refusal.replace(/_/g, ' ')})</strong>}
        </p>
      )}
      {draft.shipping && (
        <p>
          {t('orders.shipping')}: {draft.shipping.carrier} · {draft.shipping.service} · {money(draft.shipping.price, draft.currency)}
          {draft.shipping.custom && draft.shipping.reason ? ` (${draft.shipping.reason})` : ''}
        </p>
      )}
    </Totals>
  );
}

/** Sending the link, marking it paid, placing it, taking it back, cancelling: what the draft's state allows. */
function DraftActions({ draft, apply }: { draft: Draft; apply: Apply }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const offline = useInstalled('offline');
  const mayMarkPaid = offline && can('payments.capture') && can('payments.read') && ['open', 'invoice_sent'].includes(draft.status);
  const methods = useLoad(async () => (mayMarkPaid ? (await client.GET('/api/v1/payments/offline/methods', { params: { query: { limit: 100 } as never } })).data.filter((m) => m.enabled && (m.currencies.length === 0 || m.currencies.includes(draft.currency))) : []), [mayMarkPaid, draft.currency]);
  if (!can('draft-orders.write')) return null;
  const id = { params: { path: { id: draft.id } } };
  return (
    <div className="buttons">
      {draft.status === 'open' && (
        <ActionForm
          title={t('drafts.send')}
          fields={[
            { name: 'notify', label: t('drafts.notify'), type: 'checkbox', value: 'on' },
            { name: 'to', label: t('drafts.to'), type: 'email', value: draft.email ?? '', maxLength: 320 },
            { name: 'message', label: t('drafts.message'), maxLength: 2000 },
          ]}
          send={(v) => apply(() => client.POST('/api/v1/draft-orders/{id}/send-invoice', { ...id, body: { notify: v.notify === 'on', to: optionalText(v.to), message: optionalText(v.message) } }))}
        />
      )}
      {draft.status === 'invoice_sent' && (
        <ActionForm
          title={t('drafts.resend')}
          fields={[{ name: 'notify', label: t('drafts.notify'), type: 'checkbox', value: 'on' }]}
          send={(v) => apply(() => client.POST('/api/v1/draft-orders/{id}/send-invoice', { ...id, body: { notify: v.notify === 'on' } }))}
        />
      )}
      {mayMarkPaid && (methods.data?.length ?? 0) > 0 && (
        <ActionForm
          title={t('drafts.markpaid')}
          fields={[
            { name: 'method_id', label: t('drafts.method'), required: true, options: (methods.data ?? []).map((m) => ({ value: m.id, label: m.name })) },
            { name: 'reference', label: t('orders.receipt.reference'), maxLength: 200 },
          ]}
          send={(v) => apply(() => client.POST('/api/v1/draft-orders/{id}/complete', { ...id, body: { payment: { method_id: v.method_id, reference: optionalText(v.reference) } } }))}
        />
      )}
      {draft.status === 'open' && <ActionForm title={t('drafts.place')} send={() => apply(() => client.POST('/api/v1/draft-orders/{id}/complete', { ...id, body: {} }))} />}
      {draft.status === 'invoice_sent' && <ActionForm title={t('drafts.reopen')} send={() => apply(() => client.POST('/api/v1/draft-orders/{id}/reopen', id))} />}
      {['open', 'invoice_sent'].includes(draft.status) && (
        <ActionForm
          title={t('drafts.cancel')}
          danger
          fields={[{ name: 'reason', label: t('orders.cancel.reason'), maxLength: 1000 }]}
          send={(v) => apply(() => client.POST('/api/v1/draft-orders/{id}/cancel', { ...id, body: { reason: optionalText(v.reason) } }))}
        />
      )}
    </div>
  );
}

function DraftDetail() {
  const { id = '' } = useParams();
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const state = useLoad(() => client.GET('/api/v1/draft-orders/{id}', { params: { path: { id } } }), [id]);
  const [fresh, setFresh] = useState<Draft | null>(null);
  const adding = useAction();
  const draft = fresh?.id === id ? fresh : state.data?.data;
  // Every change prices the whole draft again: the draft it answers is the one shown.
  const apply: Apply = async (work) => setFresh((await work()).data);
  const override = can('draft-orders.override-price');
  return (
    <Loaded state={state}>
      {() => {
        if (!draft) return null;
        const editable = draft.status === 'open' && can('draft-orders.write');
        const path = { params: { path: { id: draft.id } } };
        const patch = (body: Patch) => client.PATCH('/api/v1/draft-orders/{id}', { ...path, body });
        const address = draft.shipping_address;
        return (
          <>
            <p>
              <Link to="/drafts">← {t('drafts.title')}</Link>
            </p>
            <h1>
              {t('drafts.draft')} {draft.name} <Status value={draft.status} />
            </h1>
            <p>
              {draft.email ?? t('drafts.noemail')} · {money(draft.total, draft.currency)} · {date(draft.created_at)}
              {draft.order_id && can('orders.read') && (
                <>
                  {' · '}
                  <Link to={`/orders/${draft.order_id}`}>{t('drafts.order')}</Link>
                </>
              )}
            </p>
            {draft.invoice_url && (
              <p>
                {t('drafts.link')}: <code>{draft.invoice_url}</code>
              </p>
            )}
            {draft.cancel_reason && <p className="state">{draft.cancel_reason}</p>}
            <DraftActions draft={draft} apply={apply} />
            <Lines draft={draft} editable={editable} apply={apply} />
            {editable && (
              <section className="card" aria-labelledby="draft-add">
                <h2 id="draft-add">{t('drafts.addline')}</h2>
                <VariantPicker
                  label={t('drafts.addline')}
                  busy={adding.busy}
                  submitLabel={t('drafts.addline')}
                  onSubmit={(variant, form) => {
                    const v = valuesOf(form);
                    const amount = optionalNumber(v.override);
                    return adding.run(() =>
                      apply(() =>
                        client.POST('/api/v1/draft-orders/{id}/line-items', { ...path, body: { variant_id: variant.id, quantity: Number(v.quantity), price_override: amount === undefined ? undefined : { amount, reason: v.override_reason?.trim() ?? '' } } }),
                      ),
                    );
                  }}
                >
                  <Field label={t('orders.quantity')}>
                    <input name="quantity" type="number" min={1} step={1} required defaultValue="1" />
                  </Field>
                  {override && (
                    <>
                      <Field label={t('drafts.unitprice')} hint={t('drafts.override.hint')}>
                        <input name="override" type="number" min={0} step={1} />
                      </Field>
                      <Field label={t('drafts.reason')}>
                        <input name="override_reason" maxLength={500} />
                      </Field>
                    </>
                  )}
                </VariantPicker>
                {adding.error !== undefined && <ErrorBox error={adding.error} />}
                <ActionForm
                  title={t('drafts.customline')}
                  fields={[
                    { name: 'title', label: t('products.name'), required: true, maxLength: 300 },
                    { name: 'unit_price', label: t('drafts.unitprice'), type: 'number', min: 0, step: 1, required: true },
                    { name: 'quantity', label: t('orders.quantity'), type: 'number', min: 1, step: 1, required: true, value: '1' },
                    { name: 'sku', label: t('products.sku'), maxLength: 100 },
                    { name: 'taxable', label: t('drafts.taxable'), type: 'checkbox', value: 'on' },
                    { name: 'requires_shipping', label: t('drafts.ships'), type: 'checkbox', value: 'on' },
                  ]}
                  send={(v) =>
                    apply(() =>
                      client.POST('/api/v1/draft-orders/{id}/line-items', {
                        ...path,
                        body: { title: v.title.trim(), unit_price: Number(v.unit_price), quantity: Number(v.quantity), sku: optionalText(v.sku), taxable: v.taxable === 'on', requires_shipping: v.requires_shipping === 'on' },
                      }),
                    )
                  }
                />
              </section>
            )}
            <div className="grid2">
              <DraftTotals draft={draft} />
              {editable ? (
                <DraftForm title={t('drafts.customer')} onSubmit={(v) => apply(() => patch({ customer_id: optionalText(v.customer_id) ?? null, email: optionalText(v.email) ?? null, note: optionalText(v.note) ?? null }))}>
                  <CustomerPicker current={draft.customer_id ? { id: draft.customer_id, email: draft.email } : null} />
                  <Field label={t('customers.email')} hint={t('drafts.email.hint')}>
                    <input name="email" type="email" maxLength={320} defaultValue={draft.email ?? ''} />
                  </Field>
                  <Field label={t('inventory.note')}>
                    <input name="note" maxLength={2000} defaultValue={draft.note ?? ''} />
                  </Field>
                </DraftForm>
              ) : (
                <section className="card" aria-labelledby="draft-customer">
                  <h2 id="draft-customer">{t('drafts.customer')}</h2>
                  <p>
                    {draft.customer_id && can('customers.read') ? <Link to={`/customers/${draft.customer_id}`}>{draft.email ?? draft.customer_id}</Link> : (draft.email ?? '—')}
                  </p>
                  {draft.note && <p>{draft.note}</p>}
                </section>
              )}
              {editable ? (
                <DraftForm
                  title={t('drafts.address')}
                  onSubmit={(v) => {
                    const filled = ADDRESS_FIELDS.some((f) => optionalText(v[f]));
                    const value = Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, f === 'country_code' ? v[f].trim().toUpperCase() : (optionalText(v[f]) ?? (REQUIRED_ADDRESS.has(f) ? '' : null))])) as unknown as Patch['shipping_address'];
                    return apply(() => patch({ shipping_address: filled ? value : null }));
                  }}
                >
                  <div className="grid3">
                    {ADDRESS_FIELDS.map((f) => (
                      <Field key={f} label={t(`address.${f}`)}>
                        <input name={f} defaultValue={(address?.[f] as string | null | undefined) ?? ''} maxLength={f === 'country_code' ? 2 : 300} />
                      </Field>
                    ))}
                  </div>
                </DraftForm>
              ) : (
                address && (
                  <section className="card" aria-labelledby="draft-address">
                    <h2 id="draft-address">{t('drafts.address')}</h2>
                    <p>{[`${address.first_name} ${address.last_name}`, address.address1, address.address2, address.city, address.province, address.zip, address.country_code, address.phone].filter(Boolean).join(', ')}</p>
                  </section>
                )
              )}
              {editable && <ShippingForm draft={draft} override={override} patch={(body) => apply(() => patch(body))} />}
              {editable && (
                <DraftForm
                  title={t('orders.discount')}
                  onSubmit={(v) => {
                    const code = optionalText(v.code);
                    const amount = optionalNumber(v.amount);
                    if (!code && amount === undefined) return apply(() => patch({ discount: null }));
                    return apply(() => patch({ discount: code ? { code } : { amount, reason: optionalText(v.reason) } }));
                  }}
                >
                  <p className="note">{t('drafts.discount.hint')}</p>
                  <div className="grid3">
                    <FormFields
                      fields={[
                        { name: 'code', label: t('drafts.coupon'), value: draft.discount?.code ?? '', maxLength: 64 },
                        ...(override
                          ? [
                              { name: 'amount', label: t('drafts.manualamount'), type: 'number', min: 0, step: 1, value: draft.discount?.type === 'manual' ? String(draft.discount.value ?? '') : '' },
                              { name: 'reason', label: t('drafts.reason'), value: draft.discount?.reason ?? '', maxLength: 500 },
                            ]
                          : []),
                      ]}
                    />
                  </div>
                </DraftForm>
              )}
            </div>
          </>
        );
      }}
    </Loaded>
  );
}

export default function Drafts() {
  return (
    <Routes>
      <Route index element={<DraftList />} />
      <Route path="new" element={<NewDraft />} />
      <Route path="settings" element={<DraftSettings />} />
      <Route path=":id" element={<DraftDetail />} />
    </Routes>
  );
}
