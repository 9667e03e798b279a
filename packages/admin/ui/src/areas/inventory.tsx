import { useState, type FormEvent } from 'react';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { ListTable, listParams, useList } from '../list';
import { Empty, ErrorBox, Field, Loaded, useAction, useLoad } from '../ui';

const REASONS = ['received', 'returned', 'damaged', 'lost', 'correction', 'other'] as const;
type Reason = (typeof REASONS)[number];
type StockLevel = ItemOf<'/api/v1/inventory/warehouses/{id}/stock'>;
type Adjustment = ItemOf<'/api/v1/inventory/warehouses/{id}/adjustments'>;

/** Receiving goods: a variant found by its product's title or SKU, and the units that came in. */
function Receive({ warehouseId, onDone }: { warehouseId: string; onDone(): void }) {
  const { client } = useAuth();
  const { t, money } = useI18n();
  const action = useAction();
  const [q, setQ] = useState('');
  const [text, setText] = useState('');
  const found = useLoad(async () => (q ? (await client.GET('/api/v1/catalog/products', { params: { query: { q, limit: 10 } } })).data : []), [q]);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const values = new FormData(form);
    const body = { variant_id: String(values.get('variant_id')), delta: Number(values.get('quantity')), reason: 'received' as Reason, note: String(values.get('note') ?? '') || undefined };
    if (await action.run(() => client.POST('/api/v1/inventory/warehouses/{id}/stock/adjust', { params: { path: { id: warehouseId } }, body }))) {
      form.reset();
      onDone();
    }
  };
  const variants = (found.data ?? []).flatMap((p) => p.variants.map((v) => ({ id: v.id, label: `${p.title} · ${v.title}${v.sku ? ` (${v.sku})` : ''} · ${money(v.price, v.currency)}` })));
  return (
    <section className="card" aria-labelledby="receive">
      <h2 id="receive">{t('inventory.receive')}</h2>
      <form
        className="toolbar"
        role="search"
        aria-label={t('inventory.findvariant')}
        onSubmit={(e) => {
          e.preventDefault();
          setQ(text.trim());
        }}
      >
        <Field label={t('inventory.findvariant')}>
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
              <form className="inline-form" onSubmit={(e) => void submit(e)} aria-label={t('inventory.receive')}>
                <Field label={t('products.variant')}>
                  <select name="variant_id">
                    {variants.map((v) => (
                      <option key={v.id} value={v.id}>
                        {v.label}
                      </option>
                    ))}
                  </select>
                </Field>
                <Field label={t('inventory.quantity')}>
                  <input name="quantity" type="number" min={1} step={1} required />
                </Field>
                <Field label={t('inventory.note')}>
                  <input name="note" maxLength={500} />
                </Field>
                <button type="submit" className="primary" disabled={action.busy}>
                  {t('inventory.receive')}
                </button>
              </form>
            )
          }
        </Loaded>
      )}
      {action.error !== undefined && <ErrorBox error={action.error} />}
    </section>
  );
}

function Stock({ warehouseId, version, onAdjusted }: { warehouseId: string; version: number; onAdjusted(): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const [adjusting, setAdjusting] = useState<string | null>(null);
  const list = useList<StockLevel>((query) => client.GET('/api/v1/inventory/warehouses/{id}/stock', { params: { path: { id: warehouseId }, query: { ...listParams(query), sort: 'on_hand' } as never } }), { deps: [warehouseId, version] });
  const adjust = async (event: FormEvent<HTMLFormElement>, variantId: string) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = { variant_id: variantId, delta: Number(form.get('delta')), reason: String(form.get('reason')) as Reason };
    if (await action.run(() => client.POST('/api/v1/inventory/warehouses/{id}/stock/adjust', { params: { path: { id: warehouseId } }, body }))) {
      setAdjusting(null);
      onAdjusted();
    }
  };
  const writable = can('inventory.write');
  return (
    <>
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <ListTable
        list={list}
        caption={t('inventory.title')}
        columns={[{ label: t('products.sku') }, { label: t('inventory.onhand'), num: true }, { label: t('inventory.reserved'), num: true }, { label: t('inventory.available'), num: true }, ...(writable ? [{ label: t('actions') }] : [])]}
        row={(s) => (
          <tr key={s.variant_id}>
            <td>{s.sku ?? s.variant_id.slice(0, 8)}</td>
            <td className="num">{s.on_hand}</td>
            <td className="num">{s.reserved}</td>
            <td className="num">{s.available}</td>
            {writable && (
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
                  <button type="button" onClick={() => setAdjusting(s.variant_id)} aria-label={`${t('inventory.adjust')} ${s.sku ?? s.variant_id.slice(0, 8)}`}>
                    {t('inventory.adjust')}
                  </button>
                )}
              </td>
            )}
          </tr>
        )}
      />
    </>
  );
}

