import { useState, type FormEvent, type ReactNode } from 'react';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { optionalText } from '../forms';
import { useI18n } from '../i18n';
import { ListTable, listParams, useList } from '../list';
import { ErrorBox, Field, Loaded, SaveFooter, Status, useAction, useLoad } from '../ui';

type ApiKey = ItemOf<'/api/v1/api-keys'>;

const text = (v: FormData, name: string) => String(v.get(name) ?? '').trim();
const orNull = (value: string) => (value === '' ? null : value);

/** A small form whose submit runs one write and shows its pending, error and saved states. */
export function SaveForm({ label, children, save, button }: { label: string; children: ReactNode; save(values: FormData, form: HTMLFormElement): Promise<unknown>; button?: string }) {
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    await action.run(() => save(new FormData(form), form));
  };
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={label}>
      <h2>{label}</h2>
      {children}
      <SaveFooter action={action} label={button} disableWhileBusy />
    </form>
  );
}

/** The store's name (`store.manage` changes it), its id and currency (which stay), and the customer sign-up. */
export function Store() {
  const { client, session, can } = useAuth();
  const { t } = useI18n();
  const store = useLoad(async () => (can('store.read') ? (await client.GET('/api/v1/store')).data : null), []);
  const settings = useLoad(async () => (can('customers.settings') ? (await client.GET('/api/v1/customers/settings')).data : null), []);
  const writable = can('store.manage');
  return (
    <>
      <Loaded state={store}>
        {(s) => {
          const facts = (
            <dl className="fields">
              <div>
                <dt>{t('signin.store')}</dt>
                <dd>
                  <code>{session?.tenantId}</code>
                </dd>
              </div>
              {s && !writable && (
                <div>
                  <dt>{t('settings.storename')}</dt>
                  <dd>{s.name}</dd>
                </div>
              )}
              {s && (
                <div>
                  <dt>{t('settings.currency')}</dt>
                  <dd>{s.currency}</dd>
                </div>
              )}
            </dl>
          );
          const note = <p className="note">{s ? t('settings.currency.note') : t('settings.store.note')}</p>;
          if (!s || !writable)
            return (
              <section className="card" aria-labelledby="store-id">
                <h2 id="store-id">{t('settings.store')}</h2>
                {facts}
                {note}
              </section>
            );
          return (
            <SaveForm label={t('settings.store')} save={(v) => client.PATCH('/api/v1/store', { body: { name: text(v, 'name') } }).then(store.reload)}>
              {facts}
              <Field label={t('settings.storename')}>
                <input name="name" required maxLength={200} defaultValue={s.name} key={s.updated_at} />
              </Field>
              {note}
            </SaveForm>
          );
        }}
      </Loaded>
      <Loaded state={settings}>
        {(data) =>
          data && (
            <SaveForm label={t('settings.accounts')} save={(v) => client.PUT('/api/v1/customers/settings', { body: { registration: orNull(text(v, 'registration')) as never, account_url: orNull(text(v, 'account_url')) } }).then(settings.reload)}>
              <Field label={t('settings.registration')}>
                <select name="registration" defaultValue={data.registration_is_default ? '' : data.registration}>
                  <option value="">{t('settings.default')}</option>
                  <option value="verify">{t('settings.registration.verify')}</option>
                  <option value="instant">{t('settings.registration.instant')}</option>
                  <option value="claim">{t('settings.registration.claim')}</option>
                </select>
              </Field>
              <Field label={t('settings.accounturl')}>
                <input name="account_url" type="url" defaultValue={data.account_url_is_default ? '' : data.account_url} placeholder={data.account_url} />
              </Field>
            </SaveForm>
          )
        }
      </Loaded>
    </>
  );
}

