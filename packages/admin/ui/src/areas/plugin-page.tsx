import { useParams } from 'react-router';
import { useAuth } from '../auth';
import { ExtensionView, useManifest } from '../extensions';
import { useI18n } from '../i18n';
import { Empty, ErrorBox, Loading } from '../ui';

/** A page a plugin declared: its view, for those holding its permission. */
export default function PluginPage() {
  const { plugin, page } = useParams();
  const manifest = useManifest();
  const { can } = useAuth();
  const { t, text } = useI18n();
  if (manifest.plugins.length === 0) return <Loading />;
  const found = manifest.extensions.find((e) => e.plugin === plugin)?.pages.find((p) => p.path === page);
  if (!found) return <Empty>{t('notfound')}</Empty>;
  if (!can(found.permission)) return <ErrorBox error={new Error(t('forbidden'))} />;
  return (
    <>
      <h1>{text(found.title)}</h1>
      {/* A page of its own: its filters and pages do not carry over from the plugin page seen before. */}
      <ExtensionView key={`${plugin}/${page}`} view={found.view} label={text(found.title)} />
    </>
  );
}
