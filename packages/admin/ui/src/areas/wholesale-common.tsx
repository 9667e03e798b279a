import { NavLink } from 'react-router';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { useLoad } from '../ui';

/** The two tabs of the Wholesale area. */
export function Tabs() {
  const { t } = useI18n();
  return (
    <nav className="tabs" aria-label={t('nav.wholesale')}>
      <NavLink to="/wholesale/price-lists">{t('wholesale.pricelists')}</NavLink>
      <NavLink to="/wholesale/quotes">{t('wholesale.quotes')}</NavLink>
    </nav>
  );
}

/** The store's companies (at most the first 100), for a select. */
export function useCompanies() {
  const { client } = useAuth();
  return useLoad(async () => (await client.GET('/api/v1/b2b/customers', { params: { query: { limit: 100 } } })).data, []);
}
