import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { ActionForm, LinesTable, LineTitle, optionalText, Totals, valuesOf, VariantPicker, type FoundVariant } from '../forms';
import { useI18n } from '../i18n';
import { ListTable, ListToolbar, listParams, useList } from '../list';
import { Empty, ErrorBox, Field, Loaded, Status, useAction, useLoad } from '../ui';
import { Tabs, useCompanies } from './wholesale-common';

type Quote = ItemOf<'/api/v1/b2b/quotes'>;
const QUOTE_STATUSES = ['draft', 'sent', 'accepted', 'rejected', 'converted'] as const;

export function Quotes() {
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const companies = useCompanies();
  const list = useList<Quote, 'status'>((query) => client.GET('/api/v1/b2b/quotes', { params: { query: listParams({ ...query, q: undefined }) as never } }));
  const name = (id: string) => companies.data?.find((c) => c.id === id)?.company_name ?? id;
  return (
    <>
      <div className="title-row">
        <h1>{t('nav.wholesale')}</h1>
        {can('b2b.write') && (
          <Link className="button primary" to="new">
            {t('wholesale.newquote')}
          </Link>
        )}
      </div>
      <Tabs />
      <ListToolbar list={list} search={false} filters={[{ name: 'status', label: t('status'), options: QUOTE_STATUSES.map((value) => ({ value })) }]} />
      <ListTable
        list={list}
        caption={t('wholesale.quotes')}
        empty={<Empty>{t('wholesale.noquotes')}</Empty>}
        columns={[{ label: t('wholesale.quote') }, { label: t('wholesale.company') }, { label: t('status') }, { label: t('total'), num: true }, { label: t('wholesale.validuntil') }]}
        row={(q) => (
          <tr key={q.id}>
            <td>
              <Link to={q.id}>{q.number}</Link>
            </td>
            <td>{name(q.b2b_customer_id)}</td>
            <td>
              <Status value={q.status} />
            </td>
            <td className="num">{money(q.total, q.currency)}</td>
            <td>{date(q.valid_until)}</td>
          </tr>
        )}
      />
    </>
  );
}

