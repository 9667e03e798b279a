import { useState, type FormEvent } from 'react';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { ListTable, ListToolbar, listParams, useList } from '../list';
import { ErrorBox, Field, Status, useAction, useLoad } from '../ui';

type Coupon = ItemOf<'/api/v1/discounts/coupons'>;
type Tier = ItemOf<'/api/v1/discounts/volume'>;
const COUPON_STATUSES = ['active', 'scheduled', 'expired', 'exhausted', 'inactive'] as const;
const COUPON_TYPES = ['percentage', 'fixed_amount'] as const;

/** Basis points as a percentage (1250 → 12.5 %), and back. */
const percent = (bp: number) => `${(bp / 100).toLocaleString(undefined, { maximumFractionDigits: 2 })} %`;
const basisPoints = (value: string) => Math.round(Number(value) * 100);
const optionalInt = (value: FormDataEntryValue | null) => (value === null || String(value).trim() === '' ? undefined : Number(value));
const localToIso = (value: FormDataEntryValue | null) => (value ? new Date(String(value)).toISOString() : undefined);

function NewCoupon({ onSaved }: { onSaved(): void }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const [type, setType] = useState<(typeof COUPON_TYPES)[number]>('percentage');
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const v = new FormData(form);
    const value = type === 'percentage' ? basisPoints(String(v.get('value'))) : Number(v.get('value'));
    const body = {
      code: String(v.get('code')).trim(),
      type,
      value,
      min_order_amount: optionalInt(v.get('min_order_amount')),
      max_uses: optionalInt(v.get('max_uses')) ?? null,
      max_uses_per_customer: optionalInt(v.get('max_uses_per_customer')) ?? null,
      starts_at: localToIso(v.get('starts_at')) ?? null,
      expires_at: localToIso(v.get('expires_at')) ?? null,
    };
    if (await action.run(() => client.POST('/api/v1/discounts/coupons', { body }))) {
      form.reset();
      onSaved();
    }
  };
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={t('discounts.newcoupon')}>
      <h2>{t('discounts.newcoupon')}</h2>
      <div className="grid3">
        <Field label={t('discounts.code')}>
          <input name="code" required maxLength={64} pattern="[A-Za-z0-9_\-]+" spellCheck={false} />
        </Field>
        <Field label={t('discounts.type')}>
          <select name="type" value={type} onChange={(e) => setType(e.target.value as typeof type)}>
            {COUPON_TYPES.map((value) => (
              <option key={value} value={value}>
                {value === 'percentage' ? t('discounts.percentage') : t('discounts.fixed')}
              </option>
            ))}
          </select>
        </Field>
        <Field label={type === 'percentage' ? t('discounts.percent') : t('discounts.amount')}>
          <input name="value" type="number" required min={type === 'percentage' ? 0.01 : 1} max={type === 'percentage' ? 100 : undefined} step={type === 'percentage' ? 0.01 : 1} />
        </Field>
        <Field label={t('discounts.minorder')}>
          <input name="min_order_amount" type="number" min={0} step={1} />
        </Field>
        <Field label={t('discounts.maxuses')}>
          <input name="max_uses" type="number" min={1} step={1} />
        </Field>
        <Field label={t('discounts.maxpercustomer')}>
          <input name="max_uses_per_customer" type="number" min={1} step={1} />
        </Field>
        <Field label={t('discounts.starts')}>
          <input name="starts_at" type="datetime-local" />
        </Field>
        <Field label={t('discounts.expires')}>
          <input name="expires_at" type="datetime-local" />
        </Field>
      </div>
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <button type="submit" className="primary" disabled={action.busy}>
        {action.busy ? t('saving') : t('discounts.create')}
      </button>
    </form>
  );
}

