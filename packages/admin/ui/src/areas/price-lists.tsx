import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { ActionForm, optionalText, valuesOf } from '../forms';
import { useI18n } from '../i18n';
import { ListTable, listParams, useList } from '../list';
import { Empty, ErrorBox, Field, Loaded, SaveFooter, useAction, useLoad } from '../ui';
import { Tabs, useCompanies } from './wholesale-common';

type PriceList = ItemOf<'/api/v1/b2b/price-lists'>;
type Rule = PriceList['rules'][number];
type Company = ItemOf<'/api/v1/b2b/customers'>;

export function PriceLists() {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const list = useList<PriceList>((query) => client.GET('/api/v1/b2b/price-lists', { params: { query: listParams({ ...query, q: undefined }) as never } }));
  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const v = valuesOf(form);
    const done = await action.run(() => client.POST('/api/v1/b2b/price-lists', { body: { name: v.name.trim(), currency: v.currency.trim().toUpperCase(), description: optionalText(v.description) } }));
    if (done) {
      form.reset();
      list.reload();
    }
  };
  return (
    <>
      <h1>{t('nav.wholesale')}</h1>
      <Tabs />
      {can('b2b.write') && (
        <form className="card" onSubmit={(e) => void create(e)} aria-label={t('wholesale.newlist')}>
          <h2>{t('wholesale.newlist')}</h2>
          <div className="grid3">
            <Field label={t('customers.name')}>
              <input name="name" required maxLength={200} />
            </Field>
            <Field label={t('settings.currency')}>
              <input name="currency" required maxLength={3} pattern="[A-Za-z]{3}" />
            </Field>
            <Field label={t('settings.description')}>
              <input name="description" maxLength={2000} />
            </Field>
          </div>
          <SaveFooter action={action} label={t('add')} disableWhileBusy />
        </form>
      )}
      <ListTable
        list={list}
        caption={t('wholesale.pricelists')}
        empty={<Empty>{t('wholesale.nolists')}</Empty>}
        columns={[{ label: t('customers.name') }, { label: t('settings.currency') }, { label: t('wholesale.rules'), num: true }, { label: t('settings.description') }]}
        row={(l) => (
          <tr key={l.id}>
            <td>
              <Link to={l.id}>{l.name}</Link>
            </td>
            <td>{l.currency}</td>
            <td className="num">{l.rules.length}</td>
            <td>{l.description ?? '—'}</td>
          </tr>
        )}
      />
    </>
  );
}

/** A rule in the staff's words: "10 % off everything", "S/ 5.00 off Chompa de alpaca". */
function useRuleText(currency: string) {
  const { t, money } = useI18n();
  const { client } = useAuth();
  const collections = useLoad(async () => (await client.GET('/api/v1/catalog/collections', { params: { query: { limit: 100 } as never } })).data, []);
  return {
    collections,
    off: (r: Rule) => (r.type === 'percentage' ? `${r.value} %` : money(r.value, currency)),
    target: (r: Rule) =>
      r.applies_to === 'all' ? t('wholesale.everything') : r.applies_to === 'category' ? `${t('wholesale.collection')}: ${collections.data?.find((c) => c.id === r.category_id)?.title ?? r.category_id}` : `${t('wholesale.product')}: ${r.product_id}`,
  };
}

/** A product found by its title (Enter), chosen in a select named `product_id`. */
function ProductSearch() {
  const { client } = useAuth();
  const { t } = useI18n();
  const [q, setQ] = useState('');
  const found = useLoad(async () => (q ? (await client.GET('/api/v1/catalog/products', { params: { query: { q, limit: 10 } } })).data : []), [q]);
  return (
    <>
      <Field label={t('wholesale.findproduct')}>
        <input
          type="search"
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            e.preventDefault();
            setQ(e.currentTarget.value.trim());
          }}
        />
      </Field>
      <Field label={t('wholesale.product')}>
        <select name="product_id" required>
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

