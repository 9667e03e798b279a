import { type FormEvent } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import type { ItemOf, ResponseOf } from '@qhatu/client';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { ListTable, ListToolbar, useList } from '../list';
import { ErrorBox, Field, Loaded, SaveFooter, Status, useAction, useLoad } from '../ui';

type Post = ItemOf<'/api/v1/blog/posts'>;
type FullPost = ResponseOf<'/api/v1/blog/posts/{id}'>['data'];
const POST_STATUSES = ['draft', 'published', 'archived'] as const;

function PostList() {
  const { client, can } = useAuth();
  const { t, date } = useI18n();
  // The blog's list takes `status` and `q` as they are (not `filter[...]`).
  const list = useList<Post, 'status'>((query) =>
    client.GET('/api/v1/blog/posts', { params: { query: { limit: query.limit, cursor: query.cursor, q: query.q, status: query.filters.status || undefined, sort: '-created_at' } as never } }),
  );
  return (
    <>
      <div className="title-row">
        <h1>{t('blog.title')}</h1>
        {can('blog.write') && (
          <Link className="button primary" to="new">
            {t('blog.new')}
          </Link>
        )}
      </div>
      <ListToolbar list={list} filters={[{ name: 'status', label: t('status'), options: POST_STATUSES.map((value) => ({ value })) }]} />
      <ListTable
        list={list}
        caption={t('blog.title')}
        columns={[{ label: t('blog.posttitle') }, { label: t('status') }, { label: t('blog.published') }, { label: t('created') }]}
        row={(p) => (
          <tr key={p.id}>
            <td>
              <Link to={p.id}>{p.title}</Link>
            </td>
            <td>
              <Status value={p.status} />
            </td>
            <td>{date(p.published_at)}</td>
            <td>{date(p.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

/**
 * The post editor: the content is HTML, cleaned by the server when stored (scripts, event handlers,
 * styles and javascript: links removed); the preview shows what the server kept.
 */
function Editor({ post, onSaved }: { post?: FullPost; onSaved(post: FullPost): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const v = new FormData(event.currentTarget);
    const tags = String(v.get('tags') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const body = { title: String(v.get('title')).trim(), content: String(v.get('content') ?? ''), excerpt: String(v.get('excerpt') ?? '').trim() || null, author: String(v.get('author') ?? '').trim() || null, tags };
    await action.run(async () => {
      const saved = post ? await client.PATCH('/api/v1/blog/posts/{id}', { params: { path: { id: post.id } }, body }) : await client.POST('/api/v1/blog/posts', { body });
      onSaved(saved.data);
    });
  };
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={post ? t('blog.edit') : t('blog.new')}>
      <fieldset disabled={!can('blog.write') || action.busy}>
        <Field label={t('blog.posttitle')}>
          <input name="title" required maxLength={255} defaultValue={post?.title} />
        </Field>
        <Field label={t('blog.content')} hint={t('blog.content.hint')}>
          <textarea name="content" rows={12} defaultValue={post?.content ?? ''} spellCheck />
        </Field>
        <div className="grid2">
          <Field label={t('blog.excerpt')}>
            <textarea name="excerpt" rows={3} maxLength={2000} defaultValue={post?.excerpt ?? ''} />
          </Field>
          <div>
            <Field label={t('blog.author')}>
              <input name="author" maxLength={255} defaultValue={post?.author ?? ''} />
            </Field>
            <Field label={t('blog.tags')}>
              <input name="tags" defaultValue={post?.tags.join(', ')} />
            </Field>
          </div>
        </div>
        <SaveFooter action={action} />
      </fieldset>
    </form>
  );
}

function NewPost() {
  const { t } = useI18n();
  const navigate = useNavigate();
  return (
    <>
      <p>
        <Link to="..">← {t('blog.title')}</Link>
      </p>
      <h1>{t('blog.new')}</h1>
      <Editor onSaved={(p) => navigate(`../${p.id}`, { replace: true })} />
    </>
  );
}

function EditPost() {
  const { id = '' } = useParams();
  const { client, can } = useAuth();
  const { t } = useI18n();
  const state = useLoad(() => client.GET('/api/v1/blog/posts/{id}', { params: { path: { id } } }), [id]);
  const publish = useAction();
  return (
    <Loaded state={state}>
      {({ data: post }) => (
        <>
          <p>
            <Link to="..">← {t('blog.title')}</Link>
          </p>
          <div className="title-row">
            <h1>
              {post.title} <Status value={post.status} />
            </h1>
            {post.status === 'draft' && can('blog.publish') && (
              <button type="button" className="primary" disabled={publish.busy} onClick={() => void publish.run(() => client.POST('/api/v1/blog/posts/{id}/publish', { params: { path: { id } } })).then((ok) => ok && state.reload())}>
                {t('products.publish')}
              </button>
            )}
          </div>
          {publish.error !== undefined && <ErrorBox error={publish.error} />}
          <div className="grid2">
            <Editor key={post.updated_at} post={post} onSaved={state.reload} />
            <section className="card" aria-labelledby="preview">
              <h2 id="preview">{t('blog.preview')}</h2>
              {/* The server's sanitized HTML (the page's CSP refuses inline scripts besides). */}
              <article className="preview" dangerouslySetInnerHTML={{ __html: post.content }} />
            </section>
          </div>
        </>
      )}
    </Loaded>
  );
}

export default function Blog() {
  return (
    <Routes>
      <Route index element={<PostList />} />
      <Route path="new" element={<NewPost />} />
      <Route path=":id" element={<EditPost />} />
    </Routes>
  );
}
