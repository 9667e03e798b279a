import { useEffect, useState, type ReactNode } from 'react';
import { codeOf } from '../api';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { Empty, ErrorBox, Field, Loaded, useAction, useLoad } from '../ui';

type Values = Record<string, unknown>;
interface Block {
  type: string;
  disabled?: boolean;
  settings: Values;
}
interface Section extends Block {
  blocks?: Record<string, Block>;
  block_order?: string[];
}
interface Settings {
  section_order: string[];
  sections: Record<string, Section>;
}

// How the storefront reads a value is told by its name (the themes plugin's README): the editor follows it.
const HTML = /(^|_)html$/;
const URL_NAME = /(^|_)(url|href|src|link|image)s?$/;
const label = (name: string) => name.replace(/_/g, ' ');

/** One setting, edited by what its value is: a switch, a number, a text (HTML, a URL), or JSON for anything nested. */
function ValueField({ name, value, onChange, disabled }: { name: string; value: unknown; onChange(value: unknown): void; disabled: boolean }) {
  const { t } = useI18n();
  const [raw, setRaw] = useState(() => JSON.stringify(value, null, 2));
  const [bad, setBad] = useState(false);
  if (typeof value === 'boolean')
    return (
      <label className="check">
        <input type="checkbox" checked={value} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
        <span>{label(name)}</span>
      </label>
    );
  if (typeof value === 'number')
    return (
      <Field label={label(name)}>
        <input type="number" step="any" value={Number.isFinite(value) ? value : ''} disabled={disabled} onChange={(e) => onChange(e.target.value === '' ? 0 : Number(e.target.value))} />
      </Field>
    );
  if (typeof value === 'string')
    return (
      <Field label={label(name)} hint={HTML.test(name) ? t('theme.html') : URL_NAME.test(name) ? t('theme.url') : undefined}>
        {HTML.test(name) || value.length > 120 ? (
          <textarea value={value} rows={4} disabled={disabled} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <input value={value} disabled={disabled} spellCheck={!URL_NAME.test(name)} onChange={(e) => onChange(e.target.value)} />
        )}
      </Field>
    );
  return (
    <Field label={label(name)} hint={bad ? t('theme.badjson') : t('theme.json')}>
      <textarea
        value={raw}
        rows={4}
        disabled={disabled}
        aria-invalid={bad}
        spellCheck={false}
        onChange={(e) => {
          setRaw(e.target.value);
          try {
            onChange(JSON.parse(e.target.value));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
    </Field>
  );
}

function SettingsFields({ values, onChange, disabled }: { values: Values; onChange(values: Values): void; disabled: boolean }) {
  const { t } = useI18n();
  const names = Object.keys(values);
  if (names.length === 0) return <p className="note">{t('theme.nosettings')}</p>;
  return (
    <div className="grid2">
      {names.map((name) => (
        <ValueField key={name} name={name} value={values[name]} disabled={disabled} onChange={(value) => onChange({ ...values, [name]: value })} />
      ))}
    </div>
  );
}

/** Moves `id` one place up or down in `order`. */
const moved = (order: string[], id: string, by: -1 | 1) => {
  const at = order.indexOf(id);
  const to = at + by;
  if (to < 0 || to >= order.length) return order;
  const next = [...order];
  [next[at], next[to]] = [next[to], next[at]];
  return next;
};

function Reorder({ name, order, id, onMove, disabled }: { name: string; order: string[]; id: string; onMove(order: string[]): void; disabled: boolean }) {
  const { t } = useI18n();
  const at = order.indexOf(id);
  return (
    <span className="buttons">
      <button type="button" disabled={disabled || at === 0} onClick={() => onMove(moved(order, id, -1))}>
        ↑ <span className="sr-only">{t('theme.up', { name })}</span>
      </button>
      <button type="button" disabled={disabled || at === order.length - 1} onClick={() => onMove(moved(order, id, 1))}>
        ↓ <span className="sr-only">{t('theme.down', { name })}</span>
      </button>
    </span>
  );
}

function SectionEditor({ id, section, order, onChange, onMove, disabled }: { id: string; section: Section; order: string[]; onChange(section: Section): void; onMove(order: string[]): void; disabled: boolean }) {
  const { t } = useI18n();
  const blocks = section.block_order ?? Object.keys(section.blocks ?? {});
  const title = `${label(id)} · ${section.type}`;
  return (
    <fieldset className="card" aria-label={title}>
      <legend>{title}</legend>
      <div className="title-row">
        <label className="check">
          <input type="checkbox" checked={!section.disabled} disabled={disabled} onChange={(e) => onChange({ ...section, disabled: !e.target.checked })} />
          <span>{t('theme.shown')}</span>
        </label>
        <Reorder name={title} order={order} id={id} onMove={onMove} disabled={disabled} />
      </div>
      <SettingsFields values={section.settings} disabled={disabled} onChange={(settings) => onChange({ ...section, settings })} />
      {blocks.map((blockId) => {
        const block = section.blocks![blockId];
        const name = `${label(blockId)} · ${block.type}`;
        const setBlock = (next: Block) => onChange({ ...section, blocks: { ...section.blocks, [blockId]: next } });
        return (
          <fieldset key={blockId} className="block" aria-label={name}>
            <legend>{name}</legend>
            <div className="title-row">
              <label className="check">
                <input type="checkbox" checked={!block.disabled} disabled={disabled} onChange={(e) => setBlock({ ...block, disabled: !e.target.checked })} />
                <span>{t('theme.shown')}</span>
              </label>
              <Reorder name={name} order={blocks} id={blockId} onMove={(block_order) => onChange({ ...section, block_order })} disabled={disabled} />
            </div>
            <SettingsFields values={block.settings} disabled={disabled} onChange={(settings) => setBlock({ ...block, settings })} />
          </fieldset>
        );
      })}
    </fieldset>
  );
}

function Editor({ saved, reload }: { saved: Settings; reload(): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const [draft, setDraft] = useState(saved);
  const [status, setStatus] = useState<ReactNode>(null);
  const action = useAction();
  useEffect(() => setDraft(saved), [saved]);
  const writable = can('themes.write');
  const changed = JSON.stringify(draft) !== JSON.stringify(saved);
  const save = () =>
    action.run(async () => {
      await client.PUT('/admin/themes/draft', { body: draft as never });
      setStatus(t('theme.saved'));
      reload();
    });
  const publish = () =>
    action.run(async () => {
      if (changed) await client.PUT('/admin/themes/draft', { body: draft as never });
      await client.POST('/admin/themes/publish');
      setStatus(t('theme.published'));
      reload();
    });
  return (
    <form
      aria-label={t('theme.title')}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {draft.section_order.map((id) => (
        <SectionEditor
          key={id}
          id={id}
          section={draft.sections[id]}
          order={draft.section_order}
          disabled={!writable}
          onChange={(section) => setDraft({ ...draft, sections: { ...draft.sections, [id]: section } })}
          onMove={(section_order) => setDraft({ ...draft, section_order })}
        />
      ))}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      {status && !action.busy && action.done && (
        <p className="state" role="status">
          {status}
        </p>
      )}
      <div className="buttons sticky-actions">
        {writable && (
          <button type="submit" className="primary" disabled={action.busy || !changed}>
            {action.busy ? t('saving') : t('theme.save')}
          </button>
        )}
        {writable && changed && (
          <button type="button" disabled={action.busy} onClick={() => setDraft(saved)}>
            {t('theme.discard')}
          </button>
        )}
        {can('themes.publish') && (writable || !changed) && (
          <button type="button" disabled={action.busy} onClick={() => void publish()}>
            {t('theme.publish')}
          </button>
        )}
      </div>
    </form>
  );
}

/** The live theme's settings draft, edited section by section, saved and published (the themes plugin). */
export default function ThemeEditor() {
  const { client } = useAuth();
  const { t } = useI18n();
  const state = useLoad(async () => (await client.GET('/admin/themes/draft')) as unknown as Settings, []);
  return (
    <>
      <h1>{t('theme.title')}</h1>
      <p className="note">{t('theme.note')}</p>
      {codeOf(state.error) === 'NO_ACTIVE_THEME' ? <Empty>{t('theme.none')}</Empty> : <Loaded state={state}>{(settings) => <Editor saved={settings} reload={state.reload} />}</Loaded>}
    </>
  );
}