/** A new quote: a company, items found by product, notes and how long it holds once sent. */
export function NewQuote() {
  const { client } = useAuth();
  const { t, money } = useI18n();
  const navigate = useNavigate();
  const companies = useCompanies();
  const action = useAction();
  const [items, setItems] = useState<Array<FoundVariant & { quantity: number }>>([]);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const v = valuesOf(event.currentTarget);
    let id = '';
    const done = await action.run(async () => {
      const created = await client.POST('/api/v1/b2b/quotes', { body: { b2b_customer_id: v.company, items: items.map((i) => ({ variant_id: i.id, quantity: i.quantity })), notes: optionalText(v.notes), valid_days: Number(v.valid_days || 30) } });
      id = created.data.id;
    });
    if (done) navigate(`/wholesale/quotes/${id}`);
  };
  return (
    <>
      <Tabs />
      <p>
        <Link to="/wholesale/quotes">← {t('wholesale.quotes')}</Link>
      </p>
      <h1>{t('wholesale.newquote')}</h1>
      <section className="card" aria-labelledby="quote-items">
        <h2 id="quote-items">{t('wholesale.items')}</h2>
        {items.length === 0 ? <Empty>{t('wholesale.noitems')}</Empty> : (
          <ul>
            {items.map((i) => (
              <li key={i.id}>
                {i.quantity} × {i.label}{' '}
                <button type="button" onClick={() => setItems(items.filter((x) => x.id !== i.id))}>
                  {t('remove')} <span className="sr-only">{i.label}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        <VariantPicker
          label={t('wholesale.additem')}
          submitLabel={t('wholesale.additem')}
          busy={false}
          onSubmit={async (variant, form) => {
            const quantity = Number(new FormData(form).get('quantity') || 1);
            setItems((now) => [...now.filter((x) => x.id !== variant.id), { ...variant, quantity }]);
            return true;
          }}
        >
          <Field label={t('orders.quantity')}>
            <input name="quantity" type="number" min={1} max={100000} step={1} defaultValue={1} required />
          </Field>
        </VariantPicker>
        {items.length > 0 && <p className="note">{t('wholesale.catalogprices', { total: money(items.reduce((s, i) => s + i.price * i.quantity, 0), items[0].currency) })}</p>}
      </section>
      <form className="card" onSubmit={(e) => void submit(e)} aria-label={t('wholesale.newquote')}>
        <Loaded state={companies} empty={(c) => c.length === 0}>
          {(list) => (
            <Field label={t('wholesale.company')}>
              <select name="company" required>
                {list.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.company_name}
                  </option>
                ))}
              </select>
            </Field>
          )}
        </Loaded>
        <div className="grid2">
          <Field label={t('wholesale.notes')}>
            <input name="notes" maxLength={5000} />
          </Field>
          <Field label={t('wholesale.validdays')}>
            <input name="valid_days" type="number" min={1} max={365} step={1} defaultValue={30} />
          </Field>
        </div>
        {action.error !== undefined && <ErrorBox error={action.error} />}
        <button type="submit" className="primary" disabled={action.busy || items.length === 0}>
          {action.busy ? t('saving') : t('wholesale.createquote')}
        </button>
      </form>
    </>
  );
}

export function QuoteDetail() {
  const { id = '' } = useParams();
  const { client, can } = useAuth();
  const { t, date, money } = useI18n();
  const state = useLoad(async () => (await client.GET('/api/v1/b2b/quotes/{id}', { params: { path: { id } } })).data, [id]);
  const companies = useCompanies();
  const path = { params: { path: { id } } };
  return (
    <>
      <Tabs />
      <p>
        <Link to="/wholesale/quotes">← {t('wholesale.quotes')}</Link>
      </p>
      <Loaded state={state}>
        {(q) => (
          <>
            <h1>
              {t('wholesale.quote')} {q.number} <Status value={q.status} />
            </h1>
            <dl className="fields card">
              <div>
                <dt>{t('wholesale.company')}</dt>
                <dd>{companies.data?.find((c) => c.id === q.b2b_customer_id)?.company_name ?? q.b2b_customer_id}</dd>
              </div>
              <div>
                <dt>{t('wholesale.validuntil')}</dt>
                <dd>{q.valid_until ? date(q.valid_until) : t('wholesale.validdays.n', { n: q.valid_days })}</dd>
              </div>
              {q.notes && (
                <div>
                  <dt>{t('wholesale.notes')}</dt>
                  <dd>{q.notes}</dd>
                </div>
              )}
              {q.rejection_reason && (
                <div>
                  <dt>{t('wholesale.rejected')}</dt>
                  <dd>{q.rejection_reason}</dd>
                </div>
              )}
              {q.order_id && (
                <div>
                  <dt>{t('wholesale.order')}</dt>
                  <dd>
                    <Link to={`/orders/${q.order_id}`}>{t('wholesale.openorder')}</Link>
                  </dd>
                </div>
              )}
            </dl>
            <LinesTable
              label={t('wholesale.items')}
              lines={q.items}
              rowKey={(i) => i.variant_id}
              item={(i) => <LineTitle title={i.title} sku={i.sku} />}
              columns={[
                { label: t('orders.quantity'), num: true, cell: (i) => i.quantity },
                { label: t('wholesale.catalogprice'), num: true, cell: (i) => money(i.catalog_price, q.currency) },
                { label: t('orders.unit'), num: true, cell: (i) => money(i.unit_price, q.currency) },
                { label: t('total'), num: true, cell: (i) => money(i.total, q.currency) },
              ]}
            />
            <Totals label={t('orders.summary')} currency={q.currency} rows={[[t('orders.subtotal'), q.subtotal], [t('orders.discount'), -q.discount], [t('total'), q.total]]} />
            <div className="buttons">
              {q.status === 'draft' && can('b2b.quotes.send') && <ActionForm title={t('wholesale.send')} send={() => client.POST('/api/v1/b2b/quotes/{id}/send', path).then(state.reload)} />}
              {q.status === 'sent' && can('b2b.write') && <ActionForm title={t('wholesale.accept')} send={() => client.POST('/api/v1/b2b/quotes/{id}/accept', path).then(state.reload)} />}
              {q.status === 'sent' && can('b2b.write') && (
                <ActionForm danger title={t('wholesale.reject')} fields={[{ name: 'reason', label: t('wholesale.reason'), maxLength: 2000 }]} send={(v) => client.POST('/api/v1/b2b/quotes/{id}/reject', { ...path, body: { reason: optionalText(v.reason) } }).then(state.reload)} />
              )}
              {q.status === 'accepted' && can('b2b.quotes.convert') && (
                <ActionForm
                  title={t('wholesale.convert')}
                  fields={[
                    { name: 'first_name', label: t('address.first_name'), maxLength: 100 },
                    { name: 'last_name', label: t('address.last_name'), maxLength: 100 },
                    { name: 'address1', label: t('address.address1'), maxLength: 300 },
                    { name: 'city', label: t('address.city'), maxLength: 100 },
                    { name: 'country_code', label: t('address.country_code'), maxLength: 2 },
                    { name: 'zip', label: t('address.zip'), maxLength: 20 },
                  ]}
                  send={(v) => {
                    const address = v.address1?.trim() ? { first_name: v.first_name, last_name: v.last_name, address1: v.address1, city: v.city, country_code: v.country_code.toUpperCase(), zip: v.zip } : undefined;
                    return client.POST('/api/v1/b2b/quotes/{id}/convert', { ...path, body: { shipping_address: address } }).then(state.reload);
                  }}
                >
                  <p className="note">{t('wholesale.convert.note')}</p>
                </ActionForm>
              )}
            </div>
          </>
        )}
      </Loaded>
    </>
  );
}
