import { useState, type ReactNode } from 'react';
import { NavLink, Navigate, Route, Routes } from 'react-router';
import type { ItemOf, ResponseOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { useI18n, type Key } from '../i18n';
import { ListTable, listParams, useList } from '../list';
import { Empty, ErrorBox, Field, Loaded, Status, useAction, useLoad } from '../ui';
import { SETTINGS_PERMISSIONS } from '../settings-permissions';
import { MailTexts } from './mail-texts';
import { Currencies, Markets } from './market-settings';
import { ApiKeys, Locales, SaveForm, Store } from './store-settings';

type Region = ItemOf<'/api/v1/taxes/regions'>;
type Rate = ItemOf<'/shipping/rates'>;
type Gateway = ResponseOf<'/api/v1/payments/gateways'>['data'][number];
type Subscription = ItemOf<'/api/v1/webhooks'>;

const text = (v: FormData, name: string) => String(v.get(name) ?? '').trim();
const orNull = (value: string) => (value === '' ? null : value);

function Taxes() {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const settings = useLoad(() => client.GET('/api/v1/taxes/settings'), []);
  const regions = useList<Region>((query) => client.GET('/api/v1/taxes/regions', { params: { query: listParams(query) as never } }));
  const writable = can('taxes.write');
  return (
    <>
      <Loaded state={settings}>
        {({ data }) => (
          <SaveForm
            label={t('settings.taxes')}
            save={(v) =>
              client
                .PATCH('/api/v1/taxes/settings', {
                  body: {
                    prices_include_tax: v.get('prices_include_tax') === '' ? null : v.get('prices_include_tax') === 'true',
                    tax_shipping: v.get('tax_shipping') === 'on',
                    origin_country: orNull(text(v, 'origin_country').toUpperCase()),
                    origin_province: orNull(text(v, 'origin_province')),
                  },
                })
                .then(settings.reload)
            }
          >
            <fieldset disabled={!writable}>
              <div className="grid2">
                <Field label={t('settings.pricesincludetax')}>
                  <select name="prices_include_tax" defaultValue={data.prices_include_tax_default ? '' : String(data.prices_include_tax)}>
                    <option value="">
                      {t('settings.default')} ({data.prices_include_tax ? t('yes') : t('no')})
                    </option>
                    <option value="true">{t('yes')}</option>
                    <option value="false">{t('no')}</option>
                  </select>
                </Field>
                <label className="check">
                  <input type="checkbox" name="tax_shipping" defaultChecked={data.tax_shipping} />
                  <span>{t('settings.taxshipping')}</span>
                </label>
                <Field label={t('settings.origincountry')}>
                  <input name="origin_country" maxLength={2} pattern="[A-Za-z]{2}" defaultValue={data.origin_country ?? ''} />
                </Field>
                <Field label={t('settings.originprovince')}>
                  <input name="origin_province" maxLength={100} defaultValue={data.origin_province ?? ''} />
                </Field>
              </div>
            </fieldset>
          </SaveForm>
        )}
      </Loaded>
      <h2>{t('settings.regions')}</h2>
      {writable && (
        <SaveForm
          label={t('settings.newregion')}
          button={t('add')}
          save={async (v, form) => {
            const rate = text(v, 'standard');
            await client.POST('/api/v1/taxes/regions', { body: { country_code: text(v, 'country_code').toUpperCase(), province: orNull(text(v, 'province')), name: text(v, 'name') || undefined, rates: rate ? { standard: Math.round(Number(rate) * 100) } : {} } });
            form.reset();
            regions.reload();
          }}
        >
          <div className="grid3">
            <Field label={t('settings.country')}>
              <input name="country_code" required maxLength={2} pattern="[A-Za-z]{2}" />
            </Field>
            <Field label={t('settings.province')}>
              <input name="province" maxLength={100} />
            </Field>
            <Field label={t('customers.name')}>
              <input name="name" maxLength={200} />
            </Field>
            <Field label={t('settings.standardrate')}>
              <input name="standard" type="number" min={0} max={100} step={0.01} />
            </Field>
          </div>
        </SaveForm>
      )}
      <ListTable
        list={regions}
        caption={t('settings.regions')}
        columns={[{ label: t('customers.name') }, { label: t('settings.country') }, { label: t('settings.province') }, { label: t('settings.rates') }]}
        row={(r) => (
          <tr key={r.id}>
            <td>{r.name}</td>
            <td>{r.country_code}</td>
            <td>{r.province ?? '—'}</td>
            <td>
              {Object.entries(r.rates)
                .map(([k, bp]) => `${k} ${bp / 100} %`)
                .join(' · ') || '—'}
            </td>
          </tr>
        )}
      />
    </>
  );
}

function Shipping() {
  const { client, can, session } = useAuth();
  const { t, money } = useI18n();
  const action = useAction();
  const rates = useList<Rate>((query) => client.GET('/shipping/rates', { params: { query: listParams(query) as never } }));
  const writable = can('shipping.write');
  return (
    <>
      {writable && (
        <SaveForm
          label={t('settings.newrate')}
          button={t('add')}
          save={async (v, form) => {
            await client.POST('/shipping/rates', {
              body: {
                carrier: text(v, 'carrier'),
                service_name: text(v, 'service_name'),
                service_code: text(v, 'service_code'),
                currency: text(v, 'currency').toUpperCase(),
                amount: Number(v.get('amount')),
                estimated_days: Number(v.get('estimated_days')),
                weight_g: Number(v.get('weight_g')),
                origin_country: text(v, 'origin_country').toUpperCase(),
                destination_country: text(v, 'destination_country').toUpperCase(),
              },
            });
            form.reset();
            rates.reload();
          }}
        >
          <div className="grid3">
            <Field label={t('settings.carrier')}>
              <input name="carrier" required pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,63}" />
            </Field>
            <Field label={t('settings.service')}>
              <input name="service_name" required maxLength={200} />
            </Field>
            <Field label={t('settings.servicecode')}>
              <input name="service_code" required pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,63}" />
            </Field>
            <Field label={t('settings.price')}>
              <input name="amount" type="number" required min={0} step={1} />
            </Field>
            <Field label={t('settings.currency')}>
              <input name="currency" required maxLength={3} pattern="[A-Za-z]{3}" defaultValue={session ? 'PEN' : ''} />
            </Field>
            <Field label={t('settings.days')}>
              <input name="estimated_days" type="number" required min={0} max={365} step={1} />
            </Field>
            <Field label={t('settings.weight')}>
              <input name="weight_g" type="number" required min={1} step={1} />
            </Field>
            <Field label={t('settings.from')}>
              <input name="origin_country" required maxLength={2} pattern="[A-Za-z]{2}" />
            </Field>
            <Field label={t('settings.to')}>
              <input name="destination_country" required maxLength={2} pattern="[A-Za-z]{2}" />
            </Field>
          </div>
        </SaveForm>
      )}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <ListTable
        list={rates}
        caption={t('settings.shipping')}
        columns={[{ label: t('settings.service') }, { label: t('settings.route') }, { label: t('settings.weight'), num: true }, { label: t('settings.days'), num: true }, { label: t('settings.price'), num: true }, ...(writable ? [{ label: t('actions') }] : [])]}
        row={(r) => (
          <tr key={r.id}>
            <td>
              {r.carrier} · {r.service_name}
            </td>
            <td>
              {r.origin_country} → {r.destination_country}
            </td>
            <td className="num">{r.weight_g}</td>
            <td className="num">{r.estimated_days}</td>
            <td className="num">{money(r.amount, r.currency)}</td>
            {writable && (
              <td>
                <button type="button" className="danger" disabled={action.busy} onClick={() => void action.run(() => client.DELETE('/shipping/rates/{id}', { params: { path: { id: r.id } } })).then((ok) => ok && rates.reload())}>
                  {t('remove')} <span className="sr-only">{r.service_name}</span>
                </button>
              </td>
            )}
          </tr>
        )}
      />
    </>
  );
}