/** The store's API keys: the token shown once when issued, never again; revoked at once. */
export function ApiKeys() {
  const { client, can } = useAuth();
  const { t, date } = useI18n();
  const action = useAction();
  const [issued, setIssued] = useState<{ name: string; token: string } | null>(null);
  const keys = useList<ApiKey>((query) => client.GET('/api/v1/api-keys', { params: { query: listParams(query) as never } }));
  const roles = useLoad(async () => (can('staff.read') ? (await client.GET('/api/v1/roles', { params: { query: { limit: 100 } } })).data : []), []);
  const writable = can('store.manage');
  return (
    <>
      {writable && (
        <SaveForm
          label={t('keys.new')}
          button={t('keys.issue')}
          save={async (v, form) => {
            const expires = optionalText(text(v, 'expires_at'));
            const created = await client.POST('/api/v1/api-keys', {
              body: {
                name: text(v, 'name'),
                scope: text(v, 'scope') as 'admin' | 'storefront',
                role_id: optionalText(text(v, 'role_id')),
                expires_at: expires ? new Date(`${expires}T23:59:59`).toISOString() : undefined,
              },
            });
            setIssued({ name: created.data.name, token: created.data.token });
            form.reset();
            keys.reload();
          }}
        >
          <div className="grid2">
            <Field label={t('customers.name')}>
              <input name="name" required maxLength={200} />
            </Field>
            <Field label={t('keys.scope')} hint={t('keys.scope.hint')}>
              <select name="scope" defaultValue="storefront">
                <option value="storefront">{t('keys.storefront')}</option>
                <option value="admin">{t('keys.admin')}</option>
              </select>
            </Field>
            {(roles.data?.length ?? 0) > 0 && (
              <Field label={t('keys.role')} hint={t('keys.role.hint')}>
                <select name="role_id" defaultValue="">
                  <option value="">{t('keys.everypermission')}</option>
                  {roles.data!.filter((r) => !r.built_in).map((r) => (
                    <option key={r.id} value={r.id}>
                      {r.name}
                    </option>
                  ))}
                </select>
              </Field>
            )}
            <Field label={t('keys.expires')} hint={t('keys.expires.hint')}>
              <input name="expires_at" type="date" />
            </Field>
          </div>
        </SaveForm>
      )}
      {issued && (
        <div className="state" role="status">
          <p>{t('keys.tokenonce', { name: issued.name })}</p>
          <code className="secret">{issued.token}</code>
        </div>
      )}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <ListTable
        list={keys}
        caption={t('settings.keys')}
        region
        columns={[{ label: t('customers.name') }, { label: t('keys.scope') }, { label: t('keys.prefix') }, { label: t('status') }, { label: t('created') }, ...(writable ? [{ label: t('actions') }] : [])]}
        row={(k) => (
          <tr key={k.id}>
            <td>{k.name}</td>
            <td>{k.scope === 'admin' ? t('keys.admin') : t('keys.storefront')}</td>
            <td>
              <code>{k.token_prefix}…</code>
            </td>
            <td>
              <Status value={k.revoked_at ? 'revoked' : k.expires_at && Date.parse(k.expires_at) < Date.now() ? 'expired' : 'active'} />
            </td>
            <td>{date(k.created_at)}</td>
            {writable && (
              <td className="row-actions">
                {!k.revoked_at && (
                  <button type="button" className="danger" disabled={action.busy} onClick={() => void action.run(() => client.DELETE('/api/v1/api-keys/{id}', { params: { path: { id: k.id } } })).then((ok) => ok && keys.reload())}>
                    {t('keys.revoke')} <span className="sr-only">{k.name}</span>
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

/** The locales the store sells in and its default one (`locales.manage` changes them). */
export function Locales() {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const locales = useLoad(async () => (await client.GET('/api/v1/locales')).data, []);
  const writable = can('locales.manage');
  return (
    <Loaded state={locales}>
      {(l) => {
        const others = l.locales.filter((x) => x !== l.default_locale);
        if (!writable)
          return (
            <section className="card" aria-labelledby="locales-title">
              <h2 id="locales-title">{t('settings.locales')}</h2>
              <dl className="fields">
                <div>
                  <dt>{t('locales.default')}</dt>
                  <dd>{l.default_locale}</dd>
                </div>
                <div>
                  <dt>{t('locales.others')}</dt>
                  <dd>{others.join(', ') || '—'}</dd>
                </div>
              </dl>
            </section>
          );
        return (
          <SaveForm
            label={t('settings.locales')}
            save={async (v) => {
              await client.PUT('/api/v1/locales', { body: { default_locale: text(v, 'default_locale'), locales: text(v, 'locales').split(/[\s,]+/).filter(Boolean) } });
              locales.reload();
            }}
          >
            <div className="grid2" key={l.locales.join(',')}>
              <Field label={t('locales.default')} hint={t('locales.default.hint')}>
                <input name="default_locale" required pattern="[a-z]{2,3}(-[A-Z]{2})?" defaultValue={l.default_locale} spellCheck={false} />
              </Field>
              <Field label={t('locales.others')} hint={t('locales.others.hint')}>
                <input name="locales" defaultValue={others.join(', ')} spellCheck={false} />
              </Field>
            </div>
            <p className="note">{t('locales.note')}</p>
          </SaveForm>
        );
      }}
    </Loaded>
  );
}
