import { useState, type FormEvent } from 'react';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { Empty, ErrorBox, Field, Loaded, Pager, useAction, useLoad, usePager } from '../ui';

const REASONS = ['received', 'returned', 'damaged', 'lost', 'correction', 'other'] as const;

function Stock({ warehouseId }: { warehouseId: string }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const pager = usePager([warehouseId]);
  const action = useAction();
  const [adjusting, setAdjusting] = useState<string | null>(null);
  const state = useLoad(() => client.GET('/api/v1/inventory/warehouses/{id}/stock', { params: { path: { id: warehouseId }, query: { limit: 25, cursor: pager.cursor, sort: 'on_hand' } } }), [warehouseId, pager.cursor]);
  const adjust = async (event: FormEvent<HTMLFormElement>, variantId: string) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = { variant_id: variantId, delta: Number(form.get('delta')), reason: String(form.get('reason')) as (typeof REASONS)[number] };
    if (await action.run(() => client.POST('/api/v1/inventory/warehouses/{id}/stock/adjust', { params: { path: { id: warehouseId } }, body }))) {
      setAdjusting(null);
      state.reload();
    }
  };
  return (
    <Loaded state={state} empty={(d) => d.data.length === 0}>
      {(d) => (
        <>
          {action.error !== undefined && <ErrorBox error={action.error} />}
          <div className="table-wrap">
            <table>
              <caption className="sr-only">{t('inventory.title')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('products.sku')}</th>
                  <th scope="col" className="num">{t('inventory.onhand')}</th>
                  <th scope="col" className="num">{t('inventory.reserved')}</th>
                  <th scope="col" className="num">{t('inventory.available')}</th>
                  {can('inventory.write') && <th scope="col">{t('actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {d.data.map((s) => (
                  <tr key={s.variant_id}>
                    <td>{s.sku ?? s.variant_id.slice(0, 8)}</td>
                    <td className="num">{s.on_hand}</td>
                    <td className="num">{s.reserved}</td>
                    <td className="num">{s.available}</td>
                    {can('inventory.write') && (
                      <td>
                        {adjusting === s.variant_id ? (
                          <form className="inline-form" onSubmit={(e) => void adjust(e, s.variant_id)} aria-label={t('inventory.adjust')}>
                            <Field label={t('inventory.delta')}>
                              <input name="delta" type="number" step={1} required />
                            </Field>
                            <Field label={t('inventory.reason')}>
                              <select name="reason">
                                {REASONS.map((r) => (
                                  <option key={r}>{r}</option>
                                ))}
                              </select>
                            </Field>
                            <button type="submit" className="primary" disabled={action.busy}>
                              {t('save')}
                            </button>
                          </form>
                        ) : (
                          <button type="button" onClick={() => setAdjusting(s.variant_id)}>
                            {t('inventory.adjust')}
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pager={pager} pagination={d.meta.pagination} />
        </>
      )}
    </Loaded>
  );
}

export default function Inventory() {
  const { client } = useAuth();
  const { t } = useI18n();
  const [chosen, setChosen] = useState('');
  const state = useLoad(() => client.GET('/api/v1/inventory/warehouses', { params: { query: { limit: 100 } } }), []);
  return (
    <>
      <h1>{t('inventory.title')}</h1>
      <Loaded state={state}>
        {(d) => {
          if (d.data.length === 0) return <Empty>{t('inventory.nowarehouse')}</Empty>;
          const current = chosen || (d.data.find((w) => w.is_default) ?? d.data[0]).id;
          return (
            <>
              <Field label={t('inventory.warehouse')}>
                <select value={current} onChange={(e) => setChosen(e.target.value)}>
                  {d.data.map((w) => (
                    <option key={w.id} value={w.id}>
                      {w.name}
                    </option>
                  ))}
                </select>
              </Field>
              <Stock warehouseId={current} />
            </>
          );
        }}
      </Loaded>
    </>
  );
}
