/**
 * The dashboard's pages and widgets for plugins of the platform that declare none of their own
 * (wholesale, marketplace, draft orders, order edits): the same declarations a plugin would make, used while it has no `admin`. A
 * plugin's own declaration replaces its entry here.
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
  'draft-orders': {
    pages: [
      {
        path: 'drafts',
        title: { en: 'Draft orders', es: 'Pedidos en borrador' },
        permission: 'draft-orders.read',
        view: {
          type: 'list',
          source: '/api/v1/draft-orders',
          statuses: ['open', 'invoice_sent', 'completed', 'cancelled'],
          columns: [
            { field: 'number', label: { en: 'Draft', es: 'Borrador' } },
            { field: 'name', label: { en: 'Name', es: 'Nombre' } },
            { field: 'email', label: { en: 'E-mail', es: 'Correo' } },
            { field: 'currency', label: { en: 'Currency', es: 'Moneda' } },
            { field: 'status', label: { en: 'Status', es: 'Estado' } },
          ],
          actions: [{ label: { en: 'Cancel', es: 'Anular' }, path: '/api/v1/draft-orders/{id}/cancel', permission: 'draft-orders.write', when_status: ['open', 'invoice_sent'] }],
        },
      },
    ],
  },
  'order-edits': {
    widgets: [
      {
        zone: 'order.detail',
        title: { en: 'Edits of this order', es: 'Ediciones de este pedido' },
        permission: 'order-edits.read',
        view: {
          type: 'list',
          source: '/api/v1/orders/{id}/edits',
          columns: [
            { field: 'version', label: { en: 'Version', es: 'Versión' } },
            { field: 'status', label: { en: 'Status', es: 'Estado' } },
            { field: 'difference', label: { en: 'Difference (cents)', es: 'Diferencia (céntimos)' } },
            { field: 'refund_amount', label: { en: 'To refund (cents)', es: 'A reembolsar (céntimos)' } },
            { field: 'confirmed_at', label: { en: 'Confirmed', es: 'Confirmada' } },
          ],
        },
      },
    ],
  },
};
