import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';

export type Lang = 'en' | 'es';

const en = {
  'app.name': 'Qhatu admin',
  'skip': 'Skip to content',
  'lang': 'Language',
  'signin.title': 'Sign in to your store',
  'signin.store': 'Store ID',
  'signin.store.hint': 'The store’s ID (a UUID), as your store’s owner gave it to you.',
  'signin.email': 'E-mail',
  'signin.password': 'Password',
  'signin.submit': 'Sign in',
  'signin.expired': 'Your session ended after a while without use. Sign in again.',
  'signin.failed': 'Could not sign in',
  'signout': 'Sign out',
  'nav.main': 'Main',
  'nav.home': 'Home',
  'nav.orders': 'Orders',
  'nav.products': 'Products',
  'nav.inventory': 'Inventory',
  'nav.customers': 'Customers',
  'nav.staff': 'Staff and roles',
  'nav.menu': 'Menu',
  'loading': 'Loading…',
  'empty': 'Nothing here yet.',
  'error': 'Something went wrong',
  'retry': 'Try again',
  'forbidden': 'Your role does not allow this page.',
  'notfound': 'This page does not exist.',
  'next': 'Next page',
  'first': 'First page',
  'search': 'Search',
  'status': 'Status',
  'all': 'All',
  'save': 'Save',
  'saving': 'Saving…',
  'saved': 'Saved',
  'cancel': 'Cancel',
  'back': 'Back',
  'actions': 'Actions',
  'created': 'Created',
  'total': 'Total',
  'home.today': 'Sales today',
  'home.month': 'Sales this month',
  'home.orders': '{n} orders',
  'home.tofulfil': 'Orders to fulfil',
  'home.lowstock': 'Low stock',
  'home.lowstock.none': 'No variant is running low.',
  'home.tofulfil.none': 'No order is waiting to be fulfilled.',
  'home.partial': 'Counted from the latest {n} orders.',
  'orders.title': 'Orders',
  'orders.search': 'Number, e-mail or name',
  'orders.number': 'Order',
  'orders.customer': 'Customer',
  'orders.lines': 'Items',
  'orders.payments': 'Payments',
  'orders.refunds': 'Refunds',
  'orders.fulfillments': 'Fulfilments',
  'orders.history': 'History',
  'orders.summary': 'Summary',
  'orders.subtotal': 'Subtotal',
  'orders.shipping': 'Shipping',
  'orders.tax': 'Tax',
  'orders.discount': 'Discount',
  'orders.paid': 'Paid',
  'orders.refunded': 'Refunded',
  'orders.due': 'Due',
  'orders.quantity': 'Qty',
  'orders.unit': 'Unit price',
  'orders.fulfil': 'Fulfil',
  'orders.fulfil.carrier': 'Carrier',
  'orders.fulfil.tracking': 'Tracking number',
  'orders.deliver': 'Mark delivered',
  'orders.cancel': 'Cancel order',
  'orders.cancel.reason': 'Reason',
  'orders.refund': 'Refund',
  'orders.refund.amount': 'Amount (0 = everything left)',
  'orders.receipt': 'Record a receipt',
  'orders.receipt.amount': 'Amount received',
  'orders.receipt.reference': 'Reference',
  'orders.nopayments': 'No payment yet.',
  'orders.nofulfillments': 'Nothing shipped yet.',
  'orders.gateway': 'Gateway',
  'orders.amount': 'Amount',
  'orders.done': 'Done',
  'products.title': 'Products',
  'products.new': 'New product',
  'products.edit': 'Edit product',
  'products.name': 'Title',
  'products.handle': 'Handle',
  'products.description': 'Description',
  'products.status': 'Status',
  'products.variants': 'Variants',
  'products.variant': 'Variant',
  'products.sku': 'SKU',
  'products.price': 'Price (cents)',
  'products.compare': 'Compare at (cents)',
  'products.addvariant': 'Add variant',
  'products.removevariant': 'Remove variant',
  'products.publish': 'Publish',
  'products.unpublish': 'Move to draft',
  'products.search': 'Title',
  'products.created': 'Product created',
  'inventory.title': 'Inventory',
  'inventory.warehouse': 'Warehouse',
  'inventory.onhand': 'On hand',
  'inventory.reserved': 'Reserved',
  'inventory.available': 'Available',
  'inventory.adjust': 'Adjust',
  'inventory.delta': 'Change (+/-)',
  'inventory.reason': 'Reason',
  'inventory.nowarehouse': 'The store has no warehouse yet.',
  'customers.title': 'Customers',
  'customers.name': 'Name',
  'customers.email': 'E-mail',
  'customers.addresses': 'Addresses',
  'staff.title': 'Staff',
  'staff.roles': 'Roles',
  'staff.role': 'Role',
  'staff.newrole': 'New role',
  'staff.rolename': 'Role name',
  'staff.permissions': 'Permissions',
  'staff.builtin': 'Built in: holds every permission',
  'staff.invite': 'Add a staff member',
  'staff.firstname': 'First name',
  'staff.lastname': 'Last name',
  'zone.extensions': 'From plugins',
} as const;