function RuleForm({ list, onSaved }: { list: PriceList; onSaved(): void }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const [scope, setScope] = useState<'all' | 'category' | 'product'>('all');
  const [kind, setKind] = useState<'percentage' | 'fixed'>('percentage');
  const { collections } = useRuleText(list.currency);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const v = valuesOf(form);
    const body = {
      type: kind,
      value: Number(v.value),
      applies_to: scope,
      category_id: scope === 'category' ? v.category_id : undefined,
      product_id: scope === 'product' ? v.product_id : undefined,
      position: v.position ? Number(v.position) : undefined,
    };
    if (await action.run(() => client.POST('/api/v1/b2b/price-lists/{id}/rules', { params: { path: { id: list.id } }, body }))) {
      form.reset();
      onSaved();
    }
  };
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={t('wholesale.newrule')}>
      <h2>{t('wholesale.newrule')}</h2>
      <div className="grid3">
        <Field label={t('wholesale.ruletype')}>
          <select value={kind} onChange={(e) => setKind(e.target.value as typeof kind)}>
            <option value="percentage">{t('wholesale.percentage')}</option>
            <option value="fixed">{t('wholesale.fixed')}</option>
          </select>
        </Field>
        <Field label={kind === 'percentage' ? t('wholesale.percentoff') : t('wholesale.amountoff')}>
          <input name="value" type="number" required min={1} max={kind === 'percentage' ? 100 : undefined} step={1} />
        </Field>
        <Field label={t('wholesale.appliesto')}>
          <select value={scope} onChange={(e) => setScope(e.target.value as typeof scope)}>
            <option value="all">{t('wholesale.everything')}</option>
            <option value="category">{t('wholesale.collection')}</option>
            <option value="product">{t('wholesale.product')}</option>
          </select>
        </Field>
        {scope === 'category' && (
          <Field label={t('wholesale.collection')}>
            <select name="category_id" required>
              {(collections.data ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.title}
                </option>
              ))}
            </select>
          </Field>
        )}
        {scope === 'product' && <ProductSearch />}
        <Field label={t('wholesale.position')} hint={t('wholesale.position.hint')}>
          <input name="position" type="number" min={1} max={list.rules.length + 1} step={1} />
        </Field>
      </div>
      <SaveFooter action={action} label={t('wholesale.addrule')} disableWhileBusy />
    </form>
  );
}

export function PriceListDetail() {
  const { id = '' } = useParams();
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const state = useLoad(async () => (await client.GET('/api/v1/b2b/price-lists/{id}', { params: { path: { id } } })).data, [id]);
  const companies = useCompanies();
  const writable = can('b2b.write');
  return (
    <>
      <Tabs />
      <p>
        <Link to="/wholesale/price-lists">← {t('wholesale.pricelists')}</Link>
      </p>
      <Loaded state={state}>
        {(list) => (
          <PriceListBody list={list} writable={writable} action={action} companies={companies.data ?? []} reload={() => (state.reload(), companies.reload())} />
        )}
      </Loaded>
    </>
  );
}

function PriceListBody({ list, writable, action, companies, reload }: { list: PriceList; writable: boolean; action: ReturnType<typeof useAction>; companies: Company[]; reload(): void }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const text = useRuleText(list.currency);
  const assigned = companies.filter((c) => c.price_list_id === list.id);
  return (
    <>
      <h1>
        {list.name} · {list.currency}
      </h1>
      {writable && (
        <ActionForm
          title={t('wholesale.rename')}
          fields={[
            { name: 'name', label: t('customers.name'), required: true, value: list.name, maxLength: 200 },
            { name: 'description', label: t('settings.description'), value: list.description ?? '', maxLength: 2000 },
          ]}
          send={(v) => client.PATCH('/api/v1/b2b/price-lists/{id}', { params: { path: { id: list.id } }, body: { name: v.name.trim(), description: optionalText(v.description) ?? null } }).then(reload)}
        />
      )}
      <h2>{t('wholesale.rules')}</h2>
      <p className="note">{t('wholesale.rules.note')}</p>
      {action.error !== undefined && <ErrorBox error={action.error} />}
      {list.rules.length === 0 ? (
        <Empty>{t('wholesale.norules')}</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('wholesale.rules')}>
          <table>
            <caption className="sr-only">{t('wholesale.rules')}</caption>
            <thead>
              <tr>
                <th scope="col" className="num">
                  #
                </th>
                <th scope="col">{t('wholesale.off')}</th>
                <th scope="col">{t('wholesale.appliesto')}</th>
                {writable && <th scope="col">{t('actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {list.rules.map((r) => (
                <tr key={r.id}>
                  <td className="num">{r.position}</td>
                  <td>{text.off(r)}</td>
                  <td>{text.target(r)}</td>
                  {writable && (
                    <td>
                      <button
                        type="button"
                        className="danger"
                        disabled={action.busy}
                        onClick={() => void action.run(() => client.DELETE('/api/v1/b2b/price-lists/{list_id}/rules/{rule_id}', { params: { path: { list_id: list.id, rule_id: r.id } } })).then((ok) => ok && reload())}
                      >
                        {t('remove')} <span className="sr-only">{t('wholesale.rule')} {r.position}</span>
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writable && <RuleForm key={list.rules.length} list={list} onSaved={reload} />}
      <section className="card" aria-labelledby="list-companies">
        <h2 id="list-companies">{t('wholesale.companies')}</h2>
        {assigned.length === 0 ? <Empty>{t('wholesale.nocompanies')}</Empty> : <ul>{assigned.map((c) => <li key={c.id}>{c.company_name}</li>)}</ul>}
        {writable && companies.length > assigned.length && (
          <ActionForm
            title={t('wholesale.givelist')}
            fields={[{ name: 'company', label: t('wholesale.company'), required: true, options: companies.filter((c) => c.price_list_id !== list.id).map((c) => ({ value: c.id, label: c.company_name })) }]}
            send={(v) => client.PATCH('/api/v1/b2b/customers/{id}', { params: { path: { id: v.company } }, body: { price_list_id: list.id } }).then(reload)}
          />
        )}
      </section>
    </>
  );
}
