import type { EntitySchema } from '@mikro-orm/core';
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import type { Migration } from './db/migrations.js';
import type { JobDefinition } from './jobs/jobs.js';
import type { MachineDefinition } from './machines/machine.js';
import type { GraphQLContribution } from './graphql/types.js';
import type { CustomFieldDeclarations, CustomFieldHost } from './custom-fields/declarations.js';

export interface PluginContext {
  container: DependencyContainer;
}

/** A permission a plugin declares; roles grant them, admin routes name them. */
export interface PermissionDefinition {
  name: string;
  description: string;
}

/** An e-mail a plugin sends for a store: its key, what it is for, and the variables its texts may use. */
export interface MailDefinition {
  /** `<plugin>.<mail>`, lower-case words and dashes: `abandoned-carts.reminder`. */
  key: string;
  description: string;
  /** The `{{name}}` placeholders a store's text may use, each with what it holds. */
  variables: Record<string, string>;
}

export interface QhatuPlugin {
  /** Unique, lower-case; other plugins name it in `dependsOn`. */
  name: string;
  /** Plugins that must be loaded (and migrated) before this one. */
  dependsOn?: string[];
  /** MikroORM entities (defineEntity / EntitySchema). */
  entities?: EntitySchema<any, any>[];
  /** This plugin's own migrations, applied in order. */
  migrations?: Migration[];
  /** tsyringe registrations, with explicit @inject tokens. */
  register?(container: DependencyContainer): void;
  /** A fastify plugin mounted under `prefix`. */
  routes?: (app: FastifyInstance, ctx: PluginContext) => Promise<void>;
  /** Where `routes` is mounted; `/api/v1` unless said otherwise. */
  prefix?: string;
  graphql?: GraphQLContribution;
  machines?: MachineDefinition<any, any>[];
  /** The permissions this plugin's admin routes name (`<area>.<action>`, e.g. `orders.fulfil`). */
  permissions?: PermissionDefinition[];
  /** The event types this plugin publishes. */
  events?: string[];
  /**
   * The e-mails this plugin sends to a store's customers, whose texts the store may write per
   * locale (`/api/v1/mail-texts`, decision 0098); the plugin composes each with `MailTexts.compose`.
   */
  mails?: MailDefinition[];
  /**
   * Fields this plugin adds to entities of other plugins (`order`, `product`, `variant`,
   * `customer`, `cart`), by entity then name: stored, checked, answered, documented and indexed
   * by core (docs/plugins.md, Custom fields).
   */
  customFields?: CustomFieldDeclarations;
  /** This plugin's entities that take custom fields, each kept in a `custom_fields` column of its table. */
  customFieldHosts?: CustomFieldHost[];
  jobs?: Record<string, JobDefinition>;
  /** Runs once the app is built and migrated, before it listens. */
  onReady?(ctx: PluginContext): Promise<void> | void;
  /**
   * Runs in processes that run the job workers, once they started (periodic sweeps and the like);
   * returns what stops it when the app closes.
   */
  background?(ctx: PluginContext): (() => void | Promise<void>) | void;
}

export function definePlugin<P extends QhatuPlugin>(plugin: P): P {
  if (!/^[a-z][a-z0-9-]*$/.test(plugin.name)) {
    throw new Error(`Plugin name "${plugin.name}" must be lower-case letters, digits and dashes`);
  }
  for (const mail of plugin.mails ?? []) {
    if (!mail.key.startsWith(`${plugin.name}.`) || !/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/.test(mail.key)) {
      throw new Error(`Mail "${mail.key}" of the plugin "${plugin.name}" must be named "${plugin.name}.<mail>" in lower-case words and dashes`);
    }
    for (const name of Object.keys(mail.variables)) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Variable "${name}" of the mail "${mail.key}" must be lower-case letters, digits and underscores`);
    }
  }
  return plugin;
}

export class PluginLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginLoadError';
  }
}

/** Orders plugins so that each comes after what it depends on; a missing dependency or a cycle is an error. */
export function orderPlugins(plugins: QhatuPlugin[]): QhatuPlugin[] {
  const byName = new Map<string, QhatuPlugin>();
  for (const plugin of plugins) {
    if (byName.has(plugin.name)) throw new PluginLoadError(`Plugin "${plugin.name}" is listed twice`);
    byName.set(plugin.name, plugin);
  }
  for (const plugin of plugins) {
    for (const dep of plugin.dependsOn ?? []) {
      if (!byName.has(dep)) {
        throw new PluginLoadError(`Plugin "${plugin.name}" depends on "${dep}", which is not installed`);
      }
    }
  }
  const ordered: QhatuPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: QhatuPlugin, path: string[]) => {
    const seen = state.get(plugin.name);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...path.slice(path.indexOf(plugin.name)), plugin.name];
      throw new PluginLoadError(`Plugin dependency cycle: ${cycle.join(' -> ')}`);
    }
    state.set(plugin.name, 'visiting');
    for (const dep of plugin.dependsOn ?? []) visit(byName.get(dep)!, [...path, plugin.name]);
    state.set(plugin.name, 'done');
    ordered.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return ordered;
}

/** A project's `qhatu.config.ts`: the plugins the store is made of. */
export interface QhatuProject {
  plugins: QhatuPlugin[];
  /** The store's own custom fields, declared as a plugin declares them. */
  customFields?: CustomFieldDeclarations;
}

/** The name of the plugin that carries a project's own declarations (its `customFields`). */
export const PROJECT_PLUGIN = 'project';

/** The project, its own custom fields carried by one more plugin (`project`), so that every command loads them with the plugins. */
export function defineProject(project: QhatuProject): QhatuProject {
  if (!project.customFields) return project;
  const own = definePlugin({ name: PROJECT_PLUGIN, customFields: project.customFields });
  return { ...project, plugins: [...project.plugins, own] };
}
