import { useState, type DragEvent, type FormEvent } from 'react';
import type { ItemOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { Empty, ErrorBox, Field, Loaded, useAction, useLoad } from '../ui';

type Deal = ItemOf<'/api/v1/crm/deals'>;
/** How many open deals of a pipeline the board shows at most. */
const BOARD_LIMIT = 500;

/**
 * The sales pipeline as a board: a column per stage, the open deals as cards. A card is dragged to
 * another column, or moved with its stage select (the keyboard's way); either is one move call.
 */
export default function CrmBoard() {
  const { client, can } = useAuth();
  const { t, money } = useI18n();
  const action = useAction();
  const [chosen, setChosen] = useState('');
  const [over, setOver] = useState<string | null>(null);
  const pipelines = useLoad(() => client.GET('/api/v1/crm/pipelines', { params: { query: { limit: 50 } } }), []);
  const pipeline = pipelines.data?.data.find((p) => p.id === chosen) ?? pipelines.data?.data.find((p) => p.is_default) ?? pipelines.data?.data[0];
  const deals = useLoad(async () => {
    if (!pipeline) return { deals: [] as Deal[], partial: false };
    const found: Deal[] = [];
    for await (const deal of client.items('/api/v1/crm/deals', { params: { query: { limit: 100, 'filter[pipeline_id]': pipeline.id, 'filter[status]': 'open' } as never } })) {
      if (found.length === BOARD_LIMIT) return { deals: found, partial: true };
      found.push(deal as Deal);
    }
    return { deals: found, partial: false };
  }, [pipeline?.id]);
  const writable = can('crm.deals.write');

  const move = (deal: Deal, stageId: string) => {
    if (deal.stage_id === stageId) return;
    void action.run(() => client.POST('/api/v1/crm/deals/{id}/move', { params: { path: { id: deal.id } }, body: { stage_id: stageId } })).then(deals.reload);
  };
  const drop = (event: DragEvent<HTMLElement>, stageId: string) => {
    event.preventDefault();
    setOver(null);
    const deal = deals.data?.deals.find((d) => d.id === event.dataTransfer.getData('text/plain'));
    if (deal) move(deal, stageId);
  };
  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const v = new FormData(form);
    const body = { title: String(v.get('title')).trim(), amount: Number(v.get('amount') || 0), pipeline_id: pipeline?.id, stage_id: String(v.get('stage_id')) || undefined };
    if (await action.run(() => client.POST('/api/v1/crm/deals', { body }))) {
      form.reset();
      deals.reload();
    }
  };

  return (
    <>
      <h1>{t('crm.title')}</h1>
      <Loaded state={pipelines}>
        {(d) =>
          !pipeline ? (
            <Empty>{t('crm.nopipeline')}</Empty>
          ) : (
            <>
              {d.data.length > 1 && (
                <Field label={t('crm.pipeline')}>
                  <select value={pipeline.id} onChange={(e) => setChosen(e.target.value)}>
                    {d.data.map((p) => (
                      <option key={p.id} value={p.id}>
                        {p.name}
                      </option>
                    ))}
                  </select>
                </Field>
              )}
              {writable && (
                <form className="card inline-form" onSubmit={(e) => void create(e)} aria-label={t('crm.newdeal')}>
                  <Field label={t('crm.dealtitle')}>
                    <input name="title" required maxLength={255} />
                  </Field>
                  <Field label={t('crm.amount')}>
                    <input name="amount" type="number" min={0} step={1} />
                  </Field>
                  <Field label={t('crm.stage')}>
                    <select name="stage_id">
                      {pipeline.stages.map((s) => (
                        <option key={s.id} value={s.id}>
                          {s.name}
                        </option>
                      ))}
                    </select>
                  </Field>
                  <button type="submit" className="primary" disabled={action.busy}>
                    {t('crm.newdeal')}
                  </button>
                </form>
              )}
              {action.error !== undefined && <ErrorBox error={action.error} />}
              <p className="note">{writable ? t('crm.howto') : ''}</p>
              <Loaded state={deals}>
                {({ deals: rows, partial }) => (
                  <>
                    {partial && <p className="note">{t('crm.partial', { n: BOARD_LIMIT })}</p>}
                    <div className="board">
                      {pipeline.stages.map((stage) => {
                        const cards = rows.filter((deal) => deal.stage_id === stage.id);
                        const total = cards.reduce((sum, deal) => sum + deal.amount, 0);
                        return (
                          <section
                            key={stage.id}
                            className={over === stage.id ? 'column over' : 'column'}
                            aria-labelledby={`stage-${stage.id}`}
                            data-stage={stage.name}
                            onDragOver={(e) => {
                              if (!writable) return;
                              e.preventDefault();
                              setOver(stage.id);
                            }}
                            onDragLeave={() => setOver(null)}
                            onDrop={(e) => drop(e, stage.id)}
                          >
                            <h2 id={`stage-${stage.id}`}>
                              {stage.name} <small>({cards.length})</small>
                            </h2>
                            <p className="note">{cards[0] ? money(total, cards[0].currency) : ''}</p>
                            <ul className="cards">
                              {cards.map((deal) => (
                                <li
                                  key={deal.id}
                                  className="deal"
                                  draggable={writable}
                                  onDragStart={(e) => {
                                    e.dataTransfer.setData('text/plain', deal.id);
                                    e.dataTransfer.effectAllowed = 'move';
                                  }}
                                  aria-label={deal.title}
                                >
                                  <strong>{deal.title}</strong>
                                  <span>{money(deal.amount, deal.currency)}</span>
                                  {writable && (
                                    <label className="field">
                                      <span className="sr-only">
                                        {t('crm.moveto')} {deal.title}
                                      </span>
                                      <select value={deal.stage_id} disabled={action.busy} onChange={(e) => move(deal, e.target.value)} aria-label={`${t('crm.moveto')} ${deal.title}`}>
                                        {pipeline.stages.map((s) => (
                                          <option key={s.id} value={s.id}>
                                            {s.name}
                                          </option>
                                        ))}
                                      </select>
                                    </label>
                                  )}
                                </li>
                              ))}
                            </ul>
                          </section>
                        );
                      })}
                    </div>
                  </>
                )}
              </Loaded>
            </>
          )
        }
      </Loaded>
    </>
  );
}
