import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { messageOf } from './api';
import { useI18n } from './i18n';

/** Loads something, with a reload; `deps` change it. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload(): void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    loader
      .current()
      .then((data) => live && setState({ data, error: undefined, loading: false }))
      .catch((error: unknown) => live && setState({ data: undefined, error, loading: false }));
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

export function Loading() {
  const { t } = useI18n();
  return (
    <p className="state" role="status" aria-live="polite">
      {t('loading')}
    </p>
  );
}

export function ErrorBox({ error, retry }: { error: unknown; retry?: () => void }) {
  const { t } = useI18n();
  return (
    <div className="state error" role="alert">
      <strong>{t('error')}:</strong> {messageOf(error)}
      {retry && (
        <button type="button" onClick={retry}>
          {t('retry')}
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children?: ReactNode }) {
  const { t } = useI18n();
  return <p className="state empty">{children ?? t('empty')}</p>;
}

/** Loading, error and empty states around what a loader found. */
export function Loaded<T>({ state, empty, children }: { state: { data: T | undefined; error: unknown; loading: boolean; reload(): void }; empty?: (data: T) => boolean; children: (data: T) => ReactNode }) {
  if (state.error) return <ErrorBox error={state.error} retry={state.reload} />;
  if (state.loading && state.data === undefined) return <Loading />;
  if (state.data === undefined) return <Loading />;
  if (empty?.(state.data)) return <Empty />;
  return <>{children(state.data)}</>;
}

export function Status({ value }: { value: string }) {
  return <span className={`badge badge-${value}`}>{value.replace(/_/g, ' ')}</span>;
}

/** Cursor pages: the cursors seen so far, to go forward and back to the first page. */
export function usePager(resetOn: unknown[]) {
  const [cursors, setCursors] = useState<string[]>([]);
  useEffect(() => setCursors([]), resetOn);
  return {
    cursor: cursors[cursors.length - 1],
    page: cursors.length + 1,
    next: (cursor: string) => setCursors((c) => [...c, cursor]),
    first: () => setCursors([]),
    back: () => setCursors((c) => c.slice(0, -1)),
  };
}

export function Pager({ pager, pagination }: { pager: ReturnType<typeof usePager>; pagination?: { cursor?: string | null; has_next?: boolean } }) {
  const { t } = useI18n();
  return (
    <nav className="pager" aria-label="Pagination">
      <button type="button" onClick={pager.back} disabled={pager.page === 1}>
        ← {t('back')}
      </button>
      <span aria-live="polite">{pager.page}</span>
      <button type="button" onClick={() => pagination?.cursor && pager.next(pagination.cursor)} disabled={!pagination?.has_next || !pagination.cursor}>
        {t('next')} →
      </button>
    </nav>
  );
}

/** A form's last row: the write's error, "saved" once done, and the submit button (busy while it runs). */
export function SaveFooter({ action, label, disableWhileBusy = false }: { action: ReturnType<typeof useAction>; label?: string; disableWhileBusy?: boolean }) {
  const { t } = useI18n();
  return (
    <>
      {action.error !== undefined && <ErrorBox error={action.error} />}
      {action.done && (
        <p className="state" role="status">
          {t('saved')}
        </p>
      )}
      <button type="submit" className="primary" disabled={disableWhileBusy ? action.busy : undefined}>
        {action.busy ? t('saving') : (label ?? t('save'))}
      </button>
    </>
  );
}

/** A write's pending, error and done states. */
export function useAction() {
  const [state, setState] = useState<{ busy: boolean; error: unknown; done: boolean }>({ busy: false, error: undefined, done: false });
  const run = useCallback(async (work: () => Promise<unknown>) => {
    setState({ busy: true, error: undefined, done: false });
    try {
      await work();
      setState({ busy: false, error: undefined, done: true });
      return true;
    } catch (error) {
      setState({ busy: false, error, done: false });
      return false;
    }
  }, []);
  return { ...state, run };
}

export function Field({ label, children, hint }: { label: string; children: ReactNode; hint?: string }) {
  return (
    <label className="field">
      <span>{label}</span>
      {children}
      {hint && <small>{hint}</small>}
    </label>
  );
}
