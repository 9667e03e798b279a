import { useSearchParams } from 'react-router';
import { callPath } from '../api';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { Empty, ErrorBox, Field, Loaded, useAction, useLoad } from '../ui';
import { SaveForm } from './store-settings';

/** `GET /api/v1/mail-texts`: a mail the installed plugins send, with the store's texts per locale. */
interface Mail {
  key: string;
  plugin: string;
  description: string;
  variables: Record<string, string>;
  texts: MailText[];
}
interface MailText {
  locale: string;
  subject: string;
  text: string;
  updated_at: string;
}

const text = (v: FormData, name: string) => String(v.get(name) ?? '').trim();
const textPath = (key: string, locale: string) => `/api/v1/mail-texts/${encodeURIComponent(key)}/${encodeURIComponent(locale)}`;

/**
 * The e-mails the store's plugins send its customers: each one's variables and, per locale of the
 * store, the store's own subject and text (`store.manage` writes them). What staff write is shown
 * as text, never as HTML.
 */
export function MailTexts() {
  const { client } = useAuth();
  const { t } = useI18n();
  const [params, setParams] = useSearchParams();
  const open = params.get('mail');
  const state = useLoad(async () => {
    const [mails, locales] = await Promise.all([callPath(client, 'GET', '/api/v1/mail-texts'), client.GET('/api/v1/locales')]);
    return { mails: mails.data as Mail[], locales: locales.data };
  }, []);
  return (
    <Loaded state={state}>
      {({ mails, locales }) => {
        if (open) {
          const mail = mails.find((m) => m.key === open);
          return (
            <>
              <p>
                <button type="button" onClick={() => setParams({})}>
                  ← {t('mails.back')}
                </button>
              </p>
              {mail ? <MailDetail mail={mail} locales={[locales.default_locale, ...locales.locales.filter((l) => l !== locales.default_locale)]} defaultLocale={locales.default_locale} onSaved={state.reload} /> : <Empty>{t('notfound')}</Empty>}
            </>
          );
        }
        if (mails.length === 0) return <Empty>{t('mails.none')}</Empty>;
        return (
          <div className="table-wrap">
            <table>
              <caption className="sr-only">{t('settings.mails')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('mails.mail')}</th>
                  <th scope="col">{t('settings.description')}</th>
                  <th scope="col">{t('mails.texts')}</th>
                </tr>
              </thead>
              <tbody>
                {mails.map((m) => (
                  <tr key={m.key}>
                    <td>
                      <a
                        href={`?mail=${encodeURIComponent(m.key)}`}
                        onClick={(e) => {
                          e.preventDefault();
                          setParams({ mail: m.key });
                        }}
                      >
                        <code>{m.key}</code>
                      </a>
                    </td>
                    <td>{m.description}</td>
                    <td>{m.texts.map((x) => x.locale).join(', ') || t('mails.builtin')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      }}
    </Loaded>
  );
}

function MailDetail({ mail, locales, defaultLocale, onSaved }: { mail: Mail; locales: string[]; defaultLocale: string; onSaved(): void }) {
  const { t } = useI18n();
  const variables = Object.entries(mail.variables);
  return (
    <>
      <section className="card" aria-labelledby="mail-title">
        <h2 id="mail-title">
          <code>{mail.key}</code>
        </h2>
        <p>{mail.description}</p>
        <h3>{t('mails.variables')}</h3>
        {variables.length === 0 ? (
          <p className="note">{t('mails.novariables')}</p>
        ) : (
          <>
            <dl className="fields">
              {variables.map(([name, what]) => (
                <div key={name}>
                  <dt>
                    <code>{`{{${name}}}`}</code>
                  </dt>
                  <dd>{what}</dd>
                </div>
              ))}
            </dl>
            <p className="note">{t('mails.variables.hint')}</p>
          </>
        )}
      </section>
      {locales.map((locale) => (
        <MailTextForm key={`${locale}-${mail.texts.find((x) => x.locale === locale)?.updated_at ?? ''}`} mail={mail} locale={locale} defaultLocale={defaultLocale} onSaved={onSaved} />
      ))}
    </>
  );
}

/** One locale's subject and text: written, saved or removed; without one, what the mail falls back to. */
function MailTextForm({ mail, locale, defaultLocale, onSaved }: { mail: Mail; locale: string; defaultLocale: string; onSaved(): void }) {
  const { client, can } = useAuth();
  const { t, date } = useI18n();
  const remove = useAction();
  const own = mail.texts.find((x) => x.locale === locale);
  const fallback = locale !== defaultLocale && mail.texts.some((x) => x.locale === defaultLocale) ? t('mails.fallback.default', { locale: defaultLocale }) : t('mails.fallback.builtin');
  const label = locale === defaultLocale ? t('mails.locale.default', { locale }) : t('mails.locale', { locale });
  const status = own ? (
    <>
      <p className="note">{t('mails.written', { date: date(own.updated_at) })}</p>
      <div className="mail-saved" aria-label={t('mails.saved', { locale })} role="region">
        <p>
          <strong>{own.subject}</strong>
        </p>
        <p className="mail-text">{own.text}</p>
      </div>
    </>
  ) : (
    <p className="note">{fallback}</p>
  );
  if (!can('store.manage'))
    return (
      <section className="card" aria-labelledby={`mail-${locale}`}>
        <h2 id={`mail-${locale}`}>{label}</h2>
        {status}
      </section>
    );
  return (
    <SaveForm
      label={label}
      save={async (v) => {
        await callPath(client, 'PUT', textPath(mail.key, locale), { subject: text(v, 'subject'), text: text(v, 'text') });
        onSaved();
      }}
    >
      {status}
      <Field label={t('mails.subject')}>
        <input name="subject" required maxLength={200} defaultValue={own?.subject} />
      </Field>
      <Field label={t('mails.text')} hint={t('mails.text.hint')}>
        <textarea name="text" required maxLength={20_000} rows={8} defaultValue={own?.text} />
      </Field>
      {own && (
        <p>
          <button type="button" className="danger" disabled={remove.busy} onClick={() => void remove.run(() => callPath(client, 'DELETE', textPath(mail.key, locale))).then((ok) => ok && onSaved())}>
            {t('mails.remove')}
          </button>
        </p>
      )}
      {remove.error !== undefined && <ErrorBox error={remove.error} />}
    </SaveForm>
  );
}
