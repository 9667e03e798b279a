import { useEffect, useRef, useState, type ReactNode } from 'react';
import { callPath } from '../api';
import { useAuth } from '../auth';
import { useI18n, type Key } from '../i18n';
import { ErrorBox, Field, Loaded, useAction, useLoad } from '../ui';
import { SaveForm } from './store-settings';

/** `GET /api/v1/currencies`: the default first, with rate "1". */
interface StoreCurrencies {
  default_currency: string;
  currencies: Array<{ code: string; rate: string | null; rounding_increment: number; rounding: Rounding; decimals: number }>;
}
type Rounding = 'nearest' | 'up' | 'down';
interface Market {
  id: string;
  handle: string;
  name: string;
  countries: string[];
  currency: string;
  default_locale: string;
  prices_include_tax: boolean | null;
}
/** A currency row being edited: `rate` as typed, empty for none. */
interface CurrencyRow {
  row: number;
  code: string;
  rate: string;
  rounding_increment: string;
  rounding: Rounding;
}

const ROUNDINGS: Rounding[] = ['nearest', 'up', 'down'];
const RATE = '\\d{1,10}(\\.\\d{1,10})?';
const text = (v: FormData, name: string) => String(v.get(name) ?? '').trim();

const loadCurrencies = async (client: ReturnType<typeof useAuth>['client']) => (await callPath(client, 'GET', '/api/v1/currencies')).data as StoreCurrencies;

