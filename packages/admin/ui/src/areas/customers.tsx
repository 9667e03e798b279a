import { useState } from 'react';
import { Link, Route, Routes, useParams } from 'react-router';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { Empty, Field, Loaded, Pager, Status, useLoad, usePager } from '../ui';

function CustomerList() {
  const { client } = useAuth();
  const { t, date } = useI18n();
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  const pager = usePager([q]);
  const state = useLoad(() => client.GET('/api/v1/customers', { params: { query: { limit: 25, cursor: pager.cursor, q: q || undefined } } }), [q, pager.cursor]);
  return (
    <>
      <h1>{t('customers.title')}</h1>
      <form
        className="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(search.trim());
        }}
      >
        <Field label={t('search')}>
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        </Field>
        <button type="submit">{t('search')}</button>
      </form>
      <Loaded state={state} empty={(d) => d.data.length === 0}>
        {(d) => (
          <>
            <div className="table-wrap">
              <table>
                <caption className="sr-only">{t('customers.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('customers.email')}</th>
                    <th scope="col">{t('customers.name')}</th>
                    <th scope="col">{t('created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {d.data.map((c) => (
                    <tr key={c.id}>
                      <td>
                        <Link to={c.id}>{c.email}</Link>
                      </td>
                      <td>
                        {c.first_name ?? ''} {c.last_name ?? ''}
                      </td>
                      <td>{date(c.created_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager pager={pager} pagination={d.meta.pagination} />
          </>
        )}
      </Loaded>
    </>
  );
}

function CustomerDetail() {
  const { id = '' } = useParams();
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const state = useLoad(async () => {
    const customer = await client.GET('/api/v1/customers/{id}', { params: { path: { id } } });
    const orders = can('orders.read') ? (await client.GET('/api/v1/customers/{id}/orders', { params: { path: { id }, query: { limit: 25 } } })).data : [];
    return { customer: customer.data, orders };
  }, [id]);
  return (
    <Loaded state={state}>
      {({ customer, orders }) => (
        <>
          <p>
            <Link to="..">← {t('customers.title')}</Link>
          </p>
          <h1>{customer.email}</h1>
          <p>
            {customer.first_name ?? ''} {customer.last_name ?? ''}
          </p>
          {can('orders.read') && (
            <section className="card" aria-labelledby="customer-orders">
              <h2 id="customer-orders">{t('orders.title')}</h2>
              {orders.length === 0 ? (
                <Empty />
              ) : (
                <ul className="plain">
                  {orders.map((o) => (
                    <li key={o.id}>
                      <Link to={`/orders/${o.id}`}>#{o.number}</Link> · <Status value={o.status} /> · {money(o.total, o.currency)} · {date(o.created_at)}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )}
        </>
      )}
    </Loaded>
  );
}

export default function Customers() {
  return (
    <Routes>
      <Route index element={<CustomerList />} />
      <Route path=":id" element={<CustomerDetail />} />
    </Routes>
  );
}
