import type { Principal, TokenKind } from '../context.js';
import { AppError } from '../errors.js';
import type { AuthRule } from '../http/route-config.js';
import { PluginLoadError, type PermissionDefinition, type QhatuPlugin } from '../plugin.js';

/** What core's own admin routes (staff, roles, the store's locales, currencies and markets) need. */
export const CORE_PERMISSIONS: PermissionDefinition[] = [
  { name: 'staff.read', description: 'See the staff members, the roles and the permissions' },
  { name: 'staff.manage', description: 'Invite, change, disable and remove staff members, and define roles' },
  { name: 'locales.manage', description: 'Choose the locales the store sells in and its default one' },
  { name: 'currencies.manage', description: 'Choose the currencies the store sells in, their exchange rates and rounding' },
  { name: 'markets.manage', description: 'Create, change and remove markets: countries, currency, locale and tax mode' },
  { name: 'store.read', description: "See the store's settings, its API keys (never their tokens) and its e-mail texts" },
  { name: 'store.manage', description: 'Rename the store, issue and revoke its API keys, write its e-mail texts' },
];

const PERMISSION_NAME = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;

/** Token kinds whose calls on admin routes are checked against the route's permission. */
const CHECKED: ReadonlySet<TokenKind> = new Set(['admin', 'staff']);

/** Whether the caller may do what `permission` allows: admin API keys and staff members, by their role. */
export function hasPermission(principal: Principal | undefined, permission: string): boolean {
  if (!principal || !CHECKED.has(principal.kind)) return false;
  return principal.permissions === null || principal.permissions.has(permission);
}

/**
 * Throws 403 FORBIDDEN naming `permission` unless the caller holds it. Only admin API keys and
 * staff members hold permissions; any other caller is refused.
 */
export function assertPermission(principal: Principal | undefined, permission: string): Principal {
  if (!principal || !CHECKED.has(principal.kind)) {
    throw new AppError(403, 'FORBIDDEN', `This operation needs an admin or staff token with the permission "${permission}"`, [
      { path: 'permission', message: 'is required', permission },
    ]);
  }
  if (!hasPermission(principal, permission)) {
    throw new AppError(403, 'FORBIDDEN', `This operation needs the permission "${permission}", which your role does not grant`, [
      { path: 'permission', message: 'is not granted', permission },
    ]);
  }
  return principal;
}

/**
 * An admin route: one that admin keys (and so staff members) may call and storefront keys may
 * not. Such a route must name the permission it needs. A staff-only route (`['staff']`: the
 * member's own sign-out and profile) is not one.
 */
export function isAdminRule(rule: AuthRule | undefined): boolean {
  if (!Array.isArray(rule)) return false;
  return rule.includes('admin') && !rule.includes('storefront');
}

/** Every permission the installed plugins declare (core's own first), checked once at start-up. */
export class PermissionRegistry {
  private readonly byName = new Map<string, PermissionDefinition & { plugin: string }>();

  constructor(plugins: readonly QhatuPlugin[]) {
    const declared: Array<[string, PermissionDefinition]> = [
      ...CORE_PERMISSIONS.map((p): [string, PermissionDefinition] => ['core', p]),
      ...plugins.filter((p) => p.name !== 'core').flatMap((p) => (p.permissions ?? []).map((d): [string, PermissionDefinition] => [p.name, d])),
    ];
    for (const [plugin, definition] of declared) {
      if (!PERMISSION_NAME.test(definition.name)) {
        throw new PluginLoadError(`Plugin "${plugin}" declares the permission "${definition.name}": a permission reads <area>.<action> in lower case, e.g. orders.fulfil`);
      }
      if (!definition.description?.trim()) throw new PluginLoadError(`Plugin "${plugin}" declares the permission "${definition.name}" without a description`);
      const taken = this.byName.get(definition.name);
      if (taken) throw new PluginLoadError(`The permission "${definition.name}" is declared by both "${taken.plugin}" and "${plugin}"`);
      this.byName.set(definition.name, { ...definition, plugin });
    }
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** `{name, description}` of every permission, sorted by name. */
  list(): PermissionDefinition[] {
    return [...this.byName.values()].map(({ name, description }) => ({ name, description })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Refuses a plugin's route that breaks the rules: an admin route naming no permission, or
   * naming one that no installed plugin declares.
   */
  checkRoute(plugin: string, route: { method: string | string[]; url: string; config?: { auth?: AuthRule; permission?: string } }): void {
    const where = `Route ${[route.method].flat().join(',')} ${route.url} of plugin "${plugin}"`;
    const permission = route.config?.permission;
    if (permission !== undefined && !this.has(permission)) {
      throw new PluginLoadError(`${where} names the permission "${permission}", which no installed plugin declares (add it to definePlugin({ permissions }))`);
    }
    if (isAdminRule(route.config?.auth) && permission === undefined) {
      throw new PluginLoadError(`${where} is an admin route and names no permission: add config.permission, e.g. '${plugin}.read'`);
    }
  }
}
