import { StrictMode, Suspense, lazy, useState, type FormEvent, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, NavLink, Route, Routes, useLocation, useNavigate } from 'react-router';
import { messageOf } from './api';
import { AuthProvider, useAuth } from './auth';
import { ManifestProvider, useManifest } from './extensions';
import { I18nProvider, useI18n, type Key } from './i18n';
import { lastStore } from './session';
import { SETTINGS_PERMISSIONS } from './settings-permissions';
import { Empty, ErrorBox, Field, Loading } from './ui';
import './styles.css';

// Each area is its own chunk, loaded when first opened.
const Home = lazy(() => import('./areas/home'));
const Orders = lazy(() => import('./areas/orders'));
const Drafts = lazy(() => import('./areas/drafts'));
const Returns = lazy(() => import('./areas/returns'));
const Products = lazy(() => import('./areas/products'));
const Inventory = lazy(() => import('./areas/inventory'));
const Customers = lazy(() => import('./areas/customers'));
const Staff = lazy(() => import('./areas/staff'));
const Discounts = lazy(() => import('./areas/discounts'));
const Settings = lazy(() => import('./areas/settings'));
const CrmBoard = lazy(() => import('./areas/crm'));
const Wholesale = lazy(() => import('./areas/wholesale'));
const Blog = lazy(() => import('./areas/blog'));
const ThemeEditor = lazy(() => import('./areas/theme'));
const Translations = lazy(() => import('./areas/translations'));
const PluginPage = lazy(() => import('./areas/plugin-page'));

/**
 * The dashboard's own areas: the permissions any of which shows each, and the plugin it needs
 * installed (areas whose pages are more than a declared view: a board, an editor).
 */
const AREAS: Array<{ path: string; label: Key; permission?: string | string[]; plugin?: string; element: ReactNode }> = [
  { path: 'orders', label: 'nav.orders', permission: 'orders.read', element: <Orders /> },
  { path: 'drafts', label: 'nav.drafts', permission: 'draft-orders.read', plugin: 'draft-orders', element: <Drafts /> },
  { path: 'returns', label: 'nav.returns', permission: 'returns.read', plugin: 'returns', element: <Returns /> },
  { path: 'products', label: 'nav.products', permission: 'catalog.read', element: <Products /> },
  { path: 'inventory', label: 'nav.inventory', permission: 'inventory.read', element: <Inventory /> },
  { path: 'customers', label: 'nav.customers', permission: 'customers.read', element: <Customers /> },
  { path: 'discounts', label: 'nav.discounts', permission: 'discounts.read', plugin: 'discounts', element: <Discounts /> },
  { path: 'wholesale', label: 'nav.wholesale', permission: 'b2b.read', plugin: 'b2b', element: <Wholesale /> },
  { path: 'crm', label: 'nav.crm', permission: 'crm.deals.read', plugin: 'crm', element: <CrmBoard /> },
  { path: 'blog', label: 'nav.blog', permission: 'blog.read', plugin: 'blog', element: <Blog /> },
  { path: 'theme', label: 'nav.theme', permission: 'themes.read', plugin: 'themes', element: <ThemeEditor /> },
  { path: 'translations', label: 'nav.translations', permission: ['catalog.read', 'blog.read', 'shipping.read'], plugin: 'catalog', element: <Translations /> },
  { path: 'staff', label: 'nav.staff', permission: 'staff.read', element: <Staff /> },
  { path: 'settings', label: 'nav.settings', permission: SETTINGS_PERMISSIONS, element: <Settings /> },
];

function LanguageSwitch() {
  const { lang, setLang, t } = useI18n();
  return (
    <label className="lang">
      <span className="sr-only">{t('lang')}</span>
      <select value={lang} onChange={(e) => setLang(e.target.value as 'en' | 'es')} aria-label={t('lang')}>
        <option value="en">English</option>
        <option value="es">Español</option>
      </select>
    </label>
  );
}

function SignIn() {
  const { signIn, expired } = useAuth();
  const { t } = useI18n();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const initial = new URLSearchParams(window.location.search).get('tenant') ?? lastStore();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      await signIn(String(form.get('tenant')).trim(), String(form.get('email')).trim(), String(form.get('password')));
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <main className="signin" id="main">
      <form onSubmit={(e) => void submit(e)} className="card" aria-labelledby="signin-title">
        <div className="signin-head">
          <h1 id="signin-title">{t('signin.title')}</h1>
          <LanguageSwitch />
        </div>
        {expired && <p className="state">{t('signin.expired')}</p>}
        {error !== undefined && (
          <div className="state error" role="alert">
            <strong>{t('signin.failed')}:</strong> {messageOf(error)}
          </div>
        )}
        <Field label={t('signin.store')} hint={t('signin.store.hint')}>
          <input name="tenant" required defaultValue={initial} autoComplete="organization" spellCheck={false} />
        </Field>
        <Field label={t('signin.email')}>
          <input name="email" type="email" required autoComplete="username" />
        </Field>
        <Field label={t('signin.password')}>
          <input name="password" type="password" required autoComplete="current-password" />
        </Field>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t('loading') : t('signin.submit')}
        </button>
      </form>
    </main>
  );
}

