/**
 * What reviews add to the admin dashboard (`@qhatu/admin`): the moderation queue as a page with a
 * navigation entry, and a product's reviews on the product page. Plain data, checked by the
 * dashboard when the store starts; the server still checks each call's permission.
 */
export const reviewsAdmin = {
  pages: [
    {
      path: 'moderation',
      title: { en: 'Reviews', es: 'Reseñas' },
      permission: 'reviews.read',
      view: {
        type: 'list' as const,
        source: '/admin/reviews',
        statuses: ['pending', 'approved', 'rejected'],
        columns: [
          { field: 'rating', label: { en: 'Rating', es: 'Puntuación' } },
          { field: 'title', label: { en: 'Title', es: 'Título' } },
          { field: 'body', label: { en: 'Review', es: 'Reseña' } },
          { field: 'author_name', label: { en: 'Author', es: 'Autor' } },
          { field: 'verified_purchase', label: { en: 'Verified', es: 'Verificada' } },
          { field: 'status', label: { en: 'Status', es: 'Estado' } },
        ],
        actions: [
          { label: { en: 'Approve', es: 'Aprobar' }, method: 'POST' as const, path: '/admin/reviews/{id}/approve', permission: 'reviews.moderate', when_status: ['pending', 'rejected'] },
          { label: { en: 'Reject', es: 'Rechazar' }, method: 'POST' as const, path: '/admin/reviews/{id}/reject', permission: 'reviews.moderate', when_status: ['pending', 'approved'] },
        ],
      },
    },
  ],
  widgets: [
    {
      zone: 'product.detail' as const,
      title: { en: 'Reviews of this product', es: 'Reseñas de este producto' },
      permission: 'reviews.read',
      view: {
        type: 'list' as const,
        source: '/admin/reviews?filter[product_id]={id}',
        columns: [
          { field: 'rating', label: { en: 'Rating', es: 'Puntuación' } },
          { field: 'title', label: { en: 'Title', es: 'Título' } },
          { field: 'author_name', label: { en: 'Author', es: 'Autor' } },
          { field: 'status', label: { en: 'Status', es: 'Estado' } },
        ],
      },
    },
  ],
};