export type Key = keyof typeof en;

const es: Record<Key, string> = {
  'app.name': 'Qhatu admin',
  'skip': 'Saltar al contenido',
  'lang': 'Idioma',
  'signin.title': 'Ingresa a tu tienda',
  'signin.store': 'ID de la tienda',
  'signin.store.hint': 'El ID de la tienda (un UUID), como te lo dio su dueño.',
  'signin.email': 'Correo',
  'signin.password': 'Contraseña',
  'signin.submit': 'Ingresar',
  'signin.expired': 'Tu sesión terminó tras un tiempo sin uso. Ingresa de nuevo.',
  'signin.failed': 'No se pudo ingresar',
  'signout': 'Salir',
  'nav.main': 'Principal',
  'nav.home': 'Inicio',
  'nav.orders': 'Pedidos',
  'nav.products': 'Productos',
  'nav.inventory': 'Inventario',
  'nav.customers': 'Clientes',
  'nav.staff': 'Personal y roles',
  'nav.menu': 'Menú',
  'loading': 'Cargando…',
  'empty': 'Aún no hay nada aquí.',
  'error': 'Algo salió mal',
  'retry': 'Reintentar',
  'forbidden': 'Tu rol no permite esta página.',
  'notfound': 'Esta página no existe.',
  'next': 'Página siguiente',
  'first': 'Primera página',
  'search': 'Buscar',
  'status': 'Estado',
  'all': 'Todos',
  'save': 'Guardar',
  'saving': 'Guardando…',
  'saved': 'Guardado',
  'cancel': 'Cancelar',
  'back': 'Volver',
  'actions': 'Acciones',
  'created': 'Creado',
  'total': 'Total',
  'home.today': 'Ventas de hoy',
  'home.month': 'Ventas del mes',
  'home.orders': '{n} pedidos',
  'home.tofulfil': 'Pedidos por despachar',
  'home.lowstock': 'Poco stock',
  'home.lowstock.none': 'Ninguna variante tiene poco stock.',
  'home.tofulfil.none': 'Ningún pedido espera despacho.',
  'home.partial': 'Calculado con los últimos {n} pedidos.',
  'orders.title': 'Pedidos',
  'orders.search': 'Número, correo o nombre',
  'orders.number': 'Pedido',
  'orders.customer': 'Cliente',
  'orders.lines': 'Artículos',
  'orders.payments': 'Pagos',
  'orders.refunds': 'Reembolsos',
  'orders.fulfillments': 'Despachos',
  'orders.history': 'Historial',
  'orders.summary': 'Resumen',
  'orders.subtotal': 'Subtotal',
  'orders.shipping': 'Envío',
  'orders.tax': 'Impuesto',
  'orders.discount': 'Descuento',
  'orders.paid': 'Pagado',
  'orders.refunded': 'Reembolsado',
  'orders.due': 'Pendiente',
  'orders.quantity': 'Cant.',
  'orders.unit': 'Precio unitario',
  'orders.fulfil': 'Despachar',
  'orders.fulfil.carrier': 'Transportista',
  'orders.fulfil.tracking': 'Número de seguimiento',
  'orders.deliver': 'Marcar entregado',
  'orders.cancel': 'Anular pedido',
  'orders.cancel.reason': 'Motivo',
  'orders.refund': 'Reembolsar',
  'orders.refund.amount': 'Monto (0 = todo lo que queda)',
  'orders.receipt': 'Registrar un cobro',
  'orders.receipt.amount': 'Monto recibido',
  'orders.receipt.reference': 'Referencia',
  'orders.nopayments': 'Aún no hay pagos.',
  'orders.nofulfillments': 'Nada despachado aún.',
  'orders.gateway': 'Pasarela',
  'orders.amount': 'Monto',
  'orders.done': 'Hecho',
  'products.title': 'Productos',
  'products.new': 'Nuevo producto',
  'products.edit': 'Editar producto',
  'products.name': 'Título',
  'products.handle': 'Handle',
  'products.description': 'Descripción',
  'products.status': 'Estado',
  'products.variants': 'Variantes',
  'products.variant': 'Variante',
  'products.sku': 'SKU',
  'products.price': 'Precio (céntimos)',
  'products.compare': 'Precio antes (céntimos)',
  'products.addvariant': 'Agregar variante',
  'products.removevariant': 'Quitar variante',
  'products.publish': 'Publicar',
  'products.unpublish': 'Pasar a borrador',
  'products.search': 'Título',
  'products.created': 'Producto creado',
  'inventory.title': 'Inventario',
  'inventory.warehouse': 'Almacén',
  'inventory.onhand': 'En almacén',
  'inventory.reserved': 'Reservado',
  'inventory.available': 'Disponible',
  'inventory.adjust': 'Ajustar',
  'inventory.delta': 'Cambio (+/-)',
  'inventory.reason': 'Motivo',
  'inventory.nowarehouse': 'La tienda aún no tiene almacenes.',
  'customers.title': 'Clientes',
  'customers.name': 'Nombre',
  'customers.email': 'Correo',
  'customers.addresses': 'Direcciones',
  'staff.title': 'Personal',
  'staff.roles': 'Roles',
  'staff.role': 'Rol',
  'staff.newrole': 'Nuevo rol',
  'staff.rolename': 'Nombre del rol',
  'staff.permissions': 'Permisos',
  'staff.builtin': 'Incluido: tiene todos los permisos',
  'staff.invite': 'Agregar a alguien del personal',
  'staff.firstname': 'Nombre',
  'staff.lastname': 'Apellido',
  'zone.extensions': 'De los plugins',
};