/** The page an invitation or a password-reset e-mail links to: the member chooses a password and is signed in. */
function SetPassword() {
  const { setPassword } = useAuth();
  const { t } = useI18n();
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const params = new URLSearchParams(window.location.search);
  const tenant = params.get('tenant') ?? '';
  const token = params.get('token') ?? '';
  const invite = params.get('purpose') !== 'reset';
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    if (form.get('password') !== form.get('again')) return setError(new Error(t('password.mismatch')));
    setBusy(true);
    setError(undefined);
    try {
      await setPassword(tenant, token, String(form.get('password')));
      navigate('/', { replace: true });
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <main className="signin" id="main">
      <form onSubmit={(e) => void submit(e)} className="card" aria-labelledby="password-title">
        <div className="signin-head">
          <h1 id="password-title">{invite ? t('password.invite') : t('password.reset')}</h1>
          <LanguageSwitch />
        </div>
        {(!tenant || !token) && (
          <div className="state error" role="alert">
            {t('password.badlink')}
          </div>
        )}
        {error !== undefined && (
          <div className="state error" role="alert">
            <strong>{t('error')}:</strong> {messageOf(error)}
          </div>
        )}
        <Field label={t('password.new')} hint={t('password.hint')}>
          <input name="password" type="password" required minLength={8} autoComplete="new-password" />
        </Field>
        <Field label={t('password.again')}>
          <input name="again" type="password" required minLength={8} autoComplete="new-password" />
        </Field>
        <button type="submit" className="primary" disabled={busy || !tenant || !token}>
          {busy ? t('saving') : t('password.submit')}
        </button>
      </form>
    </main>
  );
}

function Shell() {
  const { me, can, signOut } = useAuth();
  const { t, text } = useI18n();
  const manifest = useManifest();
  const [open, setOpen] = useState(false);
  const location = useLocation();
  if (!me) return <Loading />;
  const allowed = (a: (typeof AREAS)[number]) => (Array.isArray(a.permission) ? a.permission.some((p) => can(p)) : can(a.permission));
  const present = (a: (typeof AREAS)[number]) => !a.plugin || manifest.plugins.includes(a.plugin);
  const areas = AREAS.filter((a) => allowed(a) && present(a));
  const pages = manifest.extensions.flatMap((e) => e.pages.filter((p) => p.nav && can(p.permission)).map((p) => ({ ...p, plugin: e.plugin })));
  return (
    <div className="shell">
      <a className="skip" href="#main">
        {t('skip')}
      </a>
      <header className="top">
        <button type="button" className="menu" aria-expanded={open} aria-controls="nav" onClick={() => setOpen(!open)}>
          {t('nav.menu')}
        </button>
        <strong className="brand">{t('app.name')}</strong>
        <span className="who">
          {me.first_name} {me.last_name} · {me.role.name}
        </span>
        <LanguageSwitch />
        <button type="button" onClick={() => void signOut()}>
          {t('signout')}
        </button>
      </header>
      <nav id="nav" className={open ? 'nav open' : 'nav'} aria-label={t('nav.main')} onClick={() => setOpen(false)}>
        <ul>
          <li>
            <NavLink to="/" end>
              {t('nav.home')}
            </NavLink>
          </li>
          {areas.map((a) => (
            <li key={a.path}>
              <NavLink to={`/${a.path}`}>{t(a.label)}</NavLink>
            </li>
          ))}
          {pages.map((p) => (
            <li key={`${p.plugin}/${p.path}`}>
              <NavLink to={`/x/${p.plugin}/${p.path}`}>{text(p.title)}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1} key={location.pathname.split('/')[1]}>
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route index element={<Home />} />
            {AREAS.map((a) => (
              <Route key={a.path} path={`${a.path}/*`} element={a.plugin && manifest.plugins.length === 0 ? <Loading /> : !present(a) ? <Empty>{t('notfound')}</Empty> : allowed(a) ? a.element : <ErrorBox error={new Error(t('forbidden'))} />} />
            ))}
            <Route path="x/:plugin/:page" element={<PluginPage />} />
            <Route path="*" element={<Empty>{t('notfound')}</Empty>} />
          </Routes>
        </Suspense>
      </main>
    </div>
  );
}

function App() {
  const { session } = useAuth();
  const location = useLocation();
  if (location.pathname === '/password') return <SetPassword />;
  return session ? <Shell /> : <SignIn />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nProvider>
      <BrowserRouter basename="/admin/ui">
        <AuthProvider>
          <ManifestProvider>
            <Routes>
              <Route path="*" element={<App />} />
            </Routes>
          </ManifestProvider>
        </AuthProvider>
      </BrowserRouter>
    </I18nProvider>
  </StrictMode>,
);
