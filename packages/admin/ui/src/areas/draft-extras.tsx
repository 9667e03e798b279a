import type { FormEvent, ReactNode } from 'react';
import { Link } from 'react-router';
import type { components, ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { FormFields, optionalNumber, optionalText, valuesOf } from '../forms';
import { useI18n } from '../i18n';
import { Field, Loaded, SaveFooter, useAction, useLoad } from '../ui';

type Draft = ItemOf<'/api/v1/draft-orders'>;
type Patch = components['schemas']['DraftOrderPatch'];

/**
 * The draft's shipping: one of the store's rates to the draft's country in its currency (the server
 * prices it for the parcel), or typed by carrier and service when the member cannot read the rates
 * or none go there; a price of the staff's own with `draft-orders.override-price`.
 */
export function ShippingForm({ draft, patch, override, children }: { draft: Draft; patch(body: Patch): Promise<unknown>; override: boolean; children?: ReactNode }) {
  const { client, can } = useAuth();
  const { t, money } = useI18n();
  const action = useAction();
  const country = draft.shipping_address?.country_code;
  const rates = useLoad(
    async () => (country && can('shipping.read') ? (await client.GET('/shipping/rates', { params: { query: { 'filter[destination_country]': country, limit: 100 } as never } })).data : []),
    [country],
  );
  // One choice per carrier and service: the server takes the bracket that covers the parcel.
  const choices = new Map<string, { carrier: string; service: string; label: string; from: number }>();
  for (const r of [...(rates.data ?? [])].sort((x, y) => x.amount - y.amount)) {
    const key = `${r.carrier} ${r.service_code}`;
    if (r.currency !== draft.currency || choices.has(key)) continue;
    choices.set(key, { carrier: r.carrier, service: r.service_code, from: r.amount, label: `${r.carrier} · ${r.service_name} · ${t('drafts.ratefrom', { price: money(r.amount, r.currency), days: r.estimated_days })}` });
  }
  const current = draft.shipping ? `${draft.shipping.carrier} ${draft.shipping.service}` : '';
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const v = valuesOf(event.currentTarget);
    const chosen = v.rate !== undefined ? choices.get(v.rate) : undefined;
    const carrier = chosen?.carrier ?? optionalText(v.carrier);
    const service = chosen?.service ?? optionalText(v.service);
    if (!carrier && !service) return void (await action.run(() => patch({ shipping: null })));
    const price = optionalNumber(v.price);
    await action.run(() => patch({ shipping: { carrier: carrier ?? '', service: service ?? '', price, reason: price === undefined ? undefined : optionalText(v.reason) } }));
  };
  return (
    <form className="card" aria-label={t('orders.shipping')} onSubmit={(e) => void submit(e)}>
      <h2>{t('orders.shipping')}</h2>
      {children}
      <Loaded state={rates}>
        {() =>
          choices.size > 0 ? (
            <Field label={t('drafts.rate')} hint={t('drafts.rate.hint')}>
              <select name="rate" defaultValue={choices.has(current) ? current : ''} key={current}>
                <option value="">{t('drafts.noshipping')}</option>
                {[...choices].map(([key, c]) => (
                  <option key={key} value={key}>
                    {c.label}
                  </option>
                ))}
              </select>
            </Field>
          ) : (
            <>
              <p className="note">{country ? t('drafts.shipping.hint') : t('drafts.rate.noaddress')}</p>
              <div className="grid2">
                <FormFields
                  fields={[
                    { name: 'carrier', label: t('settings.carrier'), value: draft.shipping?.carrier ?? '', maxLength: 100 },
                    { name: 'service', label: t('settings.servicecode'), value: draft.shipping?.service ?? '', maxLength: 100 },
                  ]}
                />
              </div>
            </>
          )
        }
      </Loaded>
      {override && (
        <div className="grid2">
          <FormFields
            fields={[
              { name: 'price', label: t('drafts.customprice'), type: 'number', min: 0, step: 1, value: draft.shipping?.custom ? String(draft.shipping.price) : '' },
              { name: 'reason', label: t('drafts.reason'), value: draft.shipping?.reason ?? '', maxLength: 500 },
            ]}
          />
        </div>
      )}
      <SaveFooter action={action} disableWhileBusy />
    </form>
  );
}

/** The store's draft-order settings: the storefront page an invoice link opens. */
export function DraftSettings() {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const state = useLoad(async () => (await client.GET('/api/v1/draft-orders/settings')).data, []);
  const writable = can('draft-orders.write');
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const url = optionalText(valuesOf(event.currentTarget).invoice_url) ?? null;
    if (await action.run(() => client.PUT('/api/v1/draft-orders/settings', { body: { invoice_url: url } }))) state.reload();
  };
  return (
    <>
      <p>
        <Link to="/drafts">← {t('drafts.title')}</Link>
      </p>
      <h1>{t('drafts.settings')}</h1>
      <Loaded state={state}>
        {(s) => (
          <form className="card" aria-label={t('drafts.settings')} onSubmit={(e) => void submit(e)}>
            <fieldset disabled={!writable}>
              <Field label={t('drafts.invoiceurl')} hint={t('drafts.invoiceurl.hint', { token: '{token}' })}>
                <input name="invoice_url" type="url" maxLength={2000} defaultValue={s.invoice_url_is_default ? '' : s.invoice_url} placeholder={s.invoice_url} key={s.updated_at ?? ''} />
              </Field>
            </fieldset>
            <p className="note">{t('drafts.linkttl', { days: s.link_ttl_days })}</p>
            {writable && <SaveFooter action={action} disableWhileBusy />}
          </form>
        )}
      </Loaded>
    </>
  );
}