/** A gateway's switch and credentials: secrets are never shown; a field left empty keeps what is stored. */
function GatewayForm({ gateway, onSaved }: { gateway: Gateway; onSaved(): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  return (
    <SaveForm
      label={gateway.name}
      save={async (v) => {
        const credentials = Object.fromEntries(gateway.credential_fields.map((f) => [f.name, text(v, `cred.${f.name}`)]).filter(([, value]) => value !== ''));
        await client.PUT('/api/v1/payments/gateways/{id}', { params: { path: { id: gateway.id } }, body: { enabled: v.get('enabled') === 'on', ...(Object.keys(credentials).length ? { credentials } : {}) } });
        onSaved();
      }}
    >
      <fieldset disabled={!can('payments.configure')}>
        <p>
          <Status value={gateway.configured ? 'configured' : 'not_configured'} /> {gateway.currencies.join(', ')}
        </p>
        <label className="check">
          <input type="checkbox" name="enabled" defaultChecked={gateway.enabled} />
          <span>{t('settings.enabled')}</span>
        </label>
        {gateway.credential_fields.map((f) => (
          <Field key={f.name} label={f.name} hint={f.description}>
            <input
              name={`cred.${f.name}`}
              type={f.secret ? 'password' : 'text'}
              autoComplete="off"
              defaultValue={f.secret ? '' : (gateway.public_credentials[f.name] ?? '')}
              placeholder={f.secret && gateway.configured ? t('settings.secretkept') : undefined}
            />
          </Field>
        ))}
        <Field label={t('settings.notificationurl')}>
          <input readOnly value={gateway.notification_url} />
        </Field>
      </fieldset>
    </SaveForm>
  );
}

function Payments() {
  const { client } = useAuth();
  const gateways = useLoad(() => client.GET('/api/v1/payments/gateways'), []);
  return (
    <Loaded state={gateways} empty={(d) => d.data.length === 0}>
      {(d) => (
        <div className="grid2">
          {d.data.map((g) => (
            <GatewayForm key={`${g.id}-${g.configured}-${g.enabled}`} gateway={g} onSaved={gateways.reload} />
          ))}
        </div>
      )}
    </Loaded>
  );
}

function Webhooks() {
  const { client, can } = useAuth();
  const { t, date } = useI18n();
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const list = useList<Subscription>((query) => client.GET('/api/v1/webhooks', { params: { query: listParams(query) as never } }));
  const writable = can('webhooks.write');
  return (
    <>
      {writable && (
        <SaveForm
          label={t('settings.newwebhook')}
          button={t('add')}
          save={async (v, form) => {
            const events = text(v, 'events').split(/[\s,]+/).filter(Boolean);
            const created = await client.POST('/api/v1/webhooks', { body: { url: text(v, 'url'), events, description: orNull(text(v, 'description')) } });
            setSecret(created.data.secret);
            form.reset();
            list.reload();
          }}
        >
          <div className="grid2">
            <Field label={t('settings.url')}>
              <input name="url" type="url" required />
            </Field>
            <Field label={t('settings.events')} hint={t('settings.events.hint')}>
              <input name="events" required placeholder="orders.order.created, orders.order.paid" />
            </Field>
            <Field label={t('settings.description')}>
              <input name="description" maxLength={500} />
            </Field>
          </div>
        </SaveForm>
      )}
      {secret && (
        <p className="state" role="status">
          {t('settings.secretonce')} <code>{secret}</code>
        </p>
      )}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <ListTable
        list={list}
        caption={t('settings.webhooks')}
        columns={[{ label: t('settings.url') }, { label: t('settings.events') }, { label: t('status') }, { label: t('created') }, ...(writable ? [{ label: t('actions') }] : [])]}
        row={(w) => (
          <tr key={w.id}>
            <td>
              <code>{w.url}</code>
            </td>
            <td>{w.events.join(', ')}</td>
            <td>
              <Status value={w.enabled ? 'enabled' : 'disabled'} />
            </td>
            <td>{date(w.created_at)}</td>
            {writable && (
              <td className="row-actions">
                <button type="button" disabled={action.busy} onClick={() => void action.run(() => client.PATCH('/api/v1/webhooks/{id}', { params: { path: { id: w.id } }, body: { enabled: !w.enabled } })).then((ok) => ok && list.reload())}>
                  {w.enabled ? t('settings.disable') : t('settings.enable')}
                </button>
                <button type="button" className="danger" disabled={action.busy} onClick={() => void action.run(() => client.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: w.id } } })).then((ok) => ok && list.reload())}>
                  {t('remove')}
                </button>
              </td>
            )}
          </tr>
        )}
      />
    </>
  );
}

