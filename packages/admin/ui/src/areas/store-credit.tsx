import { useState, type FormEvent } from 'react';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { valuesOf } from '../forms';
import { useI18n } from '../i18n';
import { ListTable, ListToolbar, listParams, useList } from '../list';
import { Empty, Field, Loaded, SaveFooter, Status, useAction, useLoad } from '../ui';

type Entry = ItemOf<'/api/v1/store-credit/customers/{customer_id}/entries'>;
const KINDS = ['grant', 'deduct', 'spend', 'restore'] as const;

/** A staff adjustment: credit given or taken back, with the reason the customer is e-mailed. */
function Adjust({ customerId, currency, onDone }: { customerId: string; currency: string; onDone(): void }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const v = valuesOf(form);
    const body = { kind: v.kind as 'grant' | 'deduct', currency: v.currency.trim().toUpperCase(), amount: Number(v.amount), reason: v.reason.trim() };
    if (await action.run(() => client.POST('/api/v1/store-credit/customers/{customer_id}/entries', { params: { path: { customer_id: customerId } }, body }))) {
      form.reset();
      onDone();
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label={t('credit.adjust')}>
      <h3>{t('credit.adjust')}</h3>
      <div className="grid3">
        <Field label={t('credit.kind')}>
          <select name="kind" defaultValue="grant">
            <option value="grant">{t('credit.kind.grant')}</option>
            <option value="deduct">{t('credit.kind.deduct')}</option>
          </select>
        </Field>
        <Field label={t('settings.currency')}>
          <input name="currency" required pattern="[A-Za-z]{3}" maxLength={3} defaultValue={currency} spellCheck={false} />
        </Field>
        <Field label={t('credit.amount')}>
          <input name="amount" type="number" required min={1} step={1} />
        </Field>
      </div>
      <Field label={t('credit.reason')} hint={t('credit.reason.hint')}>
        <input name="reason" required maxLength={500} />
      </Field>
      <SaveFooter action={action} label={t('credit.save')} disableWhileBusy />
    </form>
  );
}

/** A customer's store credit on their page: the balance per currency, the ledger, and staff adjustments. */
export default function StoreCredit({ customerId, currency }: { customerId: string; currency?: string }) {
  const { client, can } = useAuth();
  const { t, money, date } = useI18n();
  const [version, setVersion] = useState(0);
  const balances = useLoad(() => client.GET('/api/v1/store-credit/customers/{customer_id}', { params: { path: { customer_id: customerId } } }), [customerId, version]);
  const list = useList<Entry, 'kind' | 'currency'>(
    (query) => client.GET('/api/v1/store-credit/customers/{customer_id}/entries', { params: { path: { customer_id: customerId }, query: listParams({ ...query, q: undefined }) as never } }),
    { limit: 10, deps: [customerId, version] },
  );
  return (
    <section className="card" aria-labelledby="store-credit">
      <h2 id="store-credit">{t('credit.title')}</h2>
      <Loaded state={balances}>
        {({ data }) =>
          data.balances.length === 0 ? (
            <Empty>{t('credit.none')}</Empty>
          ) : (
            <dl className="fields">
              {data.balances.map((b) => (
                <div key={b.currency}>
                  <dt>{t('credit.balance', { currency: b.currency })}</dt>
                  <dd>{money(b.balance, b.currency)}</dd>
                </div>
              ))}
            </dl>
          )
        }
      </Loaded>
      {can('store-credit.adjust') && balances.data && <Adjust customerId={customerId} currency={balances.data?.data.balances[0]?.currency ?? currency ?? ''} onDone={() => setVersion((n) => n + 1)} />}
      <h3>{t('credit.ledger')}</h3>
      <ListToolbar list={list} search={false} filters={[{ name: 'kind', label: t('credit.kind'), options: KINDS.map((value) => ({ value, label: t(`credit.kind.${value}`) })) }]} />
      <ListTable
        list={list}
        caption={t('credit.ledger')}
        empty={<Empty>{t('credit.noentries')}</Empty>}
        columns={[{ label: t('created') }, { label: t('credit.kind') }, { label: t('credit.change'), num: true }, { label: t('credit.after'), num: true }, { label: t('credit.reason') }]}
        row={(e) => (
          <tr key={e.id}>
            <td>{date(e.created_at)}</td>
            <td>
              <Status value={e.kind} />
            </td>
            <td className="num">{money(e.amount, e.currency)}</td>
            <td className="num">{money(e.balance_after, e.currency)}</td>
            <td>{e.reason}</td>
          </tr>
        )}
      />
    </section>
  );
}
