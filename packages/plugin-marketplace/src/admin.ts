/**
 * What the marketplace adds to the admin dashboard (`@qhatu/admin`) as declared data: its vendors,
 * with a form that adds one and actions that activate or suspend them, and the vendors' payouts.
 */
export const marketplaceAdmin = {
  pages: [
    {
      path: 'vendors',
      title: { en: 'Vendors', es: 'Vendedores' },
      permission: 'marketplace.read',
      view: {
        type: 'list' as const,
        source: '/api/v1/marketplace/vendors',
        statuses: ['pending', 'active', 'suspended'],
        create: {
          label: { en: 'Add vendor', es: 'Agregar vendedor' },
          path: '/api/v1/marketplace/vendors',
          permission: 'marketplace.write',
          fields: [
            { name: 'name', label: { en: 'Vendor', es: 'Vendedor' }, required: true },
            { name: 'email', label: { en: 'E-mail', es: 'Correo' }, type: 'email' as const, required: true },
            { name: 'country_code', label: { en: 'Country', es: 'País' }, required: true, hint: { en: '2 letters, e.g. PE', es: '2 letras, p. ej. PE' } },
            { name: 'default_commission_pct', label: { en: 'Commission %', es: 'Comisión %' }, type: 'decimal' as const, required: true },
          ],
        },
        actions: [
          { label: { en: 'Activate', es: 'Activar' }, method: 'PATCH', path: '/api/v1/marketplace/vendors/{id}/status', body: { status: 'active' }, permission: 'marketplace.write', when_status: ['pending', 'suspended'] },
          { label: { en: 'Suspend', es: 'Suspender' }, method: 'PATCH', path: '/api/v1/marketplace/vendors/{id}/status', body: { status: 'suspended' }, permission: 'marketplace.write', when_status: ['pending', 'active'] },
        ],
        columns: [
          { field: 'name', label: { en: 'Vendor', es: 'Vendedor' } },
          { field: 'email', label: { en: 'E-mail', es: 'Correo' } },
          { field: 'country_code', label: { en: 'Country', es: 'País' } },
          { field: 'default_commission_pct', label: { en: 'Commission %', es: 'Comisión %' } },
          { field: 'status', label: { en: 'Status', es: 'Estado' } },
        ],
      },
    },
    {
      path: 'payouts',
      title: { en: 'Payouts', es: 'Pagos a vendedores' },
      permission: 'marketplace.read',
      view: {
        type: 'list' as const,
        source: '/api/v1/marketplace/payouts',
        statuses: ['pending', 'processing', 'paid', 'failed'],
        columns: [
          { field: 'vendor_id', label: { en: 'Vendor', es: 'Vendedor' } },
          { field: 'amount', label: { en: 'Amount (cents)', es: 'Monto (céntimos)' } },
          { field: 'currency', label: { en: 'Currency', es: 'Moneda' } },
          { field: 'entry_count', label: { en: 'Entries', es: 'Movimientos' } },
          { field: 'status', label: { en: 'Status', es: 'Estado' } },
        ],
      },
    },
  ],
};