/** The settings' sections and the permission that shows each. */
const SECTIONS: Array<{ path: string; label: Key; permission?: string; element: ReactNode }> = [
  { path: 'store', label: 'settings.store', element: <Store /> },
  { path: 'api-keys', label: 'settings.keys', permission: 'store.read', element: <ApiKeys /> },
  { path: 'locales', label: 'settings.locales', element: <Locales /> },
  { path: 'currencies', label: 'settings.currencies', element: <Currencies /> },
  { path: 'markets', label: 'settings.markets', element: <Markets /> },
  { path: 'mails', label: 'settings.mails', permission: 'store.read', element: <MailTexts /> },
  { path: 'taxes', label: 'settings.taxes', permission: 'taxes.read', element: <Taxes /> },
  { path: 'shipping', label: 'settings.shipping', permission: 'shipping.read', element: <Shipping /> },
  { path: 'payments', label: 'settings.payments', permission: 'payments.read', element: <Payments /> },
  { path: 'webhooks', label: 'settings.webhooks', permission: 'webhooks.read', element: <Webhooks /> },
];

/** The permissions any of which opens the settings. */
export { SETTINGS_PERMISSIONS };

export default function Settings() {
  const { can } = useAuth();
  const { t } = useI18n();
  const sections = SECTIONS.filter((s) => can(s.permission));
  return (
    <>
      <h1>{t('nav.settings')}</h1>
      <nav className="tabs" aria-label={t('nav.settings')}>
        {sections.map((s) => (
          <NavLink key={s.path} to={`/settings/${s.path}`}>
            {t(s.label)}
          </NavLink>
        ))}
      </nav>
      <Routes>
        <Route index element={<Navigate to="/settings/store" replace />} />
        {sections.map((s) => (
          <Route key={s.path} path={s.path} element={s.element} />
        ))}
        <Route path="*" element={<Empty>{t('notfound')}</Empty>} />
      </Routes>
    </>
  );
}