/** The store's default currency (it stays) and the others it sells in, with their rates and rounding (`currencies.manage` changes them). */
export function Currencies() {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const currencies = useLoad(() => loadCurrencies(client), []);
  const writable = can('currencies.manage');
  return (
    <Loaded state={currencies}>
      {(c) => {
        const others = c.currencies.filter((x) => x.code !== c.default_currency);
        const facts = (
          <dl className="fields">
            <div>
              <dt>{t('currencies.default')}</dt>
              <dd>{c.default_currency}</dd>
            </div>
          </dl>
        );
        if (!writable)
          return (
            <section className="card" aria-labelledby="currencies-title">
              <h2 id="currencies-title">{t('settings.currencies')}</h2>
              {facts}
              {others.length === 0 ? (
                <p className="note">{t('currencies.none')}</p>
              ) : (
                <div className="table-wrap" tabIndex={0} role="region" aria-label={t('currencies.others')}>
                  <table>
                    <caption className="sr-only">{t('currencies.others')}</caption>
                    <thead>
                      <tr>
                        <th scope="col">{t('currencies.code')}</th>
                        <th scope="col" className="num">{t('currencies.rate')}</th>
                        <th scope="col" className="num">{t('currencies.increment')}</th>
                        <th scope="col">{t('currencies.rounding')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {others.map((x) => (
                        <tr key={x.code}>
                          <td>{x.code}</td>
                          <td className="num">{x.rate ?? t('currencies.norate')}</td>
                          <td className="num">{x.rounding_increment}</td>
                          <td>{t(`currencies.${x.rounding}` as Key)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
          );
        return <CurrenciesForm facts={facts} initial={others} />;
      }}
    </Loaded>
  );
}

/** The store's currencies as rows to edit, numbered from `first`. */
const toRows = (currencies: StoreCurrencies['currencies'], first: number): CurrencyRow[] =>
  currencies.map((x, i) => ({ row: first + i, code: x.code, rate: x.rate ?? '', rounding_increment: String(x.rounding_increment), rounding: x.rounding }));

/** The other currencies as rows: added, changed and removed on the page, then saved at once (the list as saved shown again). */
function CurrenciesForm({ facts, initial }: { facts: ReactNode; initial: StoreCurrencies['currencies'] }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const next = useRef(initial.length);
  const [rows, setRows] = useState<CurrencyRow[]>(() => toRows(initial, 0));
  const change = (row: number, patch: Partial<CurrencyRow>) => setRows((all) => all.map((r) => (r.row === row ? { ...r, ...patch } : r)));
  return (
    <SaveForm
      label={t('settings.currencies')}
      save={async () => {
        const currencies = rows.map((r) => ({ code: r.code.trim().toUpperCase(), rate: r.rate.trim() === '' ? null : r.rate.trim(), rounding_increment: Number(r.rounding_increment) || 1, rounding: r.rounding }));
        const saved = (await callPath(client, 'PUT', '/api/v1/currencies', { currencies })).data as StoreCurrencies;
        const others = saved.currencies.filter((x) => x.code !== saved.default_currency);
        setRows(toRows(others, next.current));
        next.current += others.length;
      }}
    >
      {facts}
      <p className="note">{t('currencies.default.note')}</p>
      <h3>{t('currencies.others')}</h3>
      {rows.length === 0 ? (
        <p className="note">{t('currencies.none')}</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">{t('currencies.others')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('currencies.code')}</th>
                <th scope="col">{t('currencies.rate')}</th>
                <th scope="col">{t('currencies.increment')}</th>
                <th scope="col">{t('currencies.rounding')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.row}>
                  <td>
                    <input aria-label={t('currencies.code')} required maxLength={3} pattern="[A-Za-z]{3}" size={4} value={r.code} onChange={(e) => change(r.row, { code: e.target.value.toUpperCase() })} spellCheck={false} />
                  </td>
                  <td>
                    <input aria-label={t('currencies.rate')} inputMode="decimal" pattern={RATE} placeholder={t('currencies.norate')} value={r.rate} onChange={(e) => change(r.row, { rate: e.target.value })} />
                  </td>
                  <td>
                    <input aria-label={t('currencies.increment')} type="number" required min={1} max={1_000_000} step={1} value={r.rounding_increment} onChange={(e) => change(r.row, { rounding_increment: e.target.value })} />
                  </td>
                  <td>
                    <select aria-label={t('currencies.rounding')} value={r.rounding} onChange={(e) => change(r.row, { rounding: e.target.value as Rounding })}>
                      {ROUNDINGS.map((x) => (
                        <option key={x} value={x}>
                          {t(`currencies.${x}` as Key)}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <button type="button" className="danger" onClick={() => setRows((all) => all.filter((x) => x.row !== r.row))}>
                      {t('remove')} <span className="sr-only">{r.code}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p>
        <button type="button" onClick={() => setRows((all) => [...all, { row: next.current++, code: '', rate: '', rounding_increment: '1', rounding: 'nearest' }])}>
          {t('currencies.add')}
        </button>
      </p>
      <p className="note">{t('currencies.note')}</p>
    </SaveForm>
  );
}

/** A market's tax mode as the list shows it. */
const taxMode = (value: boolean | null): Key => (value === null ? 'markets.tax.store' : value ? 'markets.tax.included' : 'markets.tax.added');

/** The store's markets: countries with a currency, a default language and a tax mode (`markets.manage` changes them). */
export function Markets() {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const [editing, setEditing] = useState<Market | 'new' | null>(null);
  const [removing, setRemoving] = useState<Market | null>(null);
  const writable = can('markets.manage');
  const state = useLoad(async () => {
    const [markets, currencies, locales] = await Promise.all([callPath(client, 'GET', '/api/v1/markets'), loadCurrencies(client), client.GET('/api/v1/locales')]);
    return { markets: markets.data as Market[], currencies: currencies.currencies.map((c) => c.code), locales: locales.data };
  }, []);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), [removing]);
  return (
    <Loaded state={state}>
      {({ markets, currencies, locales }) => (
        <>
          {writable && editing === null && (
            <p>
              <button type="button" className="primary" onClick={() => setEditing('new')}>
                {t('markets.new')}
              </button>
            </p>
          )}
          {writable && editing !== null && (
            <MarketForm
              key={editing === 'new' ? 'new' : editing.id}
              market={editing === 'new' ? null : editing}
              currencies={currencies}
              locales={locales.locales}
              defaultLocale={locales.default_locale}
              onCancel={() => setEditing(null)}
              onSaved={() => {
                setEditing(null);
                state.reload();
              }}
            />
          )}
          {removing && (
            <div className="state" role="group" aria-labelledby="market-removing">
              <p id="market-removing">{t('markets.remove.confirm', { name: removing.name })}</p>
              <p className="row-actions">
                <button
                  ref={confirm}
                  type="button"
                  className="danger"
                  disabled={action.busy}
                  onClick={() =>
                    void action.run(() => callPath(client, 'DELETE', `/api/v1/markets/${encodeURIComponent(removing.id)}`)).then((ok) => {
                      setRemoving(null);
                      if (ok) state.reload();
                    })
                  }
                >
                  {t('markets.remove.yes')}
                </button>
                <button type="button" onClick={() => setRemoving(null)}>
                  {t('cancel')}
                </button>
              </p>
            </div>
          )}
          {action.error !== undefined && <ErrorBox error={action.error} />}
          {markets.length === 0 ? (
            <p className="state empty">{t('markets.none')}</p>
          ) : (
            <div className="table-wrap">
              <table>
                <caption className="sr-only">{t('settings.markets')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('markets.handle')}</th>
                    <th scope="col">{t('markets.name')}</th>
                    <th scope="col">{t('markets.countries')}</th>
                    <th scope="col">{t('settings.currency')}</th>
                    <th scope="col">{t('markets.locale')}</th>
                    <th scope="col">{t('markets.taxmode')}</th>
                    {writable && <th scope="col">{t('actions')}</th>}
                  </tr>
                </thead>
                <tbody>
                  {markets.map((m) => (
                    <tr key={m.id}>
                      <td>
                        <code>{m.handle}</code>
                      </td>
                      <td>{m.name}</td>
                      <td>{m.countries.join(', ') || t('markets.any')}</td>
                      <td>{m.currency}</td>
                      <td>{m.default_locale}</td>
                      <td>{t(taxMode(m.prices_include_tax))}</td>
                      {writable && (
                        <td className="row-actions">
                          <button type="button" onClick={() => setEditing(m)}>
                            {t('markets.editbutton')} <span className="sr-only">{m.handle}</span>
                          </button>
                          <button type="button" className="danger" onClick={() => setRemoving(m)}>
                            {t('remove')} <span className="sr-only">{m.handle}</span>
                          </button>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </Loaded>
  );
}

function MarketForm({ market, currencies, locales, defaultLocale, onCancel, onSaved }: { market: Market | null; currencies: string[]; locales: string[]; defaultLocale: string; onCancel(): void; onSaved(): void }) {
  const { client } = useAuth();
  const { t } = useI18n();
  return (
    <SaveForm
      label={market ? t('markets.edit', { name: market.name }) : t('markets.new')}
      save={async (v) => {
        const tax = text(v, 'prices_include_tax');
        const body = {
          handle: text(v, 'handle').toLowerCase(),
          name: text(v, 'name'),
          countries: text(v, 'countries').split(/[\s,]+/).filter(Boolean).map((c) => c.toUpperCase()),
          currency: text(v, 'currency'),
          default_locale: text(v, 'default_locale'),
          prices_include_tax: tax === '' ? null : tax === 'true',
        };
        if (market) await callPath(client, 'PATCH', `/api/v1/markets/${encodeURIComponent(market.id)}`, body);
        else await callPath(client, 'POST', '/api/v1/markets', body);
        onSaved();
      }}
    >
      <div className="grid3">
        <Field label={t('markets.handle')} hint={t('markets.handle.hint')}>
          <input name="handle" required maxLength={64} pattern="[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*" defaultValue={market?.handle} spellCheck={false} />
        </Field>
        <Field label={t('markets.name')}>
          <input name="name" required maxLength={120} defaultValue={market?.name} />
        </Field>
        <Field label={t('markets.countries')} hint={t('markets.countries.hint')}>
          <input name="countries" defaultValue={market?.countries.join(', ')} spellCheck={false} />
        </Field>
        <Field label={t('settings.currency')}>
          <select name="currency" defaultValue={market?.currency ?? currencies[0]}>
            {[...new Set([...currencies, ...(market ? [market.currency] : [])])].map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('markets.locale')}>
          <select name="default_locale" defaultValue={market?.default_locale ?? defaultLocale}>
            {[...new Set([...locales, ...(market ? [market.default_locale] : [])])].map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('markets.taxmode')}>
          <select name="prices_include_tax" defaultValue={market?.prices_include_tax == null ? '' : String(market.prices_include_tax)}>
            <option value="">{t('markets.tax.store')}</option>
            <option value="true">{t('markets.tax.included')}</option>
            <option value="false">{t('markets.tax.added')}</option>
          </select>
        </Field>
      </div>
      <p>
        <button type="button" onClick={onCancel}>
          {t('cancel')}
        </button>
      </p>
    </SaveForm>
  );
}
