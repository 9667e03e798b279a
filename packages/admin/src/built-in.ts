/**
 * The dashboard's pages for plugins of the platform that declare none of their own (wholesale,
 * marketplace): the same declarations a plugin would make, used while it has no `admin`. A
 * plugin's own declaration replaces its entry here. Draft orders, order edits, returns and store
 * credit are areas of the dashboard instead (decision 0088).
 */
export const BUILT_IN_DECLARATIONS: Record<string, unknown> = {
  b2b: {
    pages: [
      {
        path: 'companies',
        title: { en: 'Wholesale companies', es: 'Empresas mayoristas' },
        permission: 'b2b.read',
        view: {
          type: 'list',
          source: '/api/v1/b2b/customers',
          statuses: ['active', 'on_hold', 'disabled'],
          create: {
            label: { en: 'Add company', es: 'Agregar empresa' },
            path: '/api/v1/b2b/customers',
            permission: 'b2b.write',
            fields: [
              { name: 'company_name', label: { en: 'Company', es: 'Empresa' }, required: true },
              { name: 'ruc', label: { en: 'RUC' }, required: true, hint: { en: '11 digits', es: '11 dígitos' } },
              { name: 'email', label: { en: 'E-mail', es: 'Correo' }, type: 'email', required: true },
              { name: 'phone', label: { en: 'Phone', es: 'Teléfono' } },
              { name: 'credit_limit', label: { en: 'Credit limit (cents)', es: 'Límite de crédito (céntimos)' }, type: 'number', hint: { en: '0: no orders on account', es: '0: sin pedidos a crédito' } },
            ],
          },
          columns: [
            { field: 'company_name', label: { en: 'Company', es: 'Empresa' } },
            { field: 'ruc', label: { en: 'RUC' } },
            { field: 'email', label: { en: 'E-mail', es: 'Correo' } },
            { field: 'credit_limit', label: { en: 'Credit limit (cents)', es: 'Límite de crédito (céntimos)' } },
            { field: 'status', label: { en: 'Status', es: 'Estado' } },
          ],
        },
      },
      {
        path: 'price-lists',
        title: { en: 'Price lists', es: 'Listas de precios' },
        permission: 'b2b.read',
        view: {
          type: 'list',
          source: '/api/v1/b2b/price-lists',
          create: {
            label: { en: 'Add price list', es: 'Agregar lista de precios' },
            path: '/api/v1/b2b/price-lists',
            permission: 'b2b.write',
            fields: [
              { name: 'name', label: { en: 'Name', es: 'Nombre' }, required: true },
              { name: 'currency', label: { en: 'Currency', es: 'Moneda' }, required: true, hint: { en: '3 letters, e.g. PEN', es: '3 letras, p. ej. PEN' } },
              { name: 'description', label: { en: 'Description', es: 'Descripción' } },
            ],
          },
          columns: [
            { field: 'name', label: { en: 'Name', es: 'Nombre' } },
            { field: 'currency', label: { en: 'Currency', es: 'Moneda' } },
            { field: 'description', label: { en: 'Description', es: 'Descripción' } },
          ],
        },
      },
      {
        path: 'quotes',
        title: { en: 'Quotes', es: 'Cotizaciones' },
        permission: 'b2b.read',
        view: {
          type: 'list',
          source: '/api/v1/b2b/quotes',
          statuses: ['draft', 'sent', 'accepted', 'rejected', 'converted'],
          columns: [
            { field: 'number', label: { en: 'Quote', es: 'Cotización' } },
            { field: 'total', label: { en: 'Total (cents)', es: 'Total (céntimos)' } },
            { field: 'currency', label: { en: 'Currency', es: 'Moneda' } },
            { field: 'valid_until', label: { en: 'Valid until', es: 'Válida hasta' } },
            { field: 'status', label: { en: 'Status', es: 'Estado' } },
          ],
          actions: [
            { label: { en: 'Send', es: 'Enviar' }, path: '/api/v1/b2b/quotes/{id}/send', permission: 'b2b.quotes.send', when_status: ['draft'] },
            { label: { en: 'Accepted', es: 'Aceptada' }, path: '/api/v1/b2b/quotes/{id}/accept', permission: 'b2b.write', when_status: ['sent'] },
            { label: { en: 'Rejected', es: 'Rechazada' }, path: '/api/v1/b2b/quotes/{id}/reject', permission: 'b2b.write', when_status: ['sent'] },
            { label: { en: 'Place the order', es: 'Crear el pedido' }, path: '/api/v1/b2b/quotes/{id}/convert', permission: 'b2b.quotes.convert', when_status: ['accepted'] },
          ],
        },
      },
    ],
  },
  marketplace: {
    pages: [
      {
        path: 'vendors',
        title: { en: 'Vendors', es: 'Vendedores' },
        permission: 'marketplace.read',
        view: {
          type: 'list',
          source: '/api/v1/marketplace/vendors',
          statuses: ['pending', 'active', 'suspended'],
          create: {
            label: { en: 'Add vendor', es: 'Agregar vendedor' },
            path: '/api/v1/marketplace/vendors',
            permission: 'marketplace.write',
            fields: [
              { name: 'name', label: { en: 'Vendor', es: 'Vendedor' }, required: true },
              { name: 'email', label: { en: 'E-mail', es: 'Correo' }, type: 'email', required: true },
              { name: 'country_code', label: { en: 'Country', es: 'País' }, required: true, hint: { en: '2 letters, e.g. PE', es: '2 letras, p. ej. PE' } },
              { name: 'default_commission_pct', label: { en: 'Commission %', es: 'Comisión %' }, type: 'decimal', required: true },
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
          type: 'list',
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
  },
};