/** The warehouse's trail of stock changes, newest first. */
function Adjustments({ warehouseId, version }: { warehouseId: string; version: number }) {
  const { client } = useAuth();
  const { t, date } = useI18n();
  const list = useList<Adjustment, 'reason'>((query) => client.GET('/api/v1/inventory/warehouses/{id}/adjustments', { params: { path: { id: warehouseId }, query: listParams(query) as never } }), { limit: 10, deps: [warehouseId, version] });
  return (
    <section className="card" aria-labelledby="adjustments">
      <h2 id="adjustments">{t('inventory.adjustments')}</h2>
      <ListTable
        list={list}
        caption={t('inventory.adjustments')}
        columns={[{ label: t('created') }, { label: t('inventory.reason') }, { label: t('inventory.delta'), num: true }, { label: t('inventory.onhand'), num: true }, { label: t('inventory.note') }]}
        row={(a) => (
          <tr key={a.id}>
            <td>{date(a.created_at)}</td>
            <td>{a.reason}</td>
            <td className="num">{a.delta > 0 ? `+${a.delta}` : a.delta}</td>
            <td className="num">{a.quantity}</td>
            <td>{a.note ?? ''}</td>
          </tr>
        )}
      />
    </section>
  );
}

function NewWarehouse({ onSaved }: { onSaved(id: string): void }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const [open, setOpen] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const values = new FormData(event.currentTarget);
    let id = '';
    const ok = await action.run(async () => {
      id = (await client.POST('/api/v1/inventory/warehouses', { body: { name: String(values.get('name')).trim(), code: String(values.get('code')).trim() } })).data.id;
    });
    if (ok) {
      setOpen(false);
      onSaved(id);
    }
  };
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        {t('inventory.newwarehouse')}
      </button>
    );
  return (
    <form className="card inline-form" onSubmit={(e) => void submit(e)} aria-label={t('inventory.newwarehouse')}>
      <Field label={t('customers.name')}>
        <input name="name" required maxLength={255} />
      </Field>
      <Field label={t('inventory.code')}>
        <input name="code" required maxLength={32} pattern="[A-Za-z0-9][A-Za-z0-9_\-]*" />
      </Field>
      <button type="submit" className="primary" disabled={action.busy}>
        {t('save')}
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        {t('cancel')}
      </button>
      {action.error !== undefined && <ErrorBox error={action.error} />}
    </form>
  );
}

export default function Inventory() {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const [chosen, setChosen] = useState('');
  // Bumped by every change of stock, so the levels and the trail are read again.
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  const state = useLoad(() => client.GET('/api/v1/inventory/warehouses', { params: { query: { limit: 100 } } }), []);
  return (
    <>
      <div className="title-row">
        <h1>{t('inventory.title')}</h1>
        {can('inventory.write') && (
          <NewWarehouse
            onSaved={(id) => {
              setChosen(id);
              state.reload();
            }}
          />
        )}
      </div>
      <Loaded state={state}>
        {(d) => {
          if (d.data.length === 0) return <Empty>{t('inventory.nowarehouse')}</Empty>;
          const current = d.data.find((w) => w.id === chosen)?.id ?? (d.data.find((w) => w.is_default) ?? d.data[0]).id;
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
              {can('inventory.write') && can('catalog.read') && <Receive warehouseId={current} onDone={changed} />}
              <Stock warehouseId={current} version={version} onAdjusted={changed} />
              <Adjustments warehouseId={current} version={version} />
            </>
          );
        }}
      </Loaded>
    </>
  );
}
