import { Suspense, lazy, useEffect, useState } from 'react';
import { Link, Route, Routes, useParams } from 'react-router';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { ActionForm, LinesTable, LineTitle, optionalText, Totals } from '../forms';
import { useInstalled, Zone } from '../extensions';
import { useI18n } from '../i18n';
import { ListTable, ListToolbar, listParams, useList } from '../list';
import { Empty, Loaded, Loading, Status, useLoad } from '../ui';

// The parts of an order's page that need a plugin are chunks of their own, loaded when it is installed.
const OrderEdits = lazy(() => import('./order-edits'));
const OrderReturns = lazy(() => import('./returns').then((m) => ({ default: m.OrderReturns })));

type Order = ItemOf<'/api/v1/orders'>;
const STATUSES = ['pending', 'confirmed', 'paid', 'ready_to_ship', 'in_transit', 'partially_fulfilled', 'fulfilled', 'cancelled', 'refunded'] as const;

function OrderList() {
  const { client } = useAuth();
  const { t, money, date } = useI18n();
  const list = useList<Order, 'status'>((query) => client.GET('/api/v1/orders', { params: { query: listParams(query) as never } }));
  return (
    <>
      <h1>{t('orders.title')}</h1>
      <ListToolbar list={list} placeholder={t('orders.search')} filters={[{ name: 'status', label: t('status'), options: STATUSES.map((value) => ({ value })) }]} />
      <ListTable
        list={list}
        caption={t('orders.title')}
        columns={[{ label: t('orders.number') }, { label: t('orders.customer') }, { label: t('status') }, { label: t('total'), num: true }, { label: t('created') }]}
        row={(o) => (
          <tr key={o.id}>
            <td>
              <Link to={o.id}>#{o.number}</Link>
            </td>
            <td>{o.customer_email}</td>
            <td>
              <Status value={o.status} />
            </td>
            <td className="num">{money(o.total, o.currency)}</td>
            <td>{date(o.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

/**
 * A refund whose provider's answer was lost (decision 0108): its amount stays held until staff,
 * having checked the provider's dashboard, record whether the money went back.
 */
function UnconfirmedRefund({ payment, refund, done }: { payment: string; refund: string; done(): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const record = async (body: { status: 'refunded' | 'failed'; provider_refund_id?: string }) => {
    await client.POST('/api/v1/payments/{id}/refunds/{refund_id}/outcome', { params: { path: { id: payment, refund_id: refund } }, body });
    done();
  };
  return (
    <>
      <p className="note">{t('orders.refund.unconfirmed')}</p>
      {can('payments.refund') && (
        <div className="buttons">
          <ActionForm
            title={t('orders.refund.made')}
            fields={[{ name: 'provider_refund_id', label: t('orders.refund.providerid'), maxLength: 200 }]}
            send={(v) => record({ status: 'refunded', provider_refund_id: optionalText(v.provider_refund_id) })}
          />
          <ActionForm title={t('orders.refund.notmade')} danger send={() => record({ status: 'failed' })} />
        </div>
      )}
    </>
  );
}

function Payments({ order, watch }: { order: Order; watch(): void }) {
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const offline = useInstalled('offline');
  const state = useLoad(() => client.GET('/api/v1/payments', { params: { query: { 'filter[order_id]': order.id, limit: 50 } } }), [order.id, order.updated_at]);
  const payments = state;
  return (
    <section className="card" aria-labelledby="payments">
      <h2 id="payments">{t('orders.payments')}</h2>
      <Loaded state={state}>
        {(d) =>
          d.data.length === 0 ? (
            <Empty>{t('orders.nopayments')}</Empty>
          ) : (
            <ul className="plain">
              {d.data.map((p) => (
                <li key={p.id} className="payment">
                  <div>
                    {p.gateway} · {money(p.amount, p.currency)} · <Status value={p.status} /> · {date(p.created_at)}
                  </div>
                  {p.refunds.length > 0 && (
                    <ul aria-label={t('orders.refunds')}>
                      {p.refunds.map((r) => (
                        <li key={r.id}>
                          {t('orders.refunds')}: {money(r.amount, p.currency)} · <Status value={r.status} /> {r.reason ? `· ${r.reason}` : ''}
                          {r.unconfirmed && <UnconfirmedRefund payment={p.id} refund={r.id} done={() => {
                            payments.reload();
                            watch();
                          }} />}
                        </li>
                      ))}
                    </ul>
                  )}
                  <div className="buttons">
                    {offline && p.gateway === 'offline' && p.status === 'pending' && can('payments.capture') && (
                      <ActionForm
                        title={t('orders.receipt')}
                        fields={[
                          { name: 'amount', label: t('orders.receipt.amount'), type: 'number', required: true, value: String(p.amount) },
                          { name: 'reference', label: t('orders.receipt.reference') },
                        ]}
                        send={async (v) => {
                          await client.POST('/api/v1/payments/offline/receipts', { body: { payment_id: p.id, amount: Number(v.amount), reference: v.reference || undefined } });
                          payments.reload();
                          watch();
                        }}
                      />
                    )}
                    {p.refundable_amount > 0 && can('payments.refund') && (
                      <ActionForm
                        title={t('orders.refund')}
                        danger
                        fields={[{ name: 'amount', label: t('orders.refund.amount'), type: 'number', required: true, value: '0' }]}
                        send={async (v) => {
                          await client.POST('/api/v1/payments/{id}/refund', { params: { path: { id: p.id } }, body: { amount: Number(v.amount), reason: 'requested_by_customer' } });
                          payments.reload();
                          watch();
                        }}
                      />
                    )}
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

function OrderDetail() {
  const { id = '' } = useParams();
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const state = useLoad(() => client.GET('/api/v1/orders/{id}', { params: { path: { id } } }), [id]);
  const editsOn = useInstalled('order-edits');
  const returnsOn = useInstalled('returns');
  // A payment moves the order in the background: read it again for a while until it changed.
  const [watching, setWatching] = useState<string | null>(null);
  const status = state.data?.data.status;
  useEffect(() => {
    if (!watching) return;
    if (status && status !== watching) return setWatching(null);
    const timer = setInterval(state.reload, 1000);
    const stop = setTimeout(() => setWatching(null), 15_000);
    return () => {
      clearInterval(timer);
      clearTimeout(stop);
    };
  }, [watching, status, state.reload]);
  return (
    <Loaded state={state}>
      {({ data: order }) => (
        <>
          <p>
            <Link to="..">← {t('orders.title')}</Link>
          </p>
          <h1>
            {t('orders.number')} #{order.number} <Status value={order.status} />
          </h1>
          <p>
            {order.customer_email} · {date(order.created_at)}
          </p>
          <div className="buttons">
            {['paid', 'ready_to_ship', 'partially_fulfilled'].includes(order.status) && can('orders.fulfil') && (
              <ActionForm
                title={t('orders.fulfil')}
                fields={[
                  { name: 'carrier', label: t('orders.fulfil.carrier') },
                  { name: 'tracking_number', label: t('orders.fulfil.tracking') },
                ]}
                send={async (v) => {
                  await client.POST('/api/v1/orders/{id}/fulfillments', { params: { path: { id } }, body: { carrier: v.carrier || undefined, tracking_number: v.tracking_number || undefined } });
                  state.reload();
                }}
              />
            )}
            {['pending', 'confirmed', 'paid'].includes(order.status) && can('orders.write') && (
              <ActionForm
                title={t('orders.cancel')}
                danger
                fields={[{ name: 'reason', label: t('orders.cancel.reason') }]}
                send={async (v) => {
                  await client.POST('/api/v1/orders/{id}/cancel', { params: { path: { id } }, body: { reason: v.reason || undefined } });
                  state.reload();
                }}
              />
            )}
          </div>
          <div className="grid2">
            <LinesTable
              label={t('orders.lines')}
              lines={order.line_items}
              rowKey={(l) => l.id}
              item={(l) => <LineTitle title={l.title} variant={l.variant_title} sku={l.sku} />}
              columns={[
                {
                  label: t('orders.quantity'),
                  num: true,
                  cell: (l) => (
                    <>
                      {l.quantity}
                      {l.fulfilled_quantity > 0 && <small> ({l.fulfilled_quantity} ✓)</small>}
                    </>
                  ),
                },
                { label: t('orders.unit'), num: true, cell: (l) => money(l.unit_price_amount, order.currency) },
                { label: t('total'), num: true, cell: (l) => money(l.total_amount, order.currency) },
              ]}
            />
            <Totals
              label={t('orders.summary')}
              currency={order.currency}
              rows={[
                [t('orders.subtotal'), order.subtotal],
                [t('orders.discount'), -order.discount_total],
                [t('orders.shipping'), order.shipping_total],
                [t('orders.tax'), order.tax_total],
                [t('total'), order.total],
                [t('orders.paid'), order.amount_paid],
                [t('orders.refunded'), order.amount_refunded],
                [t('orders.due'), order.amount_due],
              ]}
            />
            {can('payments.read') && <Payments order={order} watch={() => setWatching(order.status)} />}
            <section className="card" aria-labelledby="fulfillments">
              <h2 id="fulfillments">{t('orders.fulfillments')}</h2>
              {order.fulfillments.length === 0 ? (
                <Empty>{t('orders.nofulfillments')}</Empty>
              ) : (
                <ul className="plain">
                  {order.fulfillments.map((f) => (
                    <li key={f.id}>
                      <Status value={f.status} /> {f.carrier ?? ''} {f.tracking_number ?? ''} · {date(f.shipped_at)}
                      {f.status !== 'delivered' && can('orders.fulfil') && (
                        <button
                          type="button"
                          onClick={() => void client.POST('/api/v1/fulfillments/{id}/delivered', { params: { path: { id: f.id } } }).then(state.reload, state.reload)}
                        >
                          {t('orders.deliver')}
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section className="card" aria-labelledby="history">
              <h2 id="history">{t('orders.history')}</h2>
              <ol className="history">
                {order.history.map((h, i) => (
                  <li key={i}>
                    {date(h.at)} · {h.action}: {h.from} → {h.to} {h.note ? `(${h.note})` : ''}
                  </li>
                ))}
              </ol>
            </section>
          </div>
          <Suspense fallback={<Loading />}>
            {editsOn && can('order-edits.read') && <OrderEdits order={order} onChanged={state.reload} />}
            {returnsOn && can('returns.read') && <OrderReturns order={order} />}
          </Suspense>
          <Zone name="order.detail" id={order.id} />
        </>
      )}
    </Loaded>
  );
}

export default function Orders() {
  return (
    <Routes>
      <Route index element={<OrderList />} />
      <Route path=":id" element={<OrderDetail />} />
    </Routes>
  );
}
