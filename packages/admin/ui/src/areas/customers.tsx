import { Suspense, lazy } from 'react';
import { Link, Route, Routes, useParams } from 'react-router';
import { useAuth } from '../auth';
import { useInstalled } from '../extensions';
import { useI18n } from '../i18n';
import type { ItemOf } from '@qhatu/client';
import { ListTable, ListToolbar, listParams, useList } from '../list';
import { Empty, Loaded, Loading, Status, useLoad } from '../ui';

// A customer's store credit is a chunk of its own, loaded when the plugin is installed.
const StoreCredit = lazy(() => import('./store-credit'));

type Customer = ItemOf<'/api/v1/customers'>;

function CustomerList() {
  const { client } = useAuth();
  const { t, date } = useI18n();
  const list = useList<Customer>((query) => client.GET('/api/v1/customers', { params: { query: listParams(query) as never } }));
  return (
    <>
      <h1>{t('customers.title')}</h1>
      <ListToolbar list={list} />
      <ListTable
        list={list}
        caption={t('customers.title')}
        columns={[{ label: t('customers.email') }, { label: t('customers.name') }, { label: t('created') }]}
        row={(c) => (
          <tr key={c.id}>
            <td>
              <Link to={c.id}>{c.email}</Link>
            </td>
            <td>
              {c.first_name ?? ''} {c.last_name ?? ''}
            </td>
            <td>{date(c.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

function CustomerDetail() {
  const { id = '' } = useParams();
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const credit = useInstalled('store-credit');
  const state = useLoad(async () => {
    const customer = await client.GET('/api/v1/customers/{id}', { params: { path: { id } } });
    const [orders, addresses] = await Promise.all([
      can('orders.read') ? client.GET('/api/v1/customers/{id}/orders', { params: { path: { id }, query: { limit: 25 } } }).then((a) => a.data) : [],
      client.GET('/api/v1/customers/{id}/addresses', { params: { path: { id } } }).then((a) => a.data),
    ]);
    return { customer: customer.data, orders, addresses };
  }, [id]);
  return (
    <Loaded state={state}>
      {({ customer, orders, addresses }) => (
        <>
          <p>
            <Link to="..">← {t('customers.title')}</Link>
          </p>
          <h1>{customer.email}</h1>
          <p>
            {customer.first_name ?? ''} {customer.last_name ?? ''}
          </p>
          <section className="card" aria-labelledby="customer-addresses">
            <h2 id="customer-addresses">{t('customers.addresses')}</h2>
            {addresses.length === 0 ? (
              <Empty />
            ) : (
              <ul className="plain">
                {addresses.map((a) => (
                  <li key={a.id}>
                    {[`${a.first_name ?? ''} ${a.last_name ?? ''}`.trim(), a.company, a.address1, a.address2, a.city, a.province, a.zip, a.country_code, a.phone].filter(Boolean).join(', ')}
                    {a.is_default && <small> · {t('customers.default')}</small>}
                  </li>
                ))}
              </ul>
            )}
          </section>
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
          {credit && can('store-credit.read') && (
            <Suspense fallback={<Loading />}>
              <StoreCredit customerId={customer.id} currency={orders[0]?.currency} />
            </Suspense>
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
