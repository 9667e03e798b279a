import { Link } from 'react-router';
import { useAuth } from '../auth';
import { Zone } from '../extensions';
import { useI18n } from '../i18n';
import { Empty, Loaded, Status, useLoad } from '../ui';

/** Orders whose money counts as sold (the sales analytics' own rule). */
const REVENUE = new Set(['paid', 'ready_to_ship', 'in_transit', 'partially_fulfilled', 'fulfilled']);
/** How many of the latest orders the figures are read from at most. */
const SCAN = 1000;

interface Totals {
  currency: string;
  today: number;
  todayCount: number;
  month: number;
  monthCount: number;
  partial: boolean;
}

function Sales() {
  const { client } = useAuth();
  const { t, money } = useI18n();
  const state = useLoad(async () => {
    const now = new Date();
    const dayStart = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
    const monthStart = new Date(now.getFullYear(), now.getMonth(), 1).getTime();
    const totals: Totals = { currency: 'PEN', today: 0, todayCount: 0, month: 0, monthCount: 0, partial: false };
    let seen = 0;
    // The newest first: stop at the first order older than this month.
    for await (const order of client.items('/api/v1/orders', { params: { query: { limit: 100, sort: '-created_at' } } })) {
      const at = Date.parse(order.created_at);
      if (at < monthStart) break;
      if (++seen > SCAN) {
        totals.partial = true;
        break;
      }
      if (!REVENUE.has(order.status)) continue;
      totals.currency = order.currency;
      totals.month += order.total - order.amount_refunded;
      totals.monthCount++;
      if (at >= dayStart) {
        totals.today += order.total - order.amount_refunded;
        totals.todayCount++;
      }
    }
    return totals;
  }, []);
  return (
    <Loaded state={state}>
      {(d) => (
        <div className="kpis">
          <section className="card kpi" aria-labelledby="kpi-today">
            <h2 id="kpi-today">{t('home.today')}</h2>
            <p className="figure">{money(d.today, d.currency)}</p>
            <p>{t('home.orders', { n: d.todayCount })}</p>
          </section>
          <section className="card kpi" aria-labelledby="kpi-month">
            <h2 id="kpi-month">{t('home.month')}</h2>
            <p className="figure">{money(d.month, d.currency)}</p>
            <p>{t('home.orders', { n: d.monthCount })}</p>
          </section>
          {d.partial && <p className="note">{t('home.partial', { n: SCAN })}</p>}
        </div>
      )}
    </Loaded>
  );
}

function ToFulfil() {
  const { client } = useAuth();
  const { t, money, date } = useI18n();
  const state = useLoad(async () => {
    const [paid, ready] = await Promise.all([
      client.GET('/api/v1/orders', { params: { query: { limit: 10, sort: 'created_at', 'filter[status]': 'paid' } } }),
      client.GET('/api/v1/orders', { params: { query: { limit: 10, sort: 'created_at', 'filter[status]': 'ready_to_ship' } } }),
    ]);
    return [...paid.data, ...ready.data];
  }, []);
  return (
    <section className="card" aria-labelledby="tofulfil">
      <h2 id="tofulfil">{t('home.tofulfil')}</h2>
      <Loaded state={state}>
        {(orders) =>
          orders.length === 0 ? (
            <Empty>{t('home.tofulfil.none')}</Empty>
          ) : (
            <ul className="plain">
              {orders.map((o) => (
                <li key={o.id}>
                  <Link to={`/orders/${o.id}`}>#{o.number}</Link> · {o.customer_email} · {money(o.total, o.currency)} · <Status value={o.status} /> · {date(o.created_at)}
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

const LOW = 5;

function LowStock() {
  const { client } = useAuth();
  const { t } = useI18n();
  const state = useLoad(async () => {
    const warehouses = await client.GET('/api/v1/inventory/warehouses', { params: { query: { limit: 20 } } });
    const rows: Array<{ warehouse: string; variant_id: string; product_id: string | null; sku: string | null; available: number }> = [];
    for (const w of warehouses.data) {
      const stock = await client.GET('/api/v1/inventory/warehouses/{id}/stock', { params: { path: { id: w.id }, query: { limit: 20, sort: 'on_hand' } } });
      for (const s of stock.data) {
        if (s.available <= LOW) rows.push({ warehouse: w.name, variant_id: s.variant_id, product_id: s.product_id, sku: s.sku, available: s.available });
      }
    }
    return rows;
  }, []);
  return (
    <section className="card" aria-labelledby="lowstock">
      <h2 id="lowstock">{t('home.lowstock')}</h2>
      <Loaded state={state}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty>{t('home.lowstock.none')}</Empty>
          ) : (
            <ul className="plain">
              {rows.map((r) => (
                <li key={`${r.warehouse}-${r.variant_id}`}>
                  {r.warehouse}: {r.product_id ? <Link to={`/products/${r.product_id}`}>{r.sku ?? r.variant_id.slice(0, 8)}</Link> : (r.sku ?? r.variant_id.slice(0, 8))} · {t('inventory.available')} {r.available}
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

export default function Home() {
  const { can } = useAuth();
  const { t } = useI18n();
  return (
    <>
      <h1>{t('nav.home')}</h1>
      {can('orders.read') && <Sales />}
      <div className="grid2">
        {can('orders.read') && <ToFulfil />}
        {can('inventory.read') && <LowStock />}
      </div>
      <Zone name="home" />
    </>
  );
}
