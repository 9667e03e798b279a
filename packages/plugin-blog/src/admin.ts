/**
 * What the blog adds to the admin dashboard (`@qhatu/admin`), besides the post editor the
 * dashboard itself draws: the drafts waiting to be published, on the home. Plain data, checked
 * when the store starts; the API checks each call.
 */
export const blogAdmin = {
  widgets: [
    {
      zone: 'home' as const,
      title: { en: 'Blog drafts', es: 'Borradores del blog' },
      permission: 'blog.read',
      view: {
        type: 'list' as const,
        source: '/api/v1/blog/posts?status=draft&sort=-created_at',
        columns: [
          { field: 'title', label: { en: 'Title', es: 'Título' } },
          { field: 'author', label: { en: 'Author', es: 'Autor' } },
          { field: 'created_at', label: { en: 'Created', es: 'Creado' } },
        ],
        actions: [{ label: { en: 'Publish', es: 'Publicar' }, method: 'POST' as const, path: '/api/v1/blog/posts/{id}/publish', permission: 'blog.publish', when_status: ['draft'] }],
      },
    },
  ],
};
