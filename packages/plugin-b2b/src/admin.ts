/**
 * What wholesale adds to the admin dashboard (`@qhatu/admin`) as declared data: its companies, with
 * a form that adds one. Price lists with their rules and quotes from draft to order are the
 * dashboard's Wholesale area, shown when this plugin is installed (decision 0095).
 */
export const b2bAdmin = {
  pages: [
    {
      path: 'companies',
      title: { en: 'Wholesale companies', es: 'Empresas mayoristas' },
      permission: 'b2b.read',
      view: {
        type: 'list' as const,
        source: '/api/v1/b2b/customers',
        statuses: ['active', 'on_hold', 'disabled'],
        create: {
          label: { en: 'Add company', es: 'Agregar empresa' },
          path: '/api/v1/b2b/customers',
          permission: 'b2b.write',
          fields: [
            { name: 'company_name', label: { en: 'Company', es: 'Empresa' }, required: true },
            { name: 'ruc', label: { en: 'RUC' }, required: true, hint: { en: '11 digits', es: '11 dígitos' } },
            { name: 'email', label: { en: 'E-mail', es: 'Correo' }, type: 'email' as const, required: true },
            { name: 'phone', label: { en: 'Phone', es: 'Teléfono' } },
            { name: 'credit_limit', label: { en: 'Credit limit (cents)', es: 'Límite de crédito (céntimos)' }, type: 'number' as const, hint: { en: '0: no orders on account', es: '0: sin pedidos a crédito' } },
          ],
        },
        columns: [
          { field: 'company_name', label: { en: 'Company', es: 'Empresa' } },
          { field: 'ruc', label: { en: 'RUC' } },
          { field: 'email', label: { en: 'E-mail', es: 'Correo' } },
          { field: 'credit_limit', label: { en: 'Credit limit (cents)', es: 'Límite de crédito (céntimos)' } },
          { field: 'status', label: { en: 'Status', es: 'Estado' } },
        ],
        actions: [
          { label: { en: 'Put on hold', es: 'Poner en espera' }, method: 'PATCH' as const, path: '/api/v1/b2b/customers/{id}', body: { status: 'on_hold' }, permission: 'b2b.write', when_status: ['active'] },
          { label: { en: 'Reactivate', es: 'Reactivar' }, method: 'PATCH' as const, path: '/api/v1/b2b/customers/{id}', body: { status: 'active' }, permission: 'b2b.write', when_status: ['on_hold'] },
        ],
      },
    },
  ],
};