function Coupons() {
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const action = useAction();
  const list = useList<Coupon, 'status' | 'type'>((query) => client.GET('/api/v1/discounts/coupons', { params: { query: listParams(query) as never } }));
  const writable = can('discounts.write');
  const change = (work: () => Promise<unknown>) => void action.run(work).then((ok) => ok && list.reload());
  return (
    <section aria-labelledby="coupons">
      <h2 id="coupons">{t('discounts.coupons')}</h2>
      {writable && <NewCoupon onSaved={list.reload} />}
      <ListToolbar
        list={list}
        placeholder={t('discounts.code')}
        filters={[
          { name: 'status', label: t('status'), options: COUPON_STATUSES.map((value) => ({ value })) },
          { name: 'type', label: t('discounts.type'), options: [{ value: 'percentage', label: t('discounts.percentage') }, { value: 'fixed_amount', label: t('discounts.fixed') }] },
        ]}
      />
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <ListTable
        list={list}
        caption={t('discounts.coupons')}
        columns={[{ label: t('discounts.code') }, { label: t('discounts.value') }, { label: t('status') }, { label: t('discounts.uses'), num: true }, { label: t('discounts.expires') }, ...(writable ? [{ label: t('actions') }] : [])]}
        row={(c) => (
          <tr key={c.id}>
            <td>
              <code>{c.code}</code>
            </td>
            <td>{c.type === 'percentage' ? percent(c.value) : money(c.value, c.currency)}</td>
            <td>
              <Status value={c.status} />
            </td>
            <td className="num">
              {c.uses_count}
              {c.max_uses ? ` / ${c.max_uses}` : ''}
            </td>
            <td>{date(c.expires_at)}</td>
            {writable && (
              <td className="row-actions">
                <button type="button" disabled={action.busy} onClick={() => change(() => client.PATCH('/api/v1/discounts/coupons/{id}', { params: { path: { id: c.id } }, body: { is_active: !c.is_active } }))}>
                  {c.is_active ? t('discounts.pause') : t('discounts.resume')} <span className="sr-only">{c.code}</span>
                </button>
                <button type="button" className="danger" disabled={action.busy} onClick={() => change(() => client.DELETE('/api/v1/discounts/coupons/{id}', { params: { path: { id: c.id } } }))}>
                  {t('remove')} <span className="sr-only">{c.code}</span>
                </button>
              </td>
            )}
          </tr>
        )}
      />
    </section>
  );
}

/** A product chosen by searching its title. */
export function ProductChoice({ name, label }: { name: string; label: string }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const [q, setQ] = useState('');
  const found = useLoad(async () => (q ? (await client.GET('/api/v1/catalog/products', { params: { query: { q, limit: 10 } } })).data : []), [q]);
  return (
    <>
      <Field label={t('discounts.findproduct')}>
        <input
          type="search"
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              setQ(e.currentTarget.value.trim());
            }
          }}
          onBlur={(e) => setQ(e.currentTarget.value.trim())}
        />
      </Field>
      <Field label={label}>
        <select name={name} required disabled={!found.data?.length}>
          {(found.data ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.title}
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}

function VolumeTiers() {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const list = useList<Tier>((query) => client.GET('/api/v1/discounts/volume', { params: { query: { ...listParams(query), sort: 'min_quantity' } as never } }));
  // The tiers name products by id: their titles are read once per page.
  const titles = useLoad(async () => {
    const ids = [...new Set((list.state.data?.data ?? []).map((tier) => tier.product_id))];
    const found: Record<string, string> = {};
    await Promise.all(ids.map(async (id) => (found[id] = (await client.GET('/api/v1/catalog/products/{id}', { params: { path: { id } } })).data.title)));
    return found;
  }, [list.state.data]);
  const writable = can('discounts.write');
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const v = new FormData(form);
    const body = { product_id: String(v.get('product_id')), min_quantity: Number(v.get('min_quantity')), value: basisPoints(String(v.get('value'))) };
    if (await action.run(() => client.POST('/api/v1/discounts/volume', { body }))) {
      form.reset();
      list.reload();
    }
  };
  return (
    <section aria-labelledby="tiers">
      <h2 id="tiers">{t('discounts.tiers')}</h2>
      <p className="note">{t('discounts.tiers.note')}</p>
      {writable && can('catalog.read') && (
        <form className="card inline-form" onSubmit={(e) => void submit(e)} aria-label={t('discounts.newtier')}>
          <ProductChoice name="product_id" label={t('discounts.product')} />
          <Field label={t('discounts.minquantity')}>
            <input name="min_quantity" type="number" min={1} step={1} required />
          </Field>
          <Field label={t('discounts.percent')}>
            <input name="value" type="number" min={0.01} max={100} step={0.01} required />
          </Field>
          <button type="submit" className="primary" disabled={action.busy}>
            {t('discounts.newtier')}
          </button>
        </form>
      )}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <ListTable
        list={list}
        caption={t('discounts.tiers')}
        columns={[{ label: t('discounts.product') }, { label: t('discounts.minquantity'), num: true }, { label: t('discounts.percent'), num: true }, ...(writable ? [{ label: t('actions') }] : [])]}
        row={(tier) => (
          <tr key={tier.id}>
            <td>{titles.data?.[tier.product_id] ?? tier.product_id.slice(0, 8)}</td>
            <td className="num">{tier.min_quantity}</td>
            <td className="num">{percent(tier.value)}</td>
            {writable && (
              <td>
                <button type="button" className="danger" disabled={action.busy} onClick={() => void action.run(() => client.DELETE('/api/v1/discounts/volume/{id}', { params: { path: { id: tier.id } } })).then((ok) => ok && list.reload())}>
                  {t('remove')}
                </button>
              </td>
            )}
          </tr>
        )}
      />
    </section>
  );
}

export default function Discounts() {
  const { t } = useI18n();
  return (
    <>
      <h1>{t('nav.discounts')}</h1>
      <Coupons />
      <VolumeTiers />
    </>
  );
}