const dictionaries: Record<Lang, Record<Key, string>> = { en, es };

export type Translate = (key: Key, vars?: Record<string, string | number>) => string;

interface I18n {
  lang: Lang;
  setLang(lang: Lang): void;
  t: Translate;
  /** A plugin's text, `{en, es?}`. */
  text(value: { en: string; es?: string }): string;
  money(cents: number, currency: string): string;
  date(iso: string | null | undefined): string;
}

const I18nContext = createContext<I18n | null>(null);

function initialLang(): Lang {
  try {
    const saved = localStorage.getItem('qhatu.admin.lang');
    if (saved === 'en' || saved === 'es') return saved;
  } catch {
    // No storage: the browser's language decides.
  }
  return navigator.language.toLowerCase().startsWith('es') ? 'es' : 'en';
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const value = useMemo<I18n>(() => {
    const dict = dictionaries[lang];
    const locale = lang === 'es' ? 'es-PE' : 'en-US';
    document.documentElement.lang = lang;
    return {
      lang,
      setLang(next) {
        try {
          localStorage.setItem('qhatu.admin.lang', next);
        } catch {
          // Kept for this visit only.
        }
        setLangState(next);
      },
      t: (key, vars) => dict[key].replace(/\{(\w+)\}/g, (_m, name: string) => String(vars?.[name] ?? '')),
      text: (value) => (lang === 'es' && value.es ? value.es : value.en),
      money: (cents, currency) => {
        try {
          return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(cents / 100);
        } catch {
          return `${(cents / 100).toFixed(2)} ${currency}`;
        }
      },
      date: (iso) => (iso ? new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : '—'),
    };
  }, [lang]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}
